// tensor_ops: LibTorch operator micro-benchmarks on the CPU.
//
// Entries: matmul, conv2d, softmax, layer_norm. Each times one ATen operator at a few
// problem sizes, in the scenario's dtype and variant (the plugin's axes):
//   eager       the operator as ATen runs it
//   compiled    traced into a TorchScript graph, frozen and optimized (compile_time_<label>)
//   kernelized  the SDK kernel registry's kernel: conv2d only (oneDNN, prepacked weight,
//               channels-last); the other operators are skipped with the reason
// compiled and kernelized outputs are checked against eager (max_abs_diff, max_rel_diff).
// What it records:
//
//   series  latency_<label>    ms per call, one series per size
//   scalar  gflops_<label>     analytic FLOPs / median latency, GFLOP/s
//   scalar  bandwidth_<label>  softmax and layer_norm only: minimal memory traffic
//                              (read the input once, write the output once) / median, GB/s
//   series  latency, scalar gflops
//           the headline: a copy of the size with the most FLOPs, the first such on a
//           tie (the two default conv2d shapes have the same count). Small sizes are dominated by the dispatcher's
//           per-call overhead; the largest one says what the kernel itself sustains, which is what a summary compares
//           across machines and dtypes.
//
// Labels are built from the parsed integers, so series names are always [0-9a-z]+:
// matmul "n512", conv2d "1x64x56x56", softmax and layer_norm "256x4096".
//
// FLOP counts (nominal, per call; they define GFLOP/s, they are not a hardware count):
//   matmul      2*N^3                       one multiply and one add per inner-product term
//   conv2d      2*B*Cout*Hout*Wout*Cin*K*K  direct convolution, padded zeros counted,
//                                           bias ignored
//   softmax     5*rows*cols                 max, subtract, exp, sum, divide per element
//   layer_norm  8*rows*cols                 mean: add; variance: subtract, square, add;
//                                           normalize: subtract, multiply; affine: multiply, add
//
// Parameters (the scenario's params; nested YAML maps arrive as "op.key"):
//   matmul.sizes       int list of square sizes N                 default [128, 512]
//                      (plain "sizes" is read too when matmul.sizes is absent)
//   conv2d.shapes      string list "BxCxHxW", Cout = C            default [1x64x56x56, 1x256x14x14]
//   conv2d.kernel      kernel size K, stride 1, padding K/2       default 3
//   softmax.shapes     string list "ROWSxCOLS", softmax over COLS  default [64x1024, 256x4096]
//   layer_norm.shapes  string list "ROWSxCOLS", normalized over COLS, with weight and bias
//                                                                  default [64x1024, 256x4096]
//   verify             compare each output once with a higher-precision reference and fail
//                      the scenario when it is wrong                default true
//   max_slowdown       skip a reduced-precision dtype whose call is more than this many
//                      times slower than float32: a generic scalar fallback rather than a
//                      kernel, which would make the run long and measure nothing of
//                      interest; 0 disables. The ratio is of the fastest of three calls
//                      each. On an AVX2 CPU (2026-11-29, LibTorch 2.14) bfloat16 conv2d
//                      and matmul read 38x to 90x from run to run (skipped), layer_norm
//                      and softmax 1.0x to 1.5x (measured).                  default 20
//   slowdown           makes every timed call this many times slower, to simulate a
//                      regression (for testing regression detection): inside the timed
//                      call, after the operator, a busy wait reading the steady clock for
//                      (slowdown - 1) x the time the operator itself took, so the extra
//                      time follows the operator's own noise. A number >= 1; 1 adds
//                      nothing (not even a clock read). Recorded as info "slowdown" when
//                      not 1. Untimed calls (probe, verify, max_slowdown's check) are
//                      not slowed.                                   default 1
//
// Dtypes: float32, bfloat16, float16 (fp32/bf16/fp16/half also accepted). An operator the
// build has no kernel for in that dtype is tried once; its c10::Error becomes the skip
// reason. Inputs come from a CPU generator seeded with 0, drawn in float32 and rounded
// to the dtype, so every dtype sees the same values.
//
// Headers: only the ATen operators used and the SDK's LibTorch layer (TorchScript for the
// compiled variant), not <torch/torch.h>, to keep this translation unit's compile time down.

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Context.h>
#include <ATen/core/Tensor.h>
#include <ATen/core/grad_mode.h>
#include <ATen/ops/conv2d.h>
#include <ATen/ops/layer_norm.h>
#include <ATen/ops/matmul.h>
#include <ATen/ops/ones.h>
#include <ATen/ops/randn.h>
#include <ATen/ops/softmax.h>
#include <ATen/ops/zeros.h>
#include <c10/core/InferenceMode.h>
#include <c10/util/Exception.h>
#include <torch/version.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <spdlog/fmt/fmt.h>

