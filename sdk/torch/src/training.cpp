// The training flow of the LibTorch layer: timed steps and the measured memory
// breakdown (bench/torch/training.hpp).
#include <bench/torch/device.hpp>
#include <bench/torch/memory_tracker.hpp>
#include <bench/torch/training.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <ATen/ops/cross_entropy_loss.h>
#include <c10/core/GradMode.h>
#include <fmt/format.h>
#include <torch/optim/adamw.h>
#include <torch/optim/sgd.h>
#include <torch/version.h>

#include <bench/stopping_rule.hpp>

namespace bench::libtorch {

namespace {

constexpr double mib = 1024.0 * 1024.0;

/// The module on `device`, its floating-point parameters and buffers in `dtype`,
/// parameters requiring gradients, in training mode.
void prepare_for_training(torch::nn::Module& module, const torch::Device& device, torch::ScalarType dtype) {
    const torch::NoGradGuard no_grad;
    module.to(device);
    for (auto& parameter : module.parameters(true)) {
        if (parameter.is_floating_point() && parameter.scalar_type() != dtype) parameter.set_data(parameter.to(dtype));
        parameter.set_requires_grad(parameter.is_floating_point());
    }
    for (auto& buffer : module.buffers(true)) {
        if (buffer.is_floating_point() && buffer.scalar_type() != dtype) buffer.set_data(buffer.to(dtype));
    }
    module.train();
}

/// The bytes of the module's parameters, each tensor once: what its parameters and its
/// gradients must take.
int64_t parameter_bytes(const torch::nn::Module& module) {
    int64_t bytes = 0;
    std::vector<const void*> seen;
    for (const auto& parameter : module.parameters(true)) {
        const void* impl = parameter.unsafeGetTensorImpl();
        if (std::find(seen.begin(), seen.end(), impl) != seen.end()) continue;
        seen.push_back(impl);
        bytes += parameter.numel() * static_cast<int64_t>(parameter.element_size());
    }
    return bytes;
}

std::string optimizer_description(const std::string& name) {
    if (name == "sgd") return "sgd (momentum 0.9, lr 0.01, weight decay 1e-4)";
    if (name == "adamw") return "adamw (lr 0.001, betas 0.9 0.999, weight decay 0.01)";
    throw std::invalid_argument("optimizer must be sgd or adamw, got '" + name + "'");
}

double elapsed_ms(Clock::time_point start, Clock::time_point stop) {
    return std::chrono::duration<double, std::milli>(stop - start).count();
}

struct Breakdown {
    int64_t parameters = 0, inference_peak = 0, activations = 0, gradients = 0, optimizer_state = 0, peak = 0;
};

/// Warns when `measured` is more than `tolerance` away from `expected`.
void check_close(Context& ctx, const std::string& what, int64_t measured, int64_t expected, double tolerance,
                 const std::string& expected_what) {
    if (expected <= 0) return;
    const double ratio = static_cast<double>(measured) / static_cast<double>(expected);
    if (std::abs(ratio - 1.0) <= tolerance) return;
    ctx.add_warning(fmt::format("{}: measured {:.2f} MiB, {} {:.2f} MiB: {:.1f}% apart, more than {:.0f}%", what,
                                static_cast<double>(measured) / mib, expected_what, static_cast<double>(expected) / mib,
                                (ratio - 1.0) * 100.0, tolerance * 100.0));
}

void record_breakdown(Context& ctx, const Breakdown& m, int64_t expected_bytes) {
    ctx.record_scalar("memory_parameters", static_cast<double>(m.parameters) / mib, "MiB");
    ctx.record_scalar("memory_gradients", static_cast<double>(m.gradients) / mib, "MiB");
    ctx.record_scalar("memory_optimizer_state", static_cast<double>(m.optimizer_state) / mib, "MiB");
    ctx.record_scalar("memory_activations", static_cast<double>(m.activations) / mib, "MiB");
    ctx.record_scalar("memory_peak", static_cast<double>(m.peak) / mib, "MiB");
    ctx.record_scalar("memory_inference_peak", static_cast<double>(m.inference_peak) / mib, "MiB");
    const int64_t breakdown = m.parameters + m.gradients + m.optimizer_state + m.activations;
    if (m.peak > 0) ctx.record_scalar("memory_breakdown_over_peak", static_cast<double>(breakdown) / m.peak, "ratio");
    if (m.inference_peak > 0)
        ctx.record_scalar("memory_training_over_inference", static_cast<double>(m.peak) / m.inference_peak, "ratio");

    const std::string own = "the parameters' own bytes are";
    check_close(ctx, "memory_parameters", m.parameters, expected_bytes, 0.05, own);
    check_close(ctx, "memory_gradients", m.gradients, expected_bytes, 0.05, own);
    check_close(ctx, "memory breakdown (parameters + gradients + optimizer state + activations)", breakdown, m.peak,
                0.10, "the peak of a training step is");
}

}  // namespace

std::unique_ptr<torch::optim::Optimizer> make_optimizer(const std::string& name,
                                                        const std::vector<torch::Tensor>& parameters) {
    optimizer_description(name);  // the name is checked
    if (name == "sgd")
        return std::make_unique<torch::optim::SGD>(parameters,
                                                   torch::optim::SGDOptions(0.01).momentum(0.9).weight_decay(1e-4));
    return std::make_unique<torch::optim::AdamW>(parameters, torch::optim::AdamWOptions(1e-3).weight_decay(0.01));
}

void run_training_benchmark(Context& ctx, TrainingBenchmark& spec) {
    if (!spec.build || !spec.make_input || !spec.make_targets)
        throw std::invalid_argument("run_training_benchmark: '" + spec.model +
                                    "' needs build, make_input and make_targets");
    const ScenarioConfig& config = ctx.config();
    ctx.set_info("model", spec.model);
    ctx.set_info("framework", "libtorch");
    ctx.set_info("torch_version", TORCH_VERSION);
    if (config.variant != Variant::eager)
        ctx.skip(spec.model + " trains in eager only: compiled and kernelized are inference variants");
    if (config.batch_size < 1) throw std::invalid_argument("batch_size must be >= 1");
    const std::string optimizer_name = ctx.params().get_string("optimizer", "sgd");
    ctx.set_info("optimizer", optimizer_description(optimizer_name));  // a wrong name fails here

    const ThreadScope threads(ctx);
    const torch::Device device = select_device(ctx);
    retain_freed_memory(ctx);
    const torch::ScalarType dtype = select_dtype(ctx, device);
    const int64_t batch = config.batch_size;

    // Memory is counted from before the model is built to the end of the second step.
    std::optional<CpuMemoryTracker> memory;
    if (device.is_cpu()) memory.emplace();
    else ctx.set_info("memory", "not measured on " + device.str() + ": the breakdown counts LibTorch's CPU allocator");
    Breakdown measured;
    const auto live = [&memory] { return memory ? memory->live_bytes() : int64_t{0}; };

    TrainableModel model = load_model(ctx, spec.build);
    if (!model.module || !model.forward)
        throw std::invalid_argument("run_training_benchmark: '" + spec.model +
                                    "': build returned no module or forward");
    prepare_for_training(*model.module, device, dtype);
    record_parameters(ctx, *model.module, spec.model, spec.expected_parameters);
    measured.parameters = live();

    const torch::Tensor input = spec.make_input(batch, device, dtype);
    const torch::Tensor targets = spec.make_targets(batch, device);

    // Inference at the same batch: eval mode, no autograd.
    {
        const torch::NoGradGuard no_grad;
        model.module->eval();
        if (memory) memory->reset_peak();
        const torch::Tensor output = model.forward(input);
        synchronize(device);
        if (memory) measured.inference_peak = memory->peak_bytes();
        model.module->train();
    }

    std::unique_ptr<torch::optim::Optimizer> optimizer = make_optimizer(optimizer_name, model.module->parameters());
    torch::Tensor last_loss;

    // The first step, phase by phase: activations, gradients, optimizer state. It is
    // the cold start too.
    const auto first_start = Clock::now();
    {
        const int64_t before = live();
        {
            const torch::Tensor output = model.forward(input);
            torch::Tensor loss = at::cross_entropy_loss(output, targets);
            measured.activations = live() - before;
            loss.backward();
        }
        measured.gradients = live() - before;
        const int64_t before_step = live();
        optimizer->step();
        measured.optimizer_state = live() - before_step;
    }
    synchronize(device);
    ctx.record_scalar("first_call", elapsed_ms(first_start, Clock::now()), "ms");

    // The second step, as every later one: gradients, optimizer state and activations
    // all live at once at its peak.
    optimizer->zero_grad(/*set_to_none=*/false);
    if (memory) memory->reset_peak();
    {
        const torch::Tensor output = model.forward(input);
        torch::Tensor loss = at::cross_entropy_loss(output, targets);
        loss.backward();
        optimizer->step();
        last_loss = loss.detach();
    }
    optimizer->zero_grad(/*set_to_none=*/false);
    if (memory) {
        measured.peak = memory->peak_bytes();
        memory.reset();  // the timed steps run on the plain allocator
        record_breakdown(ctx, measured, parameter_bytes(*model.module));
    }

    // Timed steps. The gradients are zeroed in place (zero_grad with set_to_none false;
    // PyTorch 2.x's default frees them instead), as the breakdown assumes: they stay
    // allocated from one step to the next.
    std::vector<double> forward_ms, backward_ms, optimizer_ms, step_ms, unsynchronized_ms;
    // On a GPU, a step whose phases are waited for apart loses the overlap of a real one
    // (the host queueing the backward pass while the forward runs): a step waited for
    // only at its end is timed too, alternating with the phased one.
    const auto unsynchronized_step = [&] {
        synchronize(device);
        const auto t0 = Clock::now();
        const torch::Tensor output = model.forward(input);
        torch::Tensor loss = at::cross_entropy_loss(output, targets);
        loss.backward();
        optimizer->step();
        optimizer->zero_grad(/*set_to_none=*/false);
        synchronize(device);
        unsynchronized_ms.push_back(elapsed_ms(t0, Clock::now()));
        last_loss = loss.detach();
    };
    const auto train_step = [&](bool record) {
        synchronize(device);
        const auto t0 = Clock::now();
        const torch::Tensor output = model.forward(input);
        torch::Tensor loss = at::cross_entropy_loss(output, targets);
        synchronize(device);
        const auto t1 = Clock::now();
        loss.backward();
        synchronize(device);
        const auto t2 = Clock::now();
        optimizer->step();
        optimizer->zero_grad(/*set_to_none=*/false);
        synchronize(device);
        const auto t3 = Clock::now();
        last_loss = loss.detach();
        if (!record) return;
        forward_ms.push_back(elapsed_ms(t0, t1));
        backward_ms.push_back(elapsed_ms(t1, t2));
        optimizer_ms.push_back(elapsed_ms(t2, t3));
        step_ms.push_back(elapsed_ms(t0, t3));
    };
    for (int i = 0; i < config.warmup_iterations; ++i) train_step(false);
    {
        MeasurementScope measuring(ctx);
        StoppingRule rule(ctx.timing_options());
        rule.start();
        while (!rule.should_stop(step_ms)) {
            train_step(true);
            if (device.is_cuda()) unsynchronized_step();
        }
        ctx.record_sampling("step", rule.report(step_ms));
        measuring.set_iterations(static_cast<long long>(step_ms.size() + unsynchronized_ms.size()));
    }
    const Series step = ctx.record_series("step", std::move(step_ms), "ms");
    ctx.record_series("forward", std::move(forward_ms), "ms");
    ctx.record_series("backward", std::move(backward_ms), "ms");
    ctx.record_series("optimizer_step", std::move(optimizer_ms), "ms");
    if (unsynchronized_ms.empty()) {  // on the CPU, where nothing is queued, the step is already unsynchronized
        ctx.record_throughput("throughput", step, static_cast<double>(batch), spec.throughput_unit);
    } else {
        const Series whole = ctx.record_series("step_unsynchronized", std::move(unsynchronized_ms), "ms");
        ctx.record_throughput("throughput", whole, static_cast<double>(batch), spec.throughput_unit);
        ctx.set_info("throughput", "from step_unsynchronized: a step waited for at its end only, as training runs");
    }

    const double loss = last_loss.to(torch::kCPU, torch::kDouble).item<double>();
    if (!std::isfinite(loss))
        throw std::runtime_error(spec.model + ": the loss is " + std::to_string(loss) + " after training: it diverged");
    ctx.record_scalar("loss", loss, "");
    record_memory(ctx, device);
}

}  // namespace bench::libtorch
