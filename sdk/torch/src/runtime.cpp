// The LibTorch layer's runtime: device, dtype and thread selection, memory, accuracy
// checks and work accounting (FLOP counting, the calibrated GEMM peak). The variants
// (compile, kernels, the model benchmark flow) are in variants.cpp.
#include <bench/torch/accuracy.hpp>
#include <bench/torch/device.hpp>
#include <bench/torch/flops.hpp>

#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <ATen/Context.h>
#include <ATen/Parallel.h>
#include <torch/csrc/jit/ir/constants.h>
#include <torch/csrc/jit/ir/ir.h>
#include <torch/cuda.h>
#include <torch/version.h>

#include <bench/internal/environment/calibration_cache.hpp>
#include <bench/internal/environment/worker_allocator.hpp>
#include <bench/statistics.hpp>

// The CUDA caching allocator lives in libc10_cuda, which a CPU-only LibTorch does not
// have; CMake defines BENCH_TORCH_WITH_CUDA when it links it.
#if defined(BENCH_TORCH_WITH_CUDA)
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAGuard.h>
#endif

namespace bench::libtorch {

namespace {

/// The first line of a LibTorch error, without its C++ backtrace.
std::string short_reason(const c10::Error& e) {
    std::string text = e.what_without_backtrace();
    if (const auto nl = text.find('\n'); nl != std::string::npos) text.resize(nl);
    return text;
}

std::string format_sizes(c10::IntArrayRef sizes) {
    std::string out = "[";
    for (std::size_t i = 0; i < sizes.size(); ++i) out += (i ? ", " : "") + std::to_string(sizes[i]);
    return out + "]";
}

std::string format_double(double value, int precision = 6) {
    std::ostringstream out;
    out.precision(precision);
    out << value;
    return out.str();
}

/// Whether float32 convolutions (cuDNN) or matrix products (cuBLAS) may round their
/// inputs to TF32 on CUDA. PyTorch 2.9 replaced the allow_tf32 flags by per-backend,
/// per-operator precisions (strings in 2.9, enums since 2.10) and deprecated the old
/// getters, which also fail when the two APIs were mixed; the old ones are asked only
/// before 2.9.
bool tf32_allowed(bool convolutions) {
    const at::Context& context = at::globalContext();
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 10)
    return context.float32Precision(at::Float32Backend::CUDA,
                                    convolutions ? at::Float32Op::CONV : at::Float32Op::MATMUL) ==
           at::Float32Precision::TF32;
#elif TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR == 9
    return context.float32Precision("cuda", convolutions ? "conv" : "matmul") == "tf32";
#else
    return convolutions ? context.allowTF32CuDNN() : context.allowTF32CuBLAS();
#endif
}

/// Lets float32 convolutions and matrix products on CUDA round to TF32, or not, through
/// the API of this LibTorch (see tf32_allowed).
void set_tf32(bool on) {
    at::Context& context = at::globalContext();
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 10)
    const at::Float32Precision precision = on ? at::Float32Precision::TF32 : at::Float32Precision::IEEE;
    context.setFloat32Precision(at::Float32Backend::CUDA, at::Float32Op::MATMUL, precision);
    context.setFloat32Precision(at::Float32Backend::CUDA, at::Float32Op::CONV, precision);
#elif TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR == 9
    context.setFloat32Precision("cuda", "matmul", on ? "tf32" : "ieee");
    context.setFloat32Precision("cuda", "conv", on ? "tf32" : "ieee");
#else
    context.setAllowTF32CuBLAS(on);
    context.setAllowTF32CuDNN(on);
#endif
}

std::string on_off(bool on) { return on ? "on" : "off"; }

/// PyTorch's float32 matrix-product precision (torch.set_float32_matmul_precision) as
/// text: highest (float32 throughout), high (TF32 on CUDA), medium (also bfloat16, on
/// oneDNN's CPU kernels too).
std::string matmul_precision_text(at::Float32MatmulPrecision precision) {
    switch (precision) {
        case at::Float32MatmulPrecision::HIGHEST:
            return "highest";
        case at::Float32MatmulPrecision::HIGH:
            return "high";
        case at::Float32MatmulPrecision::MEDIUM:
            return "medium";
    }
    return "unknown";
}