#include <bench/plugin.hpp>
#include <bench/statistics.hpp>
#include <bench/torch/accuracy.hpp>
#include <bench/torch/compile.hpp>
#include <bench/torch/device.hpp>
#include <bench/torch/kernels.hpp>
#include <bench/torch/profiling.hpp>

BENCH_PLUGIN("tensor_ops", "1.1.0", .axes = "variant,dtype,device,threads");

namespace {

using Inputs = std::vector<at::Tensor>;
using Op = std::function<at::Tensor(const Inputs&)>;

/// One problem size of one operator.
struct Case {
    std::string label;  // suffix of the series and scalar names
    double flops = 0;  // nominal FLOPs per call (see the table at the top)
    double bytes = 0;  // minimal memory traffic per call; 0: not reported
    Inputs inputs;
    Op op;
    /// The kernelized form of `op` for these inputs (prepared once); empty where the
    /// SDK's kernel registry has no kernel for the operator.
    std::function<Op(const bench::libtorch::KernelRegistry&, const Inputs&)> kernelize;
};

struct Dtype {
    at::ScalarType type;
    std::string name;  // canonical: float32, bfloat16, float16
    at::ScalarType reference;  // what verification compares with
    double tolerance;  // allowed max |y - ref| / max |ref|
};

std::optional<Dtype> parse_dtype(std::string_view text) {
    if (text == "float32" || text == "fp32" || text == "float") return Dtype{at::kFloat, "float32", at::kDouble, 1e-4};
    if (text == "bfloat16" || text == "bf16") return Dtype{at::kBFloat16, "bfloat16", at::kFloat, 2e-2};
    if (text == "float16" || text == "fp16" || text == "half") return Dtype{at::kHalf, "float16", at::kFloat, 4e-3};
    return std::nullopt;
}

std::string first_line(std::string_view text) {
    const auto end = text.find('\n');
    return std::string(text.substr(0, end));
}

/// A standard-normal tensor from `gen`, drawn in float32 and rounded to `dtype`.
at::Tensor random(at::IntArrayRef shape, at::Generator& gen, at::ScalarType dtype) {
    return at::randn(shape, gen, at::TensorOptions().dtype(at::kFloat)).to(dtype);
}

Inputs converted(const Inputs& inputs, at::ScalarType dtype) {
    Inputs out;
    out.reserve(inputs.size());
    for (const at::Tensor& t : inputs) out.push_back(t.to(dtype));
    return out;
}

/// Milliseconds of one call.
double call_ms(const Op& op, const Inputs& inputs) {
    const auto start = bench::Clock::now();
    const at::Tensor y = op(inputs);
    bench::do_not_optimize(y.data_ptr());
    return std::chrono::duration<double, std::milli>(bench::Clock::now() - start).count();
}

/// The operator call that is timed: `op` on `inputs`, then, for a slowdown above 1, a busy
/// wait of (slowdown - 1) x the time the call took. Busy, not a sleep: a sleep would give
/// the core away and wake up late by a scheduler tick, the spin keeps the CPU as the
/// operator did and ends on time.
void timed_call(const Op& op, const Inputs& inputs, double slowdown) {
    if (slowdown == 1.0) {
        const at::Tensor y = op(inputs);
        bench::do_not_optimize(y.data_ptr());
        return;
    }
    const auto start = bench::Clock::now();
    const at::Tensor y = op(inputs);
    bench::do_not_optimize(y.data_ptr());
    const auto took = bench::Clock::now() - start;
    const auto until = start + took + std::chrono::duration_cast<bench::Clock::duration>(took * (slowdown - 1.0));
    while (bench::Clock::now() < until) {}
}

/// Parameter slowdown: a number >= 1 (default 1), or an std::invalid_argument naming it.
double slowdown_param(const bench::Params& params) {
    const double slowdown = params.get_double("slowdown", 1.0);  // throws for a value that is not a number
    if (!(slowdown >= 1.0))
        throw std::invalid_argument(
            fmt::format("parameter slowdown: {} is less than 1 (it multiplies the time of "
                        "each timed call; 1 leaves it as it is)",
                        slowdown));
    return slowdown;
}

/// "AxBx..." with exactly `count` positive integers, or an std::invalid_argument naming
/// the parameter.
std::vector<long long> parse_shape(std::string_view text, std::size_t count, std::string_view key,
                                   std::string_view form) {
    std::vector<long long> dims;
    std::size_t begin = 0;
    for (;;) {
        const std::size_t end = text.find('x', begin);
        const auto value = bench::parse_int(text.substr(begin, end == std::string_view::npos ? end : end - begin));
        if (!value || *value <= 0) break;
        dims.push_back(*value);
        if (end == std::string_view::npos) {
            if (dims.size() == count) return dims;
            break;
        }
        begin = end + 1;
    }
    throw std::invalid_argument(fmt::format("parameter {}: '{}' is not {} with positive integers", key, text, form));
}

std::string join_label(const std::vector<long long>& dims) { return fmt::format("{}", fmt::join(dims, "x")); }

/// What every entry does first: check the configuration (skipping what does not apply),
/// set the thread count (bench::libtorch::ThreadScope, which records info "threads"),
/// record the facts, and enter inference mode. Restores the thread count when the entry
/// returns, for hosts that run scenarios in one process.
class Session {
public:
    Session(bench::Context& ctx, std::string_view op, std::string_view flop_count) : ctx_(ctx), op_(op) {
        const bench::ScenarioConfig& config = ctx.config();
        if (config.device != "cpu")
            ctx.skip(fmt::format("tensor_ops times CPU kernels only; device '{}' is not measured{}", config.device,
                                 at::hasCUDA() ? "" : " (this LibTorch build has no CUDA)"));
        const auto dtype = parse_dtype(config.dtype);
        if (!dtype)
            ctx.skip(
                fmt::format("dtype '{}' is not supported by tensor_ops (float32, bfloat16, float16)", config.dtype));
        dtype_ = *dtype;
        if (config.variant == bench::Variant::compiled) bench::libtorch::require_torchscript_mode(ctx, "tensor_ops");
        slowdown_ = slowdown_param(ctx.params());
        threads_.emplace(ctx);
        bench::libtorch::retain_freed_memory(ctx);

        ctx.set_info("framework", "libtorch");
        ctx.set_info("torch_version", TORCH_VERSION);
        ctx.set_info("operator", op);
        ctx.set_info("dtype", dtype_.name);
        ctx.set_info("mkldnn", at::hasMKLDNN() ? "yes" : "no");
        ctx.set_info("flop_count", flop_count);
        ctx.set_info("variant", std::string(bench::to_string(config.variant)));
        if (slowdown_ != 1.0) ctx.set_info("slowdown", fmt::format("{}", slowdown_));
    }
    Session(const Session&) = delete;
    Session& operator=(const Session&) = delete;

