// The three variants of a LibTorch model: compiled (an AOTInductor package through
// aot_inductor.hpp, or traced, frozen and optimized by TorchScript here),
// kernelized (layers replaced by prepared oneDNN kernels), and the standard model
// benchmark flow that runs one of them against eager.
#include <bench/torch/accuracy.hpp>
#include <bench/torch/aot_inductor.hpp>
#include <bench/torch/compile.hpp>
#include <bench/torch/cuda_graph.hpp>
#include <bench/torch/device.hpp>
#include <bench/torch/flops.hpp>
#include <bench/torch/kernels.hpp>
#include <bench/torch/model_benchmark.hpp>
#include <bench/torch/precision.hpp>
#include <bench/torch/profiling.hpp>

#include <algorithm>
#include <chrono>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include <ATen/core/dispatch/Dispatcher.h>
#include <c10/core/InferenceMode.h>
#include <torch/csrc/jit/api/module.h>
#include <torch/csrc/jit/frontend/tracer.h>
#include <torch/csrc/jit/ir/ir.h>
#include <torch/version.h>

#include <bench/timer.hpp>

namespace bench::libtorch {

namespace {

/// The first line of an error, without LibTorch's C++ backtrace.
std::string first_line(const std::exception& e) {
    const auto* error = dynamic_cast<const c10::Error*>(&e);
    std::string text = error ? error->what_without_backtrace() : e.what();
    if (const auto nl = text.find('\n'); nl != std::string::npos) text.resize(nl);
    return text;
}

std::string join(const std::vector<std::string>& parts, const char* separator) {
    std::string out;
    for (const auto& part : parts) out += (out.empty() ? "" : separator) + part;
    return out;
}

double elapsed_ms(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

}  // namespace

// ---------------------------------------------------------------------------------
// Compiled: trace, freeze, optimize

std::vector<std::string> compile_passes(const std::string& mode) {
    if (mode == "torchscript") return {"trace", "freeze", "optimize_for_inference"};
    if (mode == "torchscript-freeze") return {"trace", "freeze"};
    if (mode == "torchscript-trace") return {"trace"};
    throw std::invalid_argument("compile mode '" + mode +
                                "' is not a TorchScript mode (torchscript, "
                                "torchscript-freeze, torchscript-trace)");
}

bool is_torchscript_mode(const std::string& mode) {
    return mode == "torchscript" || mode == "torchscript-freeze" || mode == "torchscript-trace";
}

std::string known_compile_modes() {
    return "default, max-autotune, reduce-overhead, torchscript, torchscript-freeze, torchscript-trace";
}

namespace {

/// torch.compile's own modes, which only Python plugins run (benchhost.torch): a C++
/// plugin skips them, so that one --compile-modes serves a run of both.
void skip_torch_compile_mode(Context& ctx, const std::string& what, const std::string& mode) {
    if (mode == "torch-compile" || mode == "torch-compile-max-autotune" || mode == "max-autotune-no-cudagraphs")
        ctx.skip(what + ": compile mode '" + mode +
                 "' is torch.compile's, which Python plugins run (benchhost.torch); the C++ layer compiles "
                 "AOTInductor packages (default, max-autotune) and TorchScript");
}

}  // namespace

void require_torchscript_mode(Context& ctx, const std::string& what) {
    const std::string& mode = ctx.config().compile_mode;
    if (is_torchscript_mode(mode)) return;
    if (is_aot_inductor_mode(mode) || mode == "reduce-overhead")
        ctx.skip(what + " compiles with TorchScript only (--compile-modes torchscript); compile mode '" + mode +
                 "' is not built for it");
    skip_torch_compile_mode(ctx, what, mode);
    throw std::invalid_argument("unknown compile mode '" + mode + "': one of " + known_compile_modes());
}

std::shared_ptr<torch::jit::Graph> trace_graph(const TensorForward& forward,
                                               const std::vector<torch::Tensor>& example_inputs) {
    torch::jit::Stack inputs(example_inputs.begin(), example_inputs.end());
    auto traced = [&forward](torch::jit::Stack stack) -> torch::jit::Stack {
        std::vector<torch::Tensor> tensors;
        tensors.reserve(stack.size());
        for (const auto& value : stack) tensors.push_back(value.toTensor());
        return {forward(tensors)};
    };
    try {
        auto result = torch::jit::tracer::trace(
            std::move(inputs), traced, [](const torch::autograd::Variable&) { return std::string(); },
            /*strict=*/false, /*force_outplace=*/false);
        return result.first->graph;
    } catch (const SkipScenario&) {
        throw;
    } catch (const std::exception& e) {
        // The tracer throws c10::Error and std::runtime_error (whose text goes on with a
        // dump of the offending tensor): keep the first line.
        std::string reason = first_line(e);
        if (reason.find("requires grad") != std::string::npos)
            reason += " (set requires_grad(false) on the model's parameters before tracing)";
        throw std::runtime_error("tracing the forward pass failed: " + reason);
    }
}

CompiledModel compile_traced(const TensorForward& forward, const std::vector<torch::Tensor>& example_inputs,
                             const std::string& mode) {
    CompiledModel compiled;
    compiled.passes = compile_passes(mode);  // invalid mode: throws before any work
    const auto start = Clock::now();
    std::shared_ptr<torch::jit::Graph> graph = trace_graph(forward, example_inputs);
    compiled.traced_graph = graph->copy();

    // The graph becomes the method `forward` of a module of its own. Captured parameters
    // and buffers are already constants of the graph (prim::Constant holding the
    // tensor), which freeze and optimize_for_inference fold and convert.
    torch::jit::Module module(c10::QualifiedName("__torch__.bench.TracedModel"));
    graph->insertInput(0, "self")->setType(module._ivalue()->type());
    auto function = module._ivalue()->compilation_unit()->create_function(
        c10::QualifiedName(*module.type()->name(), "forward"), graph);
    module.type()->addMethod(function);
    try {
        for (const auto& pass : compiled.passes) {
            if (pass == "freeze") {
                module = torch::jit::freeze(module);
            } else if (pass == "optimize_for_inference") {
                module = torch::jit::optimize_for_inference(module);
            }
        }
    } catch (const c10::Error& e) {
        throw std::runtime_error("compiling the traced graph failed: " + first_line(e));
    }
    compiled.module = std::move(module);
    // On a GPU the trace ran the model: the compile ends when the device has.
    if (!example_inputs.empty()) synchronize(example_inputs.front().device());
    compiled.compile_time_ms = elapsed_ms(start);
    return compiled;
}

// ---------------------------------------------------------------------------------
// Kernels

std::pair<torch::Tensor, torch::Tensor> fold_batch_norm(const ConvBnActParams& params) {
    const torch::NoGradGuard no_grad;
    const torch::Tensor& w = params.conv_weight;
    if (!w.defined() || w.dim() < 3)
        throw std::invalid_argument("fold_batch_norm: conv_weight must be [out, in/groups, k...]");
    const int64_t out = w.size(0);
    for (const auto* t : {&params.bn_weight, &params.bn_bias, &params.bn_mean, &params.bn_var}) {
        if (!t->defined() || t->dim() != 1 || t->size(0) != out)
            throw std::invalid_argument("fold_batch_norm: batch norm tensors must have " + std::to_string(out) +
                                        " elements, one per output channel");
    }
    // In float64 for float64 weights, else float32, then back to the weight's dtype.
    const auto compute = w.scalar_type() == torch::kDouble ? torch::kDouble : torch::kFloat;
    const torch::Tensor scale = params.bn_weight.to(compute) / torch::sqrt(params.bn_var.to(compute) + params.bn_eps);
    std::vector<int64_t> view(static_cast<std::size_t>(w.dim()), 1);
    view[0] = out;
    const torch::Tensor weight = (w.to(compute) * scale.view(view)).to(w.scalar_type()).contiguous();
    torch::Tensor bias = -params.bn_mean.to(compute);
    if (params.conv_bias && params.conv_bias->defined()) bias = bias + params.conv_bias->to(compute);
    bias = (bias * scale + params.bn_bias.to(compute)).to(w.scalar_type());
    return {weight, bias};
}

namespace {

/// oneDNN's prepacked convolution (mkldnn_prepacked::conv2d_prepack / conv2d_run,
/// which LibTorch's own JIT rewrite uses): the weight reordered once into the blocked
/// layout oneDNN picked for the input shape, bias and ReLU fused into the primitive.
/// Found through the dispatcher: absent from builds without oneDNN.
struct PrepackedOps {
    c10::OperatorHandle prepack;
    c10::OperatorHandle run;
};

const std::optional<PrepackedOps>& prepacked_ops() {
    static const std::optional<PrepackedOps> ops = []() -> std::optional<PrepackedOps> {
        auto& dispatcher = c10::Dispatcher::singleton();
        auto prepack = dispatcher.findSchema({"mkldnn_prepacked::conv2d_prepack", ""});
        auto run = dispatcher.findSchema({"mkldnn_prepacked::conv2d_run", ""});
        if (!prepack || !run) return std::nullopt;
        return PrepackedOps{*prepack, *run};
    }();
    return ops;
}

/// `weight` [O, I, kh, kw] with channels-last strides, always. .contiguous(ChannelsLast)
/// returns a 1x1 weight unchanged (its NCHW strides are valid channels-last strides
/// too), and oneDNN then packs it for an NCHW primitive and reorders it on every call.
torch::Tensor channels_last_weight(const torch::Tensor& weight) {
    const int64_t o = weight.size(0), i = weight.size(1), h = weight.size(2), w = weight.size(3);
    return at::empty_strided({o, i, h, w}, {i * h * w, 1, w * i, i}, weight.options()).copy_(weight);
}

std::vector<int64_t> expand2(const std::vector<int64_t>& v, int64_t fallback, const char* what) {
    if (v.empty()) return {fallback, fallback};
    if (v.size() == 1) return {v[0], v[0]};
    if (v.size() == 2) return v;
    throw std::invalid_argument(std::string("conv_bn_act: ") + what + " must have 1 or 2 values for a 2-d convolution");
}

// Which conv_bn_act is fastest here: ResNet-50's convolution shapes (8 of them),
// float32, 1 thread, fastest of 11 runs each, summed, in ms, batch 1 / batch 8 (a 2-core
// VM shared with other builds: +-30%):
//   eager conv2d + batch_norm + relu (NCHW):               51 / 393
//   BN folded, conv2d + relu_ (NCHW):                      50 / 340
//   BN folded, conv2d + relu_ (channels-last):             31 / 255
//   at::mkldnn_convolution, channels-last, relu_:          25 / 259
//   oneDNN blocked tensors (to_mkldnn), reordered weights: 29 / 296 (plus to_dense at the end)
//   prepacked conv2d_run, NCHW input:                      40 / 365
//   prepacked conv2d_run, channels-last, fused ReLU:       25 / 245  <- the default
// The prepacked channels-last path is the fastest and keeps ordinary (strided) tensors
// between layers, so residual adds, pooling and the rest of a model work on its output;
// the folded channels-last conv2d is the fallback. Measured again as built here (1x1
// weights with channels-last strides, runs alternating with eager): 2.5x eager at batch
// 1 (22 vs 54 ms), 1.9x at batch 8 (283 vs 551 ms), outputs within 5e-5.
PreparedKernel prepacked_conv_bn_act(const ConvBnActParams& params) {
    auto [weight, bias] = fold_batch_norm(params);
    const auto stride = expand2(params.stride, 1, "stride");
    const auto padding = expand2(params.padding, 0, "padding");
    const auto dilation = expand2(params.dilation, 1, "dilation");
    struct State {
        torch::Tensor weight, bias;
        std::vector<int64_t> stride, padding, dilation;
        int64_t groups;
        std::string attr;
        std::mutex mutex;
        std::map<std::vector<int64_t>, c10::IValue> contexts;  // by input shape

        c10::IValue context_for(c10::IntArrayRef sizes) {
            const std::lock_guard lock(mutex);
            std::vector<int64_t> key = sizes.vec();
            if (const auto it = contexts.find(key); it != contexts.end()) return it->second;
            torch::jit::Stack stack{weight, bias, stride, padding, dilation, groups, key, attr};
            prepacked_ops()->prepack.callBoxed(&stack);
            if (contexts.size() >= 16) contexts.clear();  // a model sees few shapes
            return contexts.emplace(std::move(key), std::move(stack.at(0))).first->second;
        }
    };
    auto state = std::make_shared<State>();
    state->weight = channels_last_weight(weight);
    state->bias = bias;
    state->stride = stride;
    state->padding = padding;
    state->dilation = dilation;
    state->groups = params.groups;
    state->attr = params.relu ? "relu" : "none";
    return [state](const torch::Tensor& input) {
        const torch::Tensor x = input.contiguous(at::MemoryFormat::ChannelsLast);
        torch::jit::Stack stack{x, state->context_for(x.sizes())};
        prepacked_ops()->run.callBoxed(&stack);
        return stack.at(0).toTensor();
    };
}

/// The fallback: BN folded into the weights, conv2d on channels-last tensors (oneDNN on
/// the CPU, cuDNN on CUDA), ReLU in place.
PreparedKernel folded_conv_bn_act(const ConvBnActParams& params) {
    auto [weight, bias] = fold_batch_norm(params);
    const bool two_d = weight.dim() == 4;
    const auto format = two_d ? at::MemoryFormat::ChannelsLast : at::MemoryFormat::Contiguous;
    weight = two_d ? channels_last_weight(weight) : weight.contiguous();
    const std::vector<int64_t> stride = params.stride.empty() ? std::vector<int64_t>{1} : params.stride;
    const std::vector<int64_t> padding = params.padding.empty() ? std::vector<int64_t>{0} : params.padding;
    const std::vector<int64_t> dilation = params.dilation.empty() ? std::vector<int64_t>{1} : params.dilation;
    const int64_t groups = params.groups;
    const bool relu = params.relu;
    return [=](const torch::Tensor& input) {
        torch::Tensor y =
            at::convolution(input.contiguous(format), weight, bias, stride, padding, dilation, false, {0}, groups);
        if (relu) y.relu_();
        return y;
    };
}

}  // namespace

bool prepacked_runs_bfloat16() {
    // oneDNN refuses to make the primitive on an AVX2-only CPU ("could not create a
    // primitive descriptor", seen on an AMD EPYC): tried on a 1x1 convolution of a 2x2
    // image.
    static const bool runs = [] {
        if (!prepacked_ops()) return false;
        try {
            const auto options = torch::TensorOptions().dtype(torch::kBFloat16);
            ConvBnActParams p;
            p.conv_weight = torch::ones({1, 1, 1, 1}, options);
            p.bn_weight = torch::ones({1}, options);
            p.bn_bias = torch::zeros({1}, options);
            p.bn_mean = torch::zeros({1}, options);
            p.bn_var = torch::ones({1}, options);
            const torch::NoGradGuard no_grad;
            prepacked_conv_bn_act(p)(torch::ones({1, 1, 2, 2}, options));
            return true;
        } catch (const std::exception&) {
            return false;
        }
    }();
    return runs;
}

bool prepacked_applies(const ConvBnActParams& params) {
    const auto& w = params.conv_weight;
    if (!prepacked_ops().has_value() || !w.defined() || w.dim() != 4 || !w.device().is_cpu()) return false;
    // In bfloat16 only where oneDNN runs it: elsewhere the folded convolution takes it.
    return w.scalar_type() == torch::kFloat || (w.scalar_type() == torch::kBFloat16 && prepacked_runs_bfloat16());
}

KernelRegistry KernelRegistry::with_defaults() {
    KernelRegistry registry;
    registry.set_conv_bn_act("folded_conv_nhwc", folded_conv_bn_act);
    if (prepacked_ops()) registry.set_conv_bn_act("onednn_prepacked_nhwc", prepacked_conv_bn_act, prepacked_applies);
    return registry;
}

void KernelRegistry::set_conv_bn_act(std::string name, ConvBnActFactory factory, ConvBnActApplies applies) {
    if (!factory) throw std::invalid_argument("set_conv_bn_act: empty factory for '" + name + "'");
    if (!applies) conv_bn_act_.clear();
    conv_bn_act_.push_back({std::move(name), std::move(factory), std::move(applies)});
}

PreparedKernel KernelRegistry::prepare_conv_bn_act(const ConvBnActParams& params) const {
    if (conv_bn_act_.empty())
        throw std::logic_error("no conv_bn_act kernel is registered (use KernelRegistry::with_defaults)");
    for (auto it = conv_bn_act_.rbegin(); it != conv_bn_act_.rend(); ++it) {
        if (it->applies && !it->applies(params)) continue;
        if (std::find(conv_bn_act_used_.begin(), conv_bn_act_used_.end(), it->name) == conv_bn_act_used_.end())
            conv_bn_act_used_.push_back(it->name);
        const torch::NoGradGuard no_grad;
        return it->factory(params);
    }
    throw std::logic_error("no registered conv_bn_act kernel applies to a " + std::to_string(params.conv_weight.dim()) +
                           "-d " + std::string(c10::toString(params.conv_weight.scalar_type())) + " convolution on " +
                           params.conv_weight.device().str());
}

std::vector<std::string> KernelRegistry::describe() const {
    std::vector<std::string> out;
    if (!conv_bn_act_used_.empty()) out.push_back("conv_bn_act=" + join(conv_bn_act_used_, "+"));
    return out;
}

// ---------------------------------------------------------------------------------
// The model benchmark

int64_t count_parameters(const torch::nn::Module& module) {
    // Each tensor once: tied weights (an LM head sharing the embedding) count once.
    std::unordered_set<const void*> seen;
    int64_t count = 0;
    for (const auto& parameter : module.parameters(/*recurse=*/true)) {
        if (seen.insert(parameter.unsafeGetTensorImpl()).second) count += parameter.numel();
    }
    return count;
}

int64_t record_parameters(Context& ctx, const torch::nn::Module& module, const std::string& model, int64_t expected) {
    const int64_t parameters = count_parameters(module);
    ctx.record_scalar("parameters", static_cast<double>(parameters), "count");
    if (expected > 0 && parameters != expected)
        throw std::runtime_error(model + " has " + std::to_string(parameters) + " parameters, its architecture has " +
                                 std::to_string(expected) + ": the definition is wrong");
    return parameters;
}

namespace {

/// Moves the module to `device` and its floating-point parameters and buffers to
/// `dtype` (integer buffers, such as position ids, keep theirs), in eval mode, with
/// requires_grad off.
void prepare_module(torch::nn::Module& module, const torch::Device& device, torch::ScalarType dtype) {
    const torch::NoGradGuard no_grad;
    module.to(device);
    for (auto& parameter : module.parameters(true)) {
        if (parameter.is_floating_point() && parameter.scalar_type() != dtype) parameter.set_data(parameter.to(dtype));
        parameter.set_requires_grad(false);
    }
    for (auto& buffer : module.buffers(true)) {
        if (buffer.is_floating_point() && buffer.scalar_type() != dtype) buffer.set_data(buffer.to(dtype));
    }
    module.eval();
}

/// The AOTInductor compile's options for this scenario: its mode and --compile-timeout,
/// and the dtype's tolerance for the Python model against the C++ one.
AotCompileOptions aot_options(const ScenarioConfig& config, torch::ScalarType dtype) {
    AotCompileOptions options;
    options.mode = config.compile_mode;
    options.timeout_s = config.compile_timeout_s;
    const Tolerance tolerance = tolerance_for(dtype);
    options.atol = tolerance.absolute;
    options.rtol = tolerance.relative;
    return options;
}

/// Serving (--load): the variant serves queries of one input each with dynamic batching
/// (Context::serve_batches): a batch of n queries is one forward pass over n inputs,
/// query i taking input i mod N of a seeded batch of N = --max-batch. The compiled
/// variant has a graph traced, or a package compiled (from the cache where it is there),
/// per batch size, 1 to N (either keeps the sizes it was made for), each checked against
/// eager; every size's first call (kernels packed per shape, the graph executor's own
/// optimizations) comes before the load.
void serve_model(Context& ctx, ModelBenchmark& spec, const PythonModel& python, const Forward& run,
                 const torch::Device& device, torch::ScalarType dtype) {
    const ScenarioConfig& config = ctx.config();
    const int64_t max_batch = std::max(config.load.max_batch, 1);
    const torch::Tensor inputs = spec.make_input(max_batch, device, dtype);
    std::vector<Forward> by_size(static_cast<std::size_t>(max_batch) + 1, run);
    const bool packages = config.variant == Variant::compiled && !is_torchscript_mode(config.compile_mode);
    if (config.variant == Variant::compiled) {
        double compile_ms = 0;
        int64_t from_cache = 0;
        const Forward& eager = spec.forward;
        for (int64_t n = 1; n <= max_batch; ++n) {
            const torch::Tensor input = inputs.narrow(0, 0, n);
            Forward& sized = by_size[static_cast<std::size_t>(n)];
            if (packages) {
                AotModel model = compile_package(ctx, *spec.module, python, {input}, eager(input), dtype);
                compile_ms += model.compile_time_ms;
                from_cache += model.cache_hit ? 1 : 0;
                auto shared = std::make_shared<AotModel>(std::move(model));
                sized = [shared](const torch::Tensor& x) { return (*shared)({x}).at(0); };
            } else {
                CompiledModel compiled =
                    compile_traced([&eager](const std::vector<torch::Tensor>& in) { return eager(in.at(0)); }, {input},
                                   config.compile_mode);
                compile_ms += compiled.compile_time_ms;
                auto module = std::make_shared<torch::jit::Module>(std::move(compiled.module));
                sized = [module](const torch::Tensor& x) { return module->forward({x}).toTensor(); };
            }
            check_against_reference(ctx, eager(input), sized(input), dtype);
        }
        ctx.record_scalar("serving_compile_time", compile_ms, "ms");
        if (packages)
            ctx.set_info("serving_compile_cache",
                         std::to_string(from_cache) + " of " + std::to_string(max_batch) + " packages from the cache");
    }
    for (int64_t n = 1; n <= max_batch; ++n) {
        do_not_optimize(by_size[static_cast<std::size_t>(n)](inputs.narrow(0, 0, n)));
        synchronize(device);
    }
    ctx.set_info(
        "serving",
        "dynamic batching: a batch of n queries is one forward pass over n inputs (query i: input "
        "i mod " +
            std::to_string(max_batch) + " of a seeded batch)" +
            (config.variant == Variant::compiled ? std::string(packages ? "; a package compiled" : "; a graph traced") +
                                                       " per batch size, 1 to " + std::to_string(max_batch)
                                                 : ""));
    const auto index = torch::TensorOptions().dtype(torch::kInt64).device(device);
    ctx.serve_batches([&](QueryBatch batch) {
        std::vector<int64_t> rows;
        rows.reserve(batch.size());
        for (const Query* query : batch) rows.push_back(query->index() % max_batch);
        const torch::Tensor out = by_size[batch.size()](inputs.index_select(0, torch::tensor(rows, index)));
        synchronize(device);
        do_not_optimize(out);
    });
}

/// The package of `options.mode`, from the cache or compiled; skips where the compile
/// cannot run here, the package's notes warnings.
AotModel package_for(Context& ctx, const torch::nn::Module& module, const PythonModel& python,
                     const std::vector<torch::Tensor>& inputs, const torch::Tensor& reference,
                     const AotCompileOptions& options) {
    AotModel model;
    try {
        model = aot_compile(module, python, inputs, reference, options);
    } catch (const AotUnavailable& e) {
        ctx.skip(e.what());
    }
    for (const std::string& note : model.notes) ctx.add_warning(note);
    return model;
}

/// The compiled variant in an AOTInductor mode: the package from the cache, or compiled
/// in a child process, its costs recorded (record_packages). reduce-overhead is the
/// default mode's package captured as a CUDA graph and replayed (cuda_graphed), as
/// torch.compile's reduce-overhead wraps Inductor's code.
Forward aot_compiled(Context& ctx, const ModelBenchmark& spec, const PythonModel& python, const torch::Tensor& input,
                     const torch::Tensor& reference, torch::ScalarType dtype) {
    const bool graphs = ctx.config().compile_mode == "reduce-overhead";
    if (graphs && !input.is_cuda())
        ctx.skip("compile mode reduce-overhead is CUDA graphs, which the CPU has no equivalent of");
    AotCompileOptions options = aot_options(ctx.config(), dtype);
    if (graphs) options.mode = "default";
    auto shared = std::make_shared<AotModel>(package_for(ctx, *spec.module, python, {input}, reference, options));
    record_packages(ctx, {shared.get()});
    Forward package = [shared](const torch::Tensor& x) { return (*shared)({x}).at(0); };
    if (!graphs) return package;
    const auto start = Clock::now();
    Forward replay = cuda_graphed(package, input);
    ctx.record_scalar("graph_capture_time", elapsed_ms(start), "ms");
    ctx.set_info("variant_passes", "torch.export,aot_inductor(default,freezing),cuda_graph");
    return replay;
}

}  // namespace

AotModel compile_package(Context& ctx, const torch::nn::Module& module, const PythonModel& python,
                         const std::vector<torch::Tensor>& inputs, const torch::Tensor& reference,
                         torch::ScalarType dtype) {
    const ScenarioConfig& config = ctx.config();
    // A plugin that calls its packages itself (gpt2's prefill and decode steps) skips
    // torch.compile's modes as run_model_benchmark does, rather than failing on them.
    skip_torch_compile_mode(ctx, python.name, config.compile_mode);
    if (config.compile_mode == "reduce-overhead")
        ctx.skip(reference.is_cuda()
                     ? "compile mode reduce-overhead (CUDA graphs around the AOTInductor package) is built for the "
                       "latency of run_model_benchmark's models, not for serving nor for a plugin that calls its "
                       "packages itself"
                     : "compile mode reduce-overhead is CUDA graphs, which the CPU has no equivalent of");
    return package_for(ctx, module, python, inputs, reference, aot_options(config, dtype));
}

void record_packages(Context& ctx, const std::vector<const AotModel*>& packages) {
    double compile_ms = 0, export_ms = 0, load_ms = 0;
    bool compiled = false;
    std::string cache;
    for (const AotModel* model : packages) {
        if (!model->cache_hit) {
            compiled = true;
            compile_ms += model->compile_time_ms;
            export_ms += model->export_time_ms;
        }
        load_ms += model->load_time_ms;
        cache += (cache.empty() ? "" : "; ") + std::string(model->cache_hit ? "hit" : "miss") + ": " +
                 model->package.string();
    }
    if (compiled) {
        ctx.record_scalar("compile_time", compile_ms, "ms");
        ctx.record_scalar("export_time", export_ms, "ms");
    }
    ctx.record_scalar("package_load_time", load_ms, "ms");
    ctx.set_info("compile_cache", cache);
    ctx.set_info("variant_passes", "torch.export,aot_inductor(" + ctx.config().compile_mode + ",freezing)");
    // As benchhost.torch says it of its packages.
    ctx.set_info("compiler", "torch.export + AOTInductor package (mode '" + ctx.config().compile_mode + "') " +
                                 TORCH_VERSION + ", Inductor freezing on, loaded by AOTIModelPackageLoader");
}

void run_model_benchmark(Context& ctx, ModelBenchmark& spec) { run_model_benchmark(ctx, spec, PythonModel{}); }

void run_model_benchmark(Context& ctx, ModelBenchmark& spec, const PythonModel& python) {
    if (!spec.module || !spec.forward || !spec.make_input)
        throw std::invalid_argument("run_model_benchmark: '" + spec.model + "' needs module, forward and make_input");
    const ScenarioConfig& config = ctx.config();
    ctx.set_info("model", spec.model);
    ctx.set_info("framework", "libtorch");
    ctx.set_info("torch_version", TORCH_VERSION);
    const Variant variant = config.variant;
    if (variant == Variant::kernelized && !spec.kernelize) ctx.skip(spec.model + " has no kernelized implementation");
    const std::string& mode = config.compile_mode;
    const bool torchscript = is_torchscript_mode(mode);
    if (variant == Variant::compiled && !torchscript) {  // a bad mode fails, a mode it cannot do skips, early
        if (!is_aot_inductor_mode(mode) && mode != "reduce-overhead") {
            skip_torch_compile_mode(ctx, spec.model, mode);
            throw std::invalid_argument("unknown compile mode '" + mode + "': one of " + known_compile_modes());
        }
        if (python.source.empty())
            ctx.skip(spec.model +
                     " has no Python definition for the AOTInductor compile (--compile-modes torchscript "
                     "compiles it with TorchScript)");
    }
    if (config.batch_size < 1) throw std::invalid_argument("batch_size must be >= 1");

    const ThreadScope threads(ctx);
    const torch::Device device = select_device(ctx);
    retain_freed_memory(ctx);
    const torch::ScalarType dtype = select_dtype(ctx, device);

    const int64_t batch = config.batch_size;
    // In another dtype, the model's float32 output on the same input first, while the
    // model is still in float32: what that dtype's output is compared with (below).
    torch::Tensor float32_output;
    if (dtype != torch::kFloat) {
        prepare_module(*spec.module, device, torch::kFloat);
        const c10::InferenceMode inference;
        float32_output = spec.forward(spec.make_input(batch, device, torch::kFloat));
    }
    prepare_module(*spec.module, device, dtype);
    record_parameters(ctx, *spec.module, spec.model, spec.expected_parameters);

    // Inference only. The tracer works under InferenceMode too (checked), so all of the
    // scenario runs under it: no autograd bookkeeping, no version counters.
    const c10::InferenceMode inference;
    const torch::Tensor input = spec.make_input(batch, device, dtype);

    // The eager output on this input: the reference, and for eager the cold start.
    auto start = Clock::now();
    const torch::Tensor reference = spec.forward(input);
    synchronize(device);
    const double eager_first_ms = elapsed_ms(start);

    Forward run;
    std::shared_ptr<torch::jit::Graph> traced;
    switch (variant) {
        case Variant::eager:
            run = spec.forward;
            break;
        case Variant::compiled: {
            if (!torchscript) {
                run = aot_compiled(ctx, spec, python, input, reference, dtype);
                break;
            }
            const Forward& eager = spec.forward;
            CompiledModel compiled =
                compile_traced([&eager](const std::vector<torch::Tensor>& in) { return eager(in.at(0)); }, {input},
                               config.compile_mode);
            ctx.record_scalar("compile_time", compiled.compile_time_ms, "ms");
            ctx.set_info("variant_passes", join(compiled.passes, ","));
            traced = compiled.traced_graph;
            auto module = std::make_shared<torch::jit::Module>(std::move(compiled.module));
            run = [module](const torch::Tensor& x) { return module->forward({x}).toTensor(); };
            break;
        }
        case Variant::kernelized: {
            const KernelRegistry kernels = KernelRegistry::with_defaults();
            start = Clock::now();
            run = spec.kernelize(kernels);
            if (!run) ctx.skip(spec.model + " has no kernelized implementation");
            synchronize(device);  // folding and packing weights on a GPU is device work
            ctx.record_scalar("kernelize_time", elapsed_ms(start), "ms");
            // Only what the model prepared through this registry; a plugin that uses its
            // own copy or kernels of its own records them itself.
            if (const auto used = kernels.describe(); !used.empty()) ctx.set_info("kernels", join(used, ","));
            break;
        }
    }

    // Cold start: the first call of what is measured (for compiled, the graph
    // executor's first run, which does its own optimizations).
    double first_call_ms = eager_first_ms;
    torch::Tensor output;
    if (variant != Variant::eager) {
        start = Clock::now();
        output = run(input);
        synchronize(device);
        first_call_ms = elapsed_ms(start);
        check_against_reference(ctx, reference, output, dtype);
    } else {
        output = run(input);  // a second call, so that float32 is compared with itself below
    }
    ctx.record_scalar("first_call", first_call_ms, "ms");
    // How far this output is from float32's on the same input (float32: from eager's).
    record_difference_from_float32(ctx, dtype == torch::kFloat ? reference : float32_output, output, dtype);
    output = torch::Tensor();  // not kept while timing

    if (config.load.mode != LoadMode::none) {
        restart_memory_peaks(ctx, device);
        serve_model(ctx, spec, python, run, device, dtype);
        record_memory(ctx, device);
        return;
    }
    flush_memory(device);
    const Series latency = measure_synchronized(ctx, "latency", device, [&] {
        const torch::Tensor out = run(input);
        do_not_optimize(out);
    });
    ctx.record_throughput("throughput", latency, static_cast<double>(batch), spec.throughput_unit);
    record_memory(ctx, device);  // the timed samples' peaks, before the tracing below

    // Work: counted on the eager forward's traced graph (the compiled variant has it
    // already); not part of any measured time.
    try {
        if (!traced) {
            const Forward& eager = spec.forward;
            traced = trace_graph([&eager](const std::vector<torch::Tensor>& in) { return eager(in.at(0)); }, {input});
        }
        const double peak = calibrated_peak_gflops(dtype, device);
        record_work(ctx, count_flops(*traced), latency, peak);
    } catch (const std::exception& e) {
        ctx.log().warn("{}: FLOPs not counted: {}", spec.model, e.what());
    }

    // --profile: one forward pass of the variant, profiled apart from everything measured.
    profile(
        ctx, "forward",
        [&run, &input, &device] {
            const torch::Tensor out = run(input);
            synchronize(device);
            do_not_optimize(out);
        },
        module_parameters(*spec.module));
}

}  // namespace bench::libtorch