/// The backend settings a scenario may choose (--param deterministic, matmul_precision,
/// cudnn_benchmark, tf32), applied to the process (a worker runs one scenario) and
/// recorded as info, set or not: they change what a model runs and how fast.
void apply_backend_settings(Context& ctx, const torch::Device& device) {
    at::Context& context = at::globalContext();
    const Params& params = ctx.params();
    if (params.contains("deterministic")) context.setDeterministicAlgorithms(params.get_bool("deterministic"), false);
    ctx.set_info("deterministic_algorithms", on_off(context.deterministicAlgorithms()));
    // Before tf32, which then decides for CUDA's convolutions and matrix products alone.
    if (params.contains("matmul_precision")) {
        const std::string precision = params.get_string("matmul_precision");
        if (precision != "highest" && precision != "high" && precision != "medium")
            throw std::invalid_argument("--param matmul_precision must be highest, high or medium, got '" + precision +
                                        "'");
        context.setFloat32MatmulPrecision(precision);
    }
    ctx.set_info("matmul_precision", matmul_precision_text(context.float32MatmulPrecision()));
    if (!device.is_cuda()) {
        for (const char* cuda_only : {"cudnn_benchmark", "tf32"})
            if (params.contains(cuda_only))
                ctx.add_warning(std::string("--param ") + cuda_only + " applies to CUDA devices: not used on " +
                                device.str());
        return;
    }
    if (params.contains("cudnn_benchmark")) context.setBenchmarkCuDNN(params.get_bool("cudnn_benchmark"));
    if (params.contains("tf32")) set_tf32(params.get_bool("tf32"));
    // cuDNN's benchmark mode times several algorithms for each new input shape and keeps
    // the fastest: the first calls of a shape are slower, and the choice may differ
    // between runs. Whether float32 may round to TF32 changes both speed and accuracy.
    ctx.set_info("cudnn_benchmark", on_off(context.benchmarkCuDNN()));
    ctx.set_info("tf32", "cudnn " + on_off(tf32_allowed(true)) + ", cublas " + on_off(tf32_allowed(false)));
}

}  // namespace

// ---------------------------------------------------------------------------------
// Device, dtype, threads

torch::Device select_device(Context& ctx) {
    const std::string& wanted = ctx.config().device;
    const bool cuda_available = torch::cuda::is_available();
    std::optional<torch::Device> device;
    if (wanted.empty() || wanted == "auto") {
        device = cuda_available ? torch::Device(torch::kCUDA, 0) : torch::Device(torch::kCPU);
    } else {
        try {
            device = torch::Device(wanted);
        } catch (const c10::Error& e) {
            throw std::invalid_argument("device '" + wanted +
                                        "' is not a device (auto, cpu, cuda, cuda:N): " + short_reason(e));
        }
    }
    if (device->is_cuda()) {
        if (!at::hasCUDA()) ctx.skip(wanted + " requested, but this LibTorch build has no CUDA");
        if (!cuda_available) ctx.skip(wanted + " requested, but no CUDA device is available");
        const auto count = static_cast<int64_t>(torch::cuda::device_count());
        const int64_t index = device->has_index() ? device->index() : 0;
        if (index >= count)
            ctx.skip(wanted + " requested, but this machine has " + std::to_string(count) + " CUDA device(s)");
        device = torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(index));
    } else if (!device->is_cpu()) {
        ctx.skip("device '" + wanted + "' is not supported by benchhost's LibTorch layer (cpu and cuda are)");
    }
    apply_backend_settings(ctx, *device);
    ctx.set_info("device", device->str());
    return *device;
}

std::string dtype_name(torch::ScalarType dtype) {
    switch (dtype) {
        case torch::kFloat:
            return "float32";
        case torch::kDouble:
            return "float64";
        case torch::kHalf:
            return "float16";
        case torch::kBFloat16:
            return "bfloat16";
        case torch::kInt8:
            return "int8";
        case torch::kUInt8:
            return "uint8";
        case torch::kInt16:
            return "int16";
        case torch::kInt32:
            return "int32";
        case torch::kInt64:
            return "int64";
        case torch::kBool:
            return "bool";
        default:
            return c10::toString(dtype);
    }
}

namespace {

std::optional<torch::ScalarType> parse_dtype(const std::string& text) {
    static const std::map<std::string, torch::ScalarType> names = {
        {"float32", torch::kFloat},     {"float", torch::kFloat},   {"fp32", torch::kFloat},
        {"float64", torch::kDouble},    {"double", torch::kDouble}, {"fp64", torch::kDouble},
        {"float16", torch::kHalf},      {"half", torch::kHalf},     {"fp16", torch::kHalf},
        {"bfloat16", torch::kBFloat16}, {"bf16", torch::kBFloat16}};
    const auto it = names.find(text);
    if (it == names.end()) return std::nullopt;
    return it->second;
}

/// Runs a small matmul, conv2d and layer norm in `dtype` on `device`: empty when all
/// ran, else the library's reason. Once per process for each (device, dtype).
std::string probe_dtype(const torch::Device& device, torch::ScalarType dtype) {
    static std::mutex mutex;
    static std::map<std::pair<std::string, int>, std::string> cache;
    const std::lock_guard lock(mutex);
    const auto key = std::make_pair(device.str(), static_cast<int>(dtype));
    if (const auto it = cache.find(key); it != cache.end()) return it->second;
    std::string reason;
    try {
        const torch::NoGradGuard no_grad;
        const auto options = torch::TensorOptions().device(device).dtype(dtype);
        const auto a = torch::ones({4, 8}, options);
        const auto b = torch::ones({8, 4}, options);
        (void)torch::matmul(a, b);
        (void)torch::conv2d(torch::ones({1, 2, 5, 5}, options), torch::ones({3, 2, 3, 3}, options));
        (void)torch::layer_norm(a, {8});
        synchronize(device);
    } catch (const c10::Error& e) {
        reason = short_reason(e);
        if (reason.empty()) reason = "unknown error";
    }
    cache.emplace(key, reason);
    return reason;
}

}  // namespace