    const Dtype& dtype() const { return dtype_; }

    /// Probes, verifies and measures `cases`; see the top of the file for what it records.
    void run(const std::vector<Case>& cases) const;

private:
    void probe(const std::vector<Case>& cases) const;
    void check_speed(const std::vector<Case>& cases) const;
    void verify(const std::vector<Case>& cases) const;
    Op variant_of(const Case& c) const;

    bench::Context& ctx_;
    std::string op_;
    Dtype dtype_{};
    double slowdown_ = 1.0;  // parameter slowdown: each timed call made this many times slower
    std::optional<bench::libtorch::ThreadScope> threads_;  // after the skips: a skipped entry leaves them alone
    // Hold for the whole entry: the inputs are built and the operators run under them.
    at::NoGradGuard no_grad_;
    c10::InferenceMode inference_;
};

/// One call per case: an operator without a kernel for the dtype throws c10::Error.
void Session::probe(const std::vector<Case>& cases) const {
    for (const Case& c : cases) {
        try {
            const at::Tensor y = c.op(c.inputs);
            bench::do_not_optimize(y.data_ptr());
        } catch (const c10::Error& e) {
            ctx_.skip(fmt::format("{} {} is not supported by this LibTorch build: {}", dtype_.name, op_,
                                  first_line(e.what_without_backtrace())));
        }
    }
}

/// A reduced-precision dtype that runs through a generic fallback rather than a native
/// kernel can be orders of magnitude slower than float32: skip it instead of spending
/// the run on it. The ratio is of the fastest of three calls each (float32 warmed up
/// first), whichever way it leans: one call on a busy machine can be several times
/// slower than the next. The limit sits far from both kinds: at 50, inside the 38x to
/// 90x that bfloat16 conv2d and matmul read on an AVX2 machine, one variant of a run was
/// skipped and the next measured for seconds.
void Session::check_speed(const std::vector<Case>& cases) const {
    const double max_slowdown = ctx_.params().get_double("max_slowdown", 20.0);
    if (dtype_.type == at::kFloat || max_slowdown <= 0) return;
    for (const Case& c : cases) {
        const Inputs f32 = converted(c.inputs, at::kFloat);
        call_ms(c.op, f32);  // warm float32 up (primitive creation, first touch)
        double ms = call_ms(c.op, c.inputs);
        double f32_ms = call_ms(c.op, f32);
        for (int more = 0; more < 2; ++more) {
            ms = std::min(ms, call_ms(c.op, c.inputs));
            f32_ms = std::min(f32_ms, call_ms(c.op, f32));
        }
        if (ms > max_slowdown * f32_ms)
            ctx_.skip(
                fmt::format("{} {} {} takes {:.3f} ms per call against {:.3f} ms in float32 ({:.0f}x): "
                            "no fast {} kernel in this LibTorch build (params.max_slowdown = {})",
                            dtype_.name, op_, c.label, ms, f32_ms, ms / f32_ms, dtype_.name, max_slowdown));
    }
}

/// Compares each output once with the same operator on the same (rounded) inputs in a
/// higher precision; a wrong result fails the scenario.
void Session::verify(const std::vector<Case>& cases) const {
    if (!ctx_.params().get_bool("verify", true)) return;
    for (const Case& c : cases) {
        const at::Tensor reference = c.op(converted(c.inputs, dtype_.reference));
        const at::Tensor y = c.op(c.inputs).to(dtype_.reference);
        const double scale = reference.abs().max().item<double>();
        const double error = y.sub(reference).abs().max().item<double>() / (scale > 0 ? scale : 1.0);
        if (!(error <= dtype_.tolerance))
            throw std::runtime_error(
                fmt::format("{} {} {}: max |y - reference| / max |reference| = {:.3g}, above {:.3g}", dtype_.name, op_,
                            c.label, error, dtype_.tolerance));
        ctx_.log().debug("{} {} {}: relative error {:.3g} against {}", op_, c.label, dtype_.name, error,
                         c10::toString(dtype_.reference));
    }
}

void Session::run(const std::vector<Case>& cases) const {
    for (std::size_t i = 0; i < cases.size(); ++i)
        for (std::size_t j = 0; j < i; ++j)
            if (cases[i].label == cases[j].label)
                throw std::invalid_argument(fmt::format("{}: size {} is listed twice", op_, cases[i].label));
    probe(cases);
    check_speed(cases);
    verify(cases);

    // The operator as the scenario's variant runs it, checked against eager.
    std::vector<Op> ops;
    ops.reserve(cases.size());
    for (const Case& c : cases) ops.push_back(variant_of(c));

    std::vector<bench::Series> measured;
    measured.reserve(cases.size());
    std::size_t headline_index = 0;
    for (std::size_t i = 0; i < cases.size(); ++i) {
        const Case& c = cases[i];
        const Op& op = ops[i];
        measured.push_back(ctx_.measure("latency_" + c.label, [&] { timed_call(op, c.inputs, slowdown_); }));
        const double median_ms = bench::summarize(measured.back().samples).median;
        const double gflops = c.flops / (median_ms * 1e6);
        ctx_.record_scalar("gflops_" + c.label, gflops, "GFLOP/s");
        std::string line =
            fmt::format("{} {} {}: median {:.4f} ms, {:.2f} GFLOP/s", op_, c.label, dtype_.name, median_ms, gflops);
        if (c.bytes > 0) {
            const double gbps = c.bytes / (median_ms * 1e6);
            ctx_.record_scalar("bandwidth_" + c.label, gbps, "GB/s");
            line += fmt::format(", {:.2f} GB/s", gbps);
        }
        ctx_.log().info("{}", line);
        if (c.flops > cases[headline_index].flops) headline_index = i;
    }
    if (cases.empty()) return;
    const bench::Series* headline = &measured[headline_index];
    const bench::Series latency = ctx_.record_series("latency", headline->samples, "ms", headline->inner_iterations);
    // Achieved GFLOP/s of each sample: what the summary table shows as throughput.
    ctx_.record_throughput("throughput", latency, cases[headline_index].flops / 1e9, "GFLOP/s");
    ctx_.record_scalar("gflops", cases[headline_index].flops / (bench::summarize(headline->samples).median * 1e6),
                       "GFLOP/s");
    ctx_.set_info("headline", cases[headline_index].label);

    // --profile: one call of the headline size, profiled apart from everything measured.
    const Case& profiled = cases[headline_index];
    bench::libtorch::profile(ctx_, op_ + " " + profiled.label,
                             [&] { timed_call(ops[headline_index], profiled.inputs, slowdown_); });
}

/// compiled: the operator traced into a TorchScript graph, frozen and optimized (the
/// compile mode's passes; compile time recorded per size); kernelized: the kernel
/// registry's kernel where there is one (conv2d), else the scenario is skipped. Either
/// is compared with eager on the same inputs, within the dtype's tolerance.
Op Session::variant_of(const Case& c) const {
    namespace lt = bench::libtorch;
    const bench::ScenarioConfig& config = ctx_.config();
    Op op;
    switch (config.variant) {
        case bench::Variant::eager:
            return c.op;
        case bench::Variant::compiled: {
            lt::CompiledModel compiled;
            try {
                compiled =
                    lt::compile_traced([eager = c.op](const std::vector<torch::Tensor>& in) { return eager(in); },
                                       c.inputs, config.compile_mode);
            } catch (const c10::Error& e) {
                ctx_.skip(fmt::format("{} {} cannot be compiled in {}: {}", op_, c.label, dtype_.name,
                                      first_line(e.what_without_backtrace())));
            }
            ctx_.record_scalar("compile_time_" + c.label, compiled.compile_time_ms, "ms");
            ctx_.set_info("variant_passes", fmt::format("{}", fmt::join(compiled.passes, ",")));
            auto module = std::make_shared<torch::jit::Module>(std::move(compiled.module));
            op = [module](const Inputs& in) {
                std::vector<c10::IValue> args(in.begin(), in.end());
                return module->forward(std::move(args)).toTensor();
            };
            break;
        }
        case bench::Variant::kernelized: {
            if (!c.kernelize)
                ctx_.skip(
                    fmt::format("no kernelized {} in tensor_ops: the SDK's kernel registry has a kernel for "
                                "convolutions (conv2d) only",
                                op_));
            const lt::KernelRegistry kernels = lt::KernelRegistry::with_defaults();
            op = c.kernelize(kernels, c.inputs);
            ctx_.set_info("kernels", fmt::format("{}", fmt::join(kernels.describe(), ",")));
            break;
        }
    }
    lt::check_against_reference(ctx_, c.op(c.inputs), op(c.inputs), dtype_.type);
    return op;
}

double element_bytes(at::ScalarType dtype) { return static_cast<double>(c10::elementSize(dtype)); }

std::vector<std::vector<long long>> shapes_param(const bench::Params& params, const std::string& key,
                                                 std::vector<std::string> fallback, std::size_t count,
                                                 std::string_view form) {
    std::vector<std::vector<long long>> shapes;
    for (const std::string& text : params.get_string_list(key, std::move(fallback)))
        shapes.push_back(parse_shape(text, count, key, form));
    if (shapes.empty()) throw std::invalid_argument(fmt::format("parameter {}: the list is empty", key));
    return shapes;
}

// ---- matmul: [N, N] x [N, N] ----

Case matmul_case(long long n, at::ScalarType dtype) {
    at::Generator gen = at::detail::createCPUGenerator(0);
    Case c;
    c.label = fmt::format("n{}", n);
    const double nd = static_cast<double>(n);
    c.flops = 2 * nd * nd * nd;
    c.inputs = {random({n, n}, gen, dtype), random({n, n}, gen, dtype)};
    c.op = [](const Inputs& in) { return at::matmul(in[0], in[1]); };
    return c;
}

// ---- conv2d: [B, C, H, W] * [C, C, K, K] + bias, stride 1, padding K/2 ----

Case conv2d_case(const std::vector<long long>& s, long long k, at::ScalarType dtype) {
    at::Generator gen = at::detail::createCPUGenerator(0);
    const long long batch = s[0], channels = s[1], height = s[2], width = s[3];
    const long long pad = k / 2;
    const long long out_h = height + 2 * pad - k + 1, out_w = width + 2 * pad - k + 1;
    if (out_h <= 0 || out_w <= 0)
        throw std::invalid_argument(fmt::format("conv2d: kernel {} does not fit input {}", k, join_label(s)));
    Case c;
    c.label = join_label(s);
    c.flops = 2.0 * static_cast<double>(batch * channels * out_h * out_w) * static_cast<double>(channels * k * k);
    c.inputs = {random({batch, channels, height, width}, gen, dtype), random({channels, channels, k, k}, gen, dtype),
                random({channels}, gen, dtype)};
    // Dilation given in full: LibTorch's profiler counts a convolution's FLOPs only when
    // its padding and dilation have both sides (--profile).
    c.op = [pad](const Inputs& in) { return at::conv2d(in[0], in[1], in[2], {1, 1}, {pad, pad}, {1, 1}, 1); };
    // The SDK's conv_bn_act kernel (oneDNN, prepacked weight, channels-last) with an
    // identity batch norm and no activation: the same convolution.
    c.kernelize = [pad, channels](const bench::libtorch::KernelRegistry& kernels, const Inputs& in) -> Op {
        bench::libtorch::ConvBnActParams params;
        params.conv_weight = in[1];
        params.conv_bias = in[2];
        const auto options = at::TensorOptions().dtype(in[1].scalar_type());
        params.bn_eps = 0;
        params.bn_weight = at::ones({channels}, options);
        params.bn_bias = at::zeros({channels}, options);
        params.bn_mean = at::zeros({channels}, options);
        params.bn_var = at::ones({channels}, options);
        params.stride = {1};
        params.padding = {pad};
        params.dilation = {1};
        params.relu = false;
        bench::libtorch::PreparedKernel kernel = kernels.prepare_conv_bn_act(params);
        return [kernel = std::move(kernel)](const Inputs& x) { return kernel(x[0]); };
    };
    return c;
}

// ---- softmax over the last dimension of [rows, cols] ----

Case softmax_case(const std::vector<long long>& s, at::ScalarType dtype) {
    at::Generator gen = at::detail::createCPUGenerator(0);
    const double elements = static_cast<double>(s[0] * s[1]);
    Case c;
    c.label = join_label(s);
    c.flops = 5 * elements;
    c.bytes = 2 * elements * element_bytes(dtype);
    c.inputs = {random({s[0], s[1]}, gen, dtype)};
    c.op = [](const Inputs& in) { return at::softmax(in[0], -1); };
    return c;
}

// ---- layer_norm over the last dimension of [rows, cols], with weight and bias ----

Case layer_norm_case(const std::vector<long long>& s, at::ScalarType dtype) {
    at::Generator gen = at::detail::createCPUGenerator(0);
    const long long cols = s[1];
    const double elements = static_cast<double>(s[0] * cols);
    Case c;
    c.label = join_label(s);
    c.flops = 8 * elements;
    c.bytes = (2 * elements + 2 * static_cast<double>(cols)) * element_bytes(dtype);
    c.inputs = {random({s[0], cols}, gen, dtype), random({cols}, gen, dtype), random({cols}, gen, dtype)};
    c.op = [cols](const Inputs& in) { return at::layer_norm(in[0], {cols}, in[1], in[2], 1e-5); };
    return c;
}

/// The entries over [rows, cols] shapes (softmax, layer_norm): parameter "<op>.shapes",
/// default [64x1024, 256x4096], one case of `make_case` each.
void run_rows_by_cols(bench::Context& ctx, std::string_view op, std::string_view flop_count,
                      Case (*make_case)(const std::vector<long long>&, at::ScalarType)) {
    const Session session(ctx, op, flop_count);
    std::vector<Case> cases;
    const std::string key = fmt::format("{}.shapes", op);
    for (const auto& s : shapes_param(ctx.params(), key, {"64x1024", "256x4096"}, 2, "ROWSxCOLS"))
        cases.push_back(make_case(s, session.dtype().type));
    session.run(cases);
}

}  // namespace

