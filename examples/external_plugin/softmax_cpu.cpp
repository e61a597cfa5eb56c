// softmax_cpu: a benchhost plugin built out of tree, against an installed SDK
// (see README.md beside this file).
//
// It times a numerically stable softmax over every row of a batch, in plain C++ (the
// normalization an attention layer does per query), and checks the result.
//
// Axes (BENCH_PLUGIN's .axes):
//   batch_size  rows per call: --batch-sizes 1,8
//   dtype       float32 or float64: --dtypes float32,float64; another dtype is skipped
//               with a reason
//   row_length  a custom axis: its values come from the YAML config
//               (plugins: {softmax_cpu: {axes: {row_length: [256, 4096]}}}) and reach
//               the plugin as the parameter "row_length"; --param row_length=N sets one
//               value; default 1024
//
// Records:
//   series  latency      ms per call (ctx.measure)
//   series  throughput   rows/s, one per latency sample
//   scalar  bandwidth    GB/s at the median latency: the input read once, the output
//                        written once
//   scalar  max_row_error  |sum of a row - 1|, the largest over the batch
//   info    framework, model, row_length
#include <bench/plugin.hpp>
#include <bench/statistics.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

BENCH_PLUGIN("softmax_cpu", "1.0.0", .axes = "batch_size,dtype,row_length");

namespace {

template <class T>
void softmax_rows(const std::vector<T>& in, std::vector<T>& out, std::size_t rows, std::size_t cols) {
    for (std::size_t r = 0; r < rows; ++r) {
        const T* x = in.data() + r * cols;
        T* y = out.data() + r * cols;
        const T max = *std::max_element(x, x + cols);
        T sum = 0;
        for (std::size_t c = 0; c < cols; ++c) sum += (y[c] = std::exp(x[c] - max));
        const T scale = T(1) / sum;
        for (std::size_t c = 0; c < cols; ++c) y[c] *= scale;
    }
}

template <class T>
void run(bench::Context& ctx, std::size_t rows, std::size_t cols) {
    std::vector<T> input(rows * cols), output(rows * cols);
    std::mt19937_64 rng(42);  // the same input in every run
    std::normal_distribution<double> normal(0.0, 3.0);
    for (T& value : input) value = static_cast<T>(normal(rng));

    // Warmup, then measured calls until the run's stopping rule is met
    // (--measurement-iterations, or --min-time/--max-time/--target-ci-width).
    const bench::Series latency = ctx.measure("latency", [&] {
        softmax_rows(input, output, rows, cols);
        bench::do_not_optimize(output.data());  // the output counts as used: no call is optimized away
    });
    ctx.record_throughput("throughput", latency, static_cast<double>(rows), "rows/s");

    const double median_ms = bench::summarize(latency.samples).median;
    const double bytes = 2.0 * static_cast<double>(rows * cols * sizeof(T));
    ctx.record_scalar("bandwidth", bytes / (median_ms * 1e-3) / 1e9, "GB/s");

    // A wrong result fails the scenario: any exception does, with its message.
    double worst = 0;
    for (std::size_t r = 0; r < rows; ++r) {
        double sum = 0;
        for (std::size_t c = 0; c < cols; ++c) sum += output[r * cols + c];
        worst = std::max(worst, std::abs(sum - 1.0));
    }
    ctx.record_scalar("max_row_error", worst, "");
    if (worst > 1e-3) throw std::runtime_error("a row sums to " + std::to_string(1.0 + worst) + ", not 1");
}

}  // namespace

BENCH_RUN_BENCHMARK(ctx) {
    const bench::ScenarioConfig& cfg = ctx.config();
    const long long row_length = ctx.params().get_int("row_length", 1024);
    if (row_length < 1) throw std::invalid_argument("row_length must be at least 1, got " + std::to_string(row_length));

    ctx.set_info("framework", "plain C++");
    ctx.set_info("model", "softmax");
    ctx.set_info("row_length", std::to_string(row_length));
    ctx.log().info("softmax over {} rows of {} {}", cfg.batch_size, row_length, cfg.dtype);

    const auto rows = static_cast<std::size_t>(cfg.batch_size);
    const auto cols = static_cast<std::size_t>(row_length);
    if (cfg.dtype == "float32") run<float>(ctx, rows, cols);
    else if (cfg.dtype == "float64") run<double>(ctx, rows, cols);
    else ctx.skip(cfg.dtype + " is not supported: float32 or float64 only");
}