torch::ScalarType select_dtype(Context& ctx, const torch::Device& device) {
    const std::string& wanted = ctx.config().dtype;
    const auto dtype = parse_dtype(wanted.empty() ? "float32" : wanted);
    if (!dtype) throw std::invalid_argument("dtype '" + wanted + "' is not one of float32, bfloat16, float16, float64");
    if (const std::string reason = probe_dtype(device, *dtype); !reason.empty())
        ctx.skip(dtype_name(*dtype) + " does not run on " + device.str() + " with this LibTorch build: " + reason);
    ctx.set_info("dtype", dtype_name(*dtype));
    return *dtype;
}

ThreadScope::ThreadScope(Context& ctx) : previous_(at::get_num_threads()) {
    const int wanted = ctx.config().threads;
    if (wanted < 0)
        throw std::invalid_argument("threads must be >= 0 (0 keeps the default), got " + std::to_string(wanted));
    if (wanted > 0 && wanted != previous_) at::set_num_threads(wanted);
    ctx.set_info("threads", std::to_string(at::get_num_threads()));
}

ThreadScope::~ThreadScope() {
    if (at::get_num_threads() != previous_) at::set_num_threads(previous_);
}

void synchronize(const torch::Device& device) {
    // torch::cuda::synchronize exists in every build; without CUDA it would throw, but
    // a CUDA device cannot be selected then.
    if (device.is_cuda()) torch::cuda::synchronize(device.has_index() ? device.index() : -1);
}

void flush_memory(const torch::Device& device) {
    if (device.is_cuda()) {
#if defined(BENCH_TORCH_WITH_CUDA)
        synchronize(device);
        c10::cuda::CUDACachingAllocator::emptyCache();
#endif
        return;
    }
    // glibc keeps freed heap memory for reuse; give back what it can.
    malloc_trim(0);
}

void retain_freed_memory(Context& ctx) {
    const std::string marker(kept_memory_marker);
    if (const char* by_host = std::getenv(marker.c_str()); by_host != nullptr && by_host == kept_memory_marker_value) {
        ctx.set_info("malloc",
                     "glibc, freed memory kept (MALLOC_MMAP_THRESHOLD_ and MALLOC_TRIM_THRESHOLD_ 4 GiB, "
                     "set by benchhost for its workers)");
        return;
    }
    for (const std::string_view variable : user_allocator_variables) {
        const std::string name(variable);
        if (std::getenv(name.c_str()) != nullptr) {
            ctx.set_info("malloc", "as the environment sets it (" + name + ")");
            return;
        }
    }
    constexpr int trim_threshold = 1 << 30;  // give back only what exceeds 1 GiB free at the top
    constexpr int mmap_threshold = 32 << 20;  // glibc's largest: heap, not fresh pages, up to 32 MiB
    const bool trim_set = mallopt(M_TRIM_THRESHOLD, trim_threshold) == 1;
    const bool mmap_set = mallopt(M_MMAP_THRESHOLD, mmap_threshold) == 1;
    ctx.set_info("malloc", trim_set && mmap_set
                               ? "glibc, freed memory kept (M_TRIM_THRESHOLD 1 GiB, M_MMAP_THRESHOLD 32 MiB)"
                               : "glibc defaults (mallopt refused the thresholds)");
}

#if defined(BENCH_TORCH_WITH_CUDA)
namespace {

/// The caching allocator's peaks on `device` as scalars `prefix` + "max_memory_allocated"
/// and "max_memory_reserved" (MiB); returns the device's index.
c10::DeviceIndex record_allocator_peaks(Context& ctx, const torch::Device& device, const std::string& prefix) {
    const c10::DeviceIndex index = device.has_index() ? device.index() : 0;
    const auto stats = c10::cuda::CUDACachingAllocator::getDeviceStats(index);
    // StatType::AGGREGATE, the first entry of each StatArray in every release; the
    // enum itself has moved namespace (c10::cuda::CUDACachingAllocator in 1.13,
    // c10::CachingDeviceAllocator, then c10::CachingAllocator), so it is not named.
    constexpr std::size_t aggregate = 0;
    constexpr double mib = 1024.0 * 1024.0;
    ctx.record_scalar(prefix + "max_memory_allocated", static_cast<double>(stats.allocated_bytes[aggregate].peak) / mib,
                      "MiB");
    ctx.record_scalar(prefix + "max_memory_reserved", static_cast<double>(stats.reserved_bytes[aggregate].peak) / mib,
                      "MiB");
    return index;
}

}  // namespace
#endif