BENCH_BENCHMARK(matmul, ctx) {
    const Session session(ctx, "matmul", "2*N^3");
    const bench::Params& params = ctx.params();
    const auto sizes = params.get_int_list("matmul.sizes", params.get_int_list("sizes", {128, 512}));
    if (sizes.empty()) throw std::invalid_argument("parameter matmul.sizes: the list is empty");
    std::vector<Case> cases;
    for (const long long n : sizes) {
        if (n <= 0) throw std::invalid_argument(fmt::format("parameter matmul.sizes: {} is not positive", n));
        cases.push_back(matmul_case(n, session.dtype().type));
    }
    session.run(cases);
}

BENCH_BENCHMARK(conv2d, ctx) {
    const Session session(ctx, "conv2d", "2*B*Cout*Hout*Wout*Cin*K*K");
    const long long k = ctx.params().get_int("conv2d.kernel", 3);
    if (k <= 0) throw std::invalid_argument(fmt::format("parameter conv2d.kernel: {} is not positive", k));
    std::vector<Case> cases;
    for (const auto& s : shapes_param(ctx.params(), "conv2d.shapes", {"1x64x56x56", "1x256x14x14"}, 4, "BxCxHxW"))
        cases.push_back(conv2d_case(s, k, session.dtype().type));
    session.run(cases);
}

BENCH_BENCHMARK(softmax, ctx) { run_rows_by_cols(ctx, "softmax", "5*rows*cols", softmax_case); }

BENCH_BENCHMARK(layer_norm, ctx) { run_rows_by_cols(ctx, "layer_norm", "8*rows*cols", layer_norm_case); }

// The SDK's kernel registry kernelizes convolutions only: conv2d alone has the kernelized variant.
BENCH_BENCHMARK_VARIANTS(matmul, bench::eager_bit | bench::compiled_bit);
BENCH_BENCHMARK_VARIANTS(softmax, bench::eager_bit | bench::compiled_bit);
BENCH_BENCHMARK_VARIANTS(layer_norm, bench::eager_bit | bench::compiled_bit);