void record_memory(Context& ctx, const torch::Device& device) {
#if defined(BENCH_TORCH_WITH_CUDA)
    if (device.is_cuda()) record_allocator_peaks(ctx, device, "cuda_");
#else
    // No CUDA in this build: nothing to record; the worker records the process's peak_rss.
    (void)ctx;
    (void)device;
#endif
}

void restart_memory_peaks(Context& ctx, const torch::Device& device) {
#if defined(BENCH_TORCH_WITH_CUDA)
    if (!device.is_cuda() || ctx.result().find_scalar("cuda_setup_max_memory_allocated") != nullptr) return;
    c10::cuda::CUDACachingAllocator::resetPeakStats(record_allocator_peaks(ctx, device, "cuda_setup_"));
#else
    (void)ctx;
    (void)device;
#endif
}

// ---------------------------------------------------------------------------------
// Accuracy

Tolerance tolerance_for(torch::ScalarType dtype) {
    switch (dtype) {
        case torch::kDouble:
            return {1e-8, 1e-7};
        case torch::kFloat:
            return {1e-4, 1e-3};
        // 11-bit mantissa (eps 9.8e-4): a deep network's outputs differ by a few eps
        // between summation orders.
        case torch::kHalf:
            return {1e-2, 1e-2};
        // 8-bit mantissa (eps 7.8e-3): the same, eight times coarser.
        case torch::kBFloat16:
            return {5e-2, 5e-2};
        default:
            return {0, 0};  // integers: exact
    }
}

namespace {

/// Both outputs as dense float64 on the CPU, and |c - r| elementwise, with equal values
/// (infinities included) exactly 0 and NaN where only one side is NaN (both NaN counts
/// as equal).
struct Difference {
    torch::Tensor reference, candidate, diff;
};

Difference difference(const torch::Tensor& reference, const torch::Tensor& candidate) {
    if (!reference.defined() || !candidate.defined())
        throw std::runtime_error("comparing outputs: the " +
                                 std::string(reference.defined() ? "candidate" : "reference") +
                                 " output is an undefined tensor");
    if (reference.sizes() != candidate.sizes())
        throw std::runtime_error("output shape " + format_sizes(candidate.sizes()) + " differs from the reference's " +
                                 format_sizes(reference.sizes()));
    const torch::NoGradGuard no_grad;
    auto to_host = [](const torch::Tensor& t) {
        torch::Tensor dense = t.is_mkldnn() ? t.to_dense() : t;
        return dense.to(torch::kCPU, torch::kDouble).contiguous();
    };
    Difference d{to_host(reference), to_host(candidate), {}};
    d.diff = (d.candidate - d.reference).abs();
    d.diff.masked_fill_(d.candidate.eq(d.reference), 0.0);
    d.diff.masked_fill_(d.candidate.isnan().logical_and(d.reference.isnan()), 0.0);
    d.diff.masked_fill_(d.candidate.isnan().logical_xor(d.reference.isnan()), std::numeric_limits<double>::infinity());
    return d;
}

/// |reference| with NaN as 0, and the largest |c - r| / max(|r|, floor).
torch::Tensor reference_magnitude(const Difference& d) { return d.reference.abs().nan_to_num(0.0, 0.0, 0.0); }

/// The reference's scale: the root mean square of its finite elements (0 when it has
/// none).
double reference_scale(const Difference& d) {
    const torch::Tensor finite = d.reference.masked_select(d.reference.isfinite());
    return finite.numel() ? finite.square().mean().sqrt().item<double>() : 0.0;
}

double max_relative(const Difference& d, double floor) {
    if (d.diff.numel() == 0) return 0.0;
    return (d.diff / reference_magnitude(d).clamp_min(std::max(floor, 1e-300))).max().item<double>();
}

}  // namespace

OutputDifference output_difference(const torch::Tensor& reference, const torch::Tensor& candidate,
                                   double relative_floor) {
    const Difference d = difference(reference, candidate);
    return {d.diff.numel() ? d.diff.max().item<double>() : 0.0, max_relative(d, relative_floor)};
}

void check_against_reference(Context& ctx, const torch::Tensor& reference, const torch::Tensor& candidate,
                             torch::ScalarType dtype) {
    if (reference.defined() && candidate.defined() && reference.sizes() != candidate.sizes())
        throw std::runtime_error("output shape " + format_sizes(candidate.sizes()) + " differs from eager's " +
                                 format_sizes(reference.sizes()));
    const Difference outputs = difference(reference, candidate);
    const torch::Tensor& ref = outputs.reference;
    const torch::Tensor& cand = outputs.candidate;
    // On CUDA, float32 convolutions (cuDNN, PyTorch's default) and matrix products (when
    // allowed) may round their inputs to TF32, float16's 10-bit mantissa: two execution
    // paths of one model then differ as in float16.
    const bool tf32 = dtype == torch::kFloat && (reference.is_cuda() || candidate.is_cuda()) &&
                      (tf32_allowed(true) || tf32_allowed(false));
    const Tolerance tol = tolerance_for(tf32 ? torch::kHalf : dtype);

    // Each element is allowed the relative tolerance of the larger of its own magnitude
    // and the tensor's scale (its RMS): summation-order error grows with the magnitude of
    // the terms summed, and an element that sums to near zero carries the error of its
    // terms, which are of the tensor's scale.
    const torch::Tensor& diff = outputs.diff;
    const double scale = reference_scale(outputs);
    const torch::Tensor allowed = tol.absolute + tol.relative * reference_magnitude(outputs).clamp_min(scale);
    const int64_t n = diff.numel();
    const double max_abs = n ? diff.max().item<double>() : 0.0;
    const double max_rel = max_relative(outputs, tol.absolute);
    ctx.record_scalar("max_abs_diff", max_abs, "abs");
    ctx.record_scalar("max_rel_diff", max_rel, "ratio");

    const torch::Tensor excess = diff - allowed;  // > 0 out of tolerance (inf for NaN)
    const torch::Tensor bad = excess.gt(0);
    const int64_t n_bad = n ? bad.sum().item<int64_t>() : 0;
    if (n_bad == 0) return;

    // The worst element, as a multi-index.
    const int64_t flat = excess.flatten().argmax().item<int64_t>();
    std::vector<int64_t> index(static_cast<std::size_t>(ref.dim()));
    int64_t rest = flat;
    for (int64_t d = ref.dim() - 1; d >= 0; --d) {
        const int64_t size = ref.size(d);
        index[static_cast<std::size_t>(d)] = rest % size;
        rest /= size;
    }
    const double c = cand.flatten()[flat].item<double>();
    const double r = ref.flatten()[flat].item<double>();
    const double d = diff.flatten()[flat].item<double>();
    const double a = allowed.flatten()[flat].item<double>();
    throw std::runtime_error("output differs from eager beyond the " + dtype_name(dtype) + (tf32 ? " (TF32)" : "") +
                             " tolerance (absolute " + format_double(tol.absolute) + " + relative " +
                             format_double(tol.relative) + " * max(|reference|, the reference's RMS " +
                             format_double(scale, 3) + ")) at " + std::to_string(n_bad) + " of " + std::to_string(n) +
                             " elements; worst at index " + format_sizes(index) + ": candidate " + format_double(c, 9) +
                             ", reference " + format_double(r, 9) + ", |difference| " + format_double(d) +
                             " > allowed " + format_double(a) + " (max_abs_diff " + format_double(max_abs) +
                             ", max_rel_diff " + format_double(max_rel) + ")");
}

// ---------------------------------------------------------------------------------
// FLOP counting

namespace {

/// The complete sizes of a value's tensor type, if it has them.
std::optional<std::vector<int64_t>> sizes_of(const torch::jit::Value* value) {
    const auto type = value->type()->cast<c10::TensorType>();
    if (!type) return std::nullopt;
    auto sizes = type->sizes().concrete_sizes();
    if (!sizes) return std::nullopt;
    return std::move(*sizes);
}

double product(const std::vector<int64_t>& sizes, std::size_t from = 0, std::size_t to = std::string::npos) {
    double p = 1;
    to = std::min(to, sizes.size());
    for (std::size_t i = from; i < to; ++i) p *= static_cast<double>(sizes[i]);
    return p;
}

std::optional<bool> constant_bool(const torch::jit::Value* value) {
    const auto iv = torch::jit::toIValue(value);
    if (!iv || !iv->isBool()) return std::nullopt;
    return iv->toBool();
}

/// MACs of one node, nullopt when its kind is counted but shapes are missing, 0 when
/// its kind is not counted.
std::optional<double> node_macs(const torch::jit::Node* node) {
    using c10::Symbol;
    static const Symbol convolution_kinds[] = {Symbol::fromQualString("aten::_convolution"),
                                               Symbol::fromQualString("aten::convolution"),
                                               Symbol::fromQualString("aten::conv1d"),
                                               Symbol::fromQualString("aten::conv2d"),
                                               Symbol::fromQualString("aten::conv3d"),
                                               Symbol::fromQualString("aten::mkldnn_convolution"),
                                               Symbol::fromQualString("prim::mkldnn_convolution"),
                                               Symbol::fromQualString("aten::cudnn_convolution")};
    static const Symbol transposed_kinds[] = {Symbol::fromQualString("aten::conv_transpose1d"),
                                              Symbol::fromQualString("aten::conv_transpose2d"),
                                              Symbol::fromQualString("aten::conv_transpose3d")};
    // Products whose reduced dimension is the last of input `a`.
    static const std::pair<Symbol, std::size_t> product_kinds[] = {
        {Symbol::fromQualString("aten::linear"), 0}, {Symbol::fromQualString("aten::matmul"), 0},
        {Symbol::fromQualString("aten::mm"), 0},     {Symbol::fromQualString("aten::addmm"), 1},
        {Symbol::fromQualString("aten::bmm"), 0},    {Symbol::fromQualString("aten::baddbmm"), 1},
        {Symbol::fromQualString("aten::mv"), 0},     {Symbol::fromQualString("aten::dot"), 0},
        {Symbol::fromQualString("aten::addmv"), 1},  {Symbol::fromQualString("aten::addbmm"), 1}};
    static const Symbol mha = Symbol::fromQualString("aten::_native_multi_head_attention");
    static const Symbol sdpa = Symbol::fromQualString("aten::scaled_dot_product_attention");
    static const Symbol addbmm = Symbol::fromQualString("aten::addbmm");

    const Symbol kind = node->kind();
    const bool is_conv =
        std::find(std::begin(convolution_kinds), std::end(convolution_kinds), kind) != std::end(convolution_kinds);
    const bool is_transposed_conv =
        std::find(std::begin(transposed_kinds), std::end(transposed_kinds), kind) != std::end(transposed_kinds);
    if (is_conv || is_transposed_conv) {
        if (node->inputs().size() < 2 || node->outputs().empty()) return std::nullopt;
        const auto input = sizes_of(node->input(0));
        const auto weight = sizes_of(node->input(1));
        const auto output = sizes_of(node->output(0));
        if (!input || !weight || !output || weight->size() < 3) return std::nullopt;
        bool transposed = is_transposed_conv;
        if (kind == convolution_kinds[0] || kind == convolution_kinds[1]) {  // (_)convolution: flag is input 6
            if (node->inputs().size() < 7) return std::nullopt;
            const auto flag = constant_bool(node->input(6));
            if (!flag) return std::nullopt;
            transposed = *flag;
        }
        const double kernel = product(*weight, 2);
        // weight [Cout, Cin/groups, k...]: each output element reduces Cin/groups * kernel.
        // transposed weight [Cin, Cout/groups, k...]: each input element feeds Cout/groups * kernel.
        if (transposed) return product(*input) * static_cast<double>((*weight)[1]) * kernel;
        return product(*output) * static_cast<double>((*weight)[1]) * kernel;
    }
    for (const auto& [product_kind, a_index] : product_kinds) {
        if (kind != product_kind) continue;
        if (node->inputs().size() < a_index + 2 || node->outputs().empty()) return std::nullopt;
        const auto a = sizes_of(node->input(a_index));
        const auto output = sizes_of(node->output(0));
        if (!a || !output || a->empty()) return std::nullopt;
        double out = product(*output);
        if (kind == addbmm) {  // sums over the batch too: batch * n * m * k
            const auto b = sizes_of(node->input(a_index + 1));
            if (!b || a->size() != 3) return std::nullopt;
            out *= static_cast<double>((*a)[0]);
        }
        return out * static_cast<double>(a->back());
    }
    if (kind == sdpa) {
        // (query [..., Lq, E], key [..., Lk, E], value [..., Lk, Ev], ...): q k^T and the
        // weights times v, in full (a causal mask is counted as an unfused product would
        // be); the batch dimensions broadcast.
        if (node->inputs().size() < 3 || node->outputs().empty()) return std::nullopt;
        const auto q = sizes_of(node->input(0));
        const auto v = sizes_of(node->input(2));
        const auto k = sizes_of(node->input(1));
        const auto output = sizes_of(node->output(0));
        if (!q || !k || !v || !output || q->size() < 2 || k->size() < 2 || v->empty()) return std::nullopt;
        const double rows = product(*output) / static_cast<double>(output->back());  // batch * Lq
        const double lk = static_cast<double>((*k)[k->size() - 2]);
        return rows * lk * (static_cast<double>(q->back()) + static_cast<double>(v->back()));
    }
    if (kind == mha) {
        // (query, key, value, embed_dim, num_head, qkv_weight, qkv_bias, proj_weight, ...)
        if (node->inputs().size() < 8) return std::nullopt;
        const auto q = sizes_of(node->input(0));
        const auto k = sizes_of(node->input(1));
        if (!q || !k || q->size() != 3 || k->size() != 3) return std::nullopt;
        const double batch = static_cast<double>((*q)[0]), lq = static_cast<double>((*q)[1]);
        const double lk = static_cast<double>((*k)[1]), e = static_cast<double>((*q)[2]);
        return batch * (lq * e * e  // query projection
                        + 2 * lk * e * e  // key and value projections
                        + 2 * lq * lk * e  // q k^T and attention x v, over all heads
                        + lq * e * e);  // output projection
    }
    return 0.0;
}

void count_block(const torch::jit::Block* block, FlopCount& count) {
    for (const torch::jit::Node* node : block->nodes()) {
        for (const torch::jit::Block* inner : node->blocks()) count_block(inner, count);
        const auto macs = node_macs(node);
        if (!macs) {
            ++count.uncounted_nodes;
            continue;
        }
        if (*macs <= 0) continue;
        count.macs += *macs;
        count.macs_by_op[node->kind().toQualString()] += *macs;
    }
}

}  // namespace

FlopCount count_flops(const torch::jit::Graph& graph) {
    FlopCount count;
    count_block(graph.block(), count);
    return count;
}

void record_work(Context& ctx, const FlopCount& count, const Series& latency_ms, double peak_gflops) {
    if (count.macs <= 0) return;
    const double flops = count.flops();
    ctx.record_scalar("flops_per_forward", flops, "FLOP");
    std::vector<double> gflops;
    gflops.reserve(latency_ms.samples.size());
    for (double ms : latency_ms.samples) gflops.push_back(ms > 0 ? flops / (ms / 1e3) / 1e9 : 0.0);
    const Summary summary = summarize(gflops);
    ctx.record_series("gflops", std::move(gflops), "GFLOP/s");
    if (peak_gflops > 0) {
        ctx.record_scalar("peak_gflops", peak_gflops, "GFLOP/s");
        if (summary.count > 0) {
            ctx.record_scalar("fraction_of_peak", summary.median / peak_gflops, "ratio");
            if (summary.median > peak_gflops)
                ctx.log().warn(
                    "achieved {:.1f} GFLOP/s, above the calibrated peak of {:.1f}: the calibration ran on a "
                    "busy machine; delete benchhost/calibration.json in the cache folder to measure again",
                    summary.median, peak_gflops);
        }
    }
    std::string by_op;
    for (const auto& [op, macs] : count.macs_by_op)
        by_op += (by_op.empty() ? "" : ", ") + op + "=" + format_double(macs, 4);
    if (count.uncounted_nodes > 0)
        by_op += " (" + std::to_string(count.uncounted_nodes) + " node(s) without shapes not counted)";
    ctx.set_info("macs_by_op", by_op);
}

// ---------------------------------------------------------------------------------
// Calibrated peak

namespace {

std::string cpu_model() {
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("model name", 0) != 0) continue;
        const auto colon = line.find(':');
        if (colon == std::string::npos) break;
        std::string model = line.substr(colon + 1);
        const auto first = model.find_first_not_of(" \t");
        return first == std::string::npos ? "unknown" : model.substr(first);
    }
    return "unknown";
}

/// The measuring method's version, stored with each entry: entries of another method
/// are measured again.
constexpr int calibration_method = 2;

/// How long a measured peak is trusted: a machine's peak changes with its firmware,
/// microcode, kernel and BLAS, none of which the key names.
constexpr std::int64_t calibration_max_age_s = 30LL * 24 * 3600;

std::int64_t unix_now() {
    return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

/// The cached peak for `key`, when it was measured by this method, with this LibTorch,
/// within calibration_max_age_s; a cache that cannot be read has none.
std::optional<double> cached_gflops(const std::filesystem::path& file, const std::string& key) {
    bench::CalibrationCache cache;
    try {
        cache = bench::read_calibration_cache(file);
    } catch (const std::exception&) {
        return std::nullopt;
    }
    const auto it = cache.entries.find(key);
    if (it == cache.entries.end()) return std::nullopt;
    const bench::CalibrationEntry& entry = it->second;
    const std::int64_t age = unix_now() - entry.measured_at_unix;
    if (entry.calibration != calibration_method || entry.torch_version != TORCH_VERSION || age < 0 ||
        age > calibration_max_age_s)
        return std::nullopt;
    return entry.gflops;
}

/// Best GFLOP/s of `fn` (doing `flops` each call): one warm-up call, then up to 30
/// timed calls within `budget` (at least 3). The best call is the one that ran
/// undisturbed: on a machine shared with other work, many short calls find the peak
/// where a few long ones do not.
template <class Fn>
double best_gflops(Fn&& fn, double flops, std::chrono::milliseconds budget) {
    using clock = std::chrono::steady_clock;
    fn();
    double best_s = 0;
    const auto deadline = clock::now() + budget;
    for (int i = 0; i < 30; ++i) {
        const auto start = clock::now();
        fn();
        const double s = std::chrono::duration<double>(clock::now() - start).count();
        if (best_s == 0 || s < best_s) best_s = s;
        if (i >= 2 && clock::now() > deadline) break;
    }
    return best_s > 0 ? flops / best_s / 1e9 : 0.0;
}

struct Peak {
    double gflops = 0;
    std::string method = "none";
};

/// The best of square GEMMs of 256, 512 and 1024 through oneDNN (at::mkldnn_linear on
/// oneDNN tensors: no reorder inside the timed call) and through at::linear (OpenBLAS
/// for float32 here, oneDNN for bfloat16). 0 when the dtype runs no GEMM here.
Peak measure_peak(torch::ScalarType dtype) {
    const torch::NoGradGuard no_grad;
    const auto options = torch::TensorOptions().dtype(dtype);
    Peak peak;
    auto consider = [&](double gflops, const std::string& method) {
        if (gflops > peak.gflops) peak = Peak{gflops, method};
    };
    for (const int64_t n : {256, 512, 1024}) {
        const double flops = 2.0 * static_cast<double>(n * n * n);
        const auto budget = std::chrono::milliseconds(n >= 1024 ? 600 : 300);
        const std::string size = std::to_string(n) + "^3";
        try {
            const torch::Tensor a = torch::rand({n, n}, options);
            const torch::Tensor w = torch::rand({n, n}, options);
            try {
                const torch::Tensor am = a.to_mkldnn();
                const torch::Tensor wm = w.to_mkldnn();
                consider(best_gflops([&] { (void)at::mkldnn_linear(am, wm); }, flops, budget), "onednn_linear " + size);
            } catch (const c10::Error&) {}
            try {
                consider(best_gflops([&] { (void)at::linear(a, w); }, flops, budget), "aten_linear " + size);
            } catch (const c10::Error&) {}
        } catch (const c10::Error&) {}
    }
    return peak;
}

}  // namespace

namespace {

/// The peak for `key`: from this process's memory, else the cache file, else measured
/// (and cached when it ran a GEMM).
double cached_peak(const std::string& key, const std::function<Peak()>& measure) {
    static std::mutex mutex;
    static std::map<std::string, double> memory;  // by file and key: no disk read twice
    const std::lock_guard lock(mutex);
    const auto file = bench::calibration_file();
    const std::string memory_key = (file ? file->string() : std::string()) + "\n" + key;
    if (const auto it = memory.find(memory_key); it != memory.end()) return it->second;
    if (file) {
        if (const auto cached = cached_gflops(*file, key)) return memory[memory_key] = *cached;
    }
    const Peak peak = measure();
    if (peak.gflops > 0 && file)
        (void)bench::write_calibration_entry(*file, key,
                                             {peak.gflops, peak.method, calibration_method, TORCH_VERSION, unix_now()});
    return memory[memory_key] = peak.gflops;
}

#if defined(BENCH_TORCH_WITH_CUDA)
/// The best of square GEMMs of 1024 to 8192 (at::mm, cuBLAS) on `device`, each call
/// waited for: at these sizes a call lasts a millisecond or more, so the wait's few
/// microseconds are within 1%. 0 when the dtype runs no GEMM there.
Peak measure_device_peak(torch::ScalarType dtype, const torch::Device& device) {
    const torch::NoGradGuard no_grad;
    const auto options = torch::TensorOptions().dtype(dtype).device(device);
    Peak peak;
    for (const int64_t n : {1024, 2048, 4096, 8192}) {
        const double flops = 2.0 * static_cast<double>(n * n * n);
        try {
            const torch::Tensor a = torch::rand({n, n}, options);
            const torch::Tensor b = torch::rand({n, n}, options);
            const double gflops = best_gflops(
                [&] {
                    (void)at::mm(a, b);
                    synchronize(device);
                },
                flops, std::chrono::milliseconds(n >= 4096 ? 800 : 300));
            if (gflops > peak.gflops) peak = Peak{gflops, "cublas_mm " + std::to_string(n) + "^3"};
        } catch (const c10::Error&) {}
    }
    return peak;
}
#endif

}  // namespace

double calibrated_peak_gflops(torch::ScalarType dtype) {
    const std::string key = cpu_model() + "|" + dtype_name(dtype) + "|threads=" + std::to_string(at::get_num_threads());
    return cached_peak(key, [dtype] { return measure_peak(dtype); });
}

double calibrated_peak_gflops(torch::ScalarType dtype, const torch::Device& device) {
    if (device.is_cpu()) return calibrated_peak_gflops(dtype);
#if defined(BENCH_TORCH_WITH_CUDA)
    if (!device.is_cuda()) return 0.0;
    const c10::cuda::CUDAGuard guard(device);
    const auto* properties = at::cuda::getCurrentDeviceProperties();
    // float32 products run on TF32 tensor cores where the settings allow it: a peak apiece.
    const std::string key = std::string("cuda ") + properties->name + "|" + dtype_name(dtype) +
                            "|matmul_precision=" + matmul_precision_text(at::globalContext().float32MatmulPrecision()) +
                            "|tf32=" + on_off(tf32_allowed(false));
    const torch::Device on(torch::kCUDA, c10::cuda::current_device());
    return cached_peak(key, [dtype, on] { return measure_device_peak(dtype, on); });
#else
    return 0.0;
#endif
}

}  // namespace bench::libtorch
