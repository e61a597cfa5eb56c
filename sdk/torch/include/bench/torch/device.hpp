// Where and in what precision a LibTorch benchmark runs, from the scenario's config.
#pragma once

#include <string>

#include <torch/types.h>

#include <bench/context.hpp>

namespace bench::libtorch {

/// config.device resolved ("auto", "cpu", "cuda", "cuda:N"; recorded as info "device"):
/// "auto" takes CUDA when this LibTorch build and the machine have it, else the CPU. A
/// device that cannot run here ends the scenario as skipped (Context::skip) with the
/// reason: "cuda requested, but this LibTorch build has no CUDA", "... but no CUDA
/// device is available", "cuda:3 requested, but this machine has 1 CUDA device(s)".
/// Text that is no device at all is std::invalid_argument.
///
/// It also applies the backend settings a run may choose (`--param NAME=VALUE`) and
/// records them as info whether set or not: `deterministic` (0 or 1: PyTorch's
/// deterministic algorithms; info "deterministic_algorithms" on or off),
/// `matmul_precision` (highest, high, medium: torch.set_float32_matmul_precision; info
/// "matmul_precision"); on CUDA `cudnn_benchmark` (0 or 1: cuDNN times its algorithms
/// per input shape and keeps the fastest; info "cudnn_benchmark") and `tf32` (0 or 1:
/// float32 convolutions and matrix products may round to TF32; info "tf32": "cudnn on,
/// cublas off"). A CUDA setting given for the CPU is a warning; another value is
/// std::invalid_argument.
BENCH_EXPORT torch::Device select_device(Context& ctx);

/// config.dtype as a torch dtype (float32/float/fp32, bfloat16/bf16, float16/half/fp16,
/// float64/double/fp64; another is std::invalid_argument; recorded as info "dtype"). One
/// that `device` cannot run (float16 on this CPU build) ends the scenario as skipped,
/// with the library's own reason: "float16 does not run on cpu with this LibTorch
/// build: "addmm_impl_cpu_" not implemented for 'Half'". Checked by running a small
/// matmul, conv2d and layer norm, once per process for each device and dtype.
BENCH_EXPORT torch::ScalarType select_dtype(Context& ctx, const torch::Device& device);

/// "float32", "bfloat16", ... for a dtype.
BENCH_EXPORT std::string dtype_name(torch::ScalarType dtype);

/// Sets the intra-op threads (at::set_num_threads) from config.threads for its lifetime
/// (0 keeps the library's default; negative is std::invalid_argument), restores them
/// after, and records the count used as info "threads".
class BENCH_EXPORT ThreadScope {
public:
    explicit ThreadScope(Context& ctx);
    ~ThreadScope();
    ThreadScope(const ThreadScope&) = delete;
    ThreadScope& operator=(const ThreadScope&) = delete;

private:
    int previous_;
};

/// Waits for the device's queued work: a no-op on the CPU, cudaDeviceSynchronize on
/// CUDA. Timing calls it before every clock read.
BENCH_EXPORT void synchronize(const torch::Device& device);

/// Returns cached memory to the system: on CUDA the caching allocator's cache
/// (c10::cuda::CUDACachingAllocator::emptyCache, compiled in only when LibTorch has
/// libc10_cuda; Debian's CPU-only build has not, and cannot select a CUDA device), on
/// the CPU glibc's free heap (malloc_trim(0)).
BENCH_EXPORT void flush_memory(const torch::Device& device);

/// Makes glibc keep the memory a forward pass frees for the next one, as a long-running
/// server's heap does: without it, glibc gave back the heap's top after every ResNet-50
/// forward at batch 8 and the next one page-faulted it in again (62,000 minor faults a
/// forward against 37,000 in Python, whose objects pin its heap; about 0 with it).
/// Sets M_TRIM_THRESHOLD to 1 GiB and M_MMAP_THRESHOLD to 32 MiB (glibc's largest) and
/// records info "malloc" saying so; leaves the allocator alone, and says so, when the
/// user chose its behaviour (GLIBC_TUNABLES, MALLOC_TRIM_THRESHOLD_,
/// MALLOC_MMAP_THRESHOLD_, MALLOC_CONF, LD_PRELOAD).
BENCH_EXPORT void retain_freed_memory(Context& ctx);

/// Records the device's memory use: on CUDA the scalars "cuda_max_memory_allocated"
/// and "cuda_max_memory_reserved" (MiB), the allocator's peaks since the timed samples
/// began (see restart_memory_peaks); on the CPU nothing (the SDK records the process's
/// "setup_peak_rss" and "measured_peak_rss", the worker its "peak_rss").
BENCH_EXPORT void record_memory(Context& ctx, const torch::Device& device);

/// Right before a scenario's first timed sample on CUDA (measure_synchronized calls it;
/// once a scenario): records the caching allocator's peaks so far (loading, the float32
/// reference pass, tracing, compiling) as "cuda_setup_max_memory_allocated" and
/// "cuda_setup_max_memory_reserved" (MiB) and restarts them, so that record_memory's
/// peaks are the timed samples' own (ABI 2.11). Nothing on the CPU.
BENCH_EXPORT void restart_memory_peaks(Context& ctx, const torch::Device& device);

/// Times `fn` like Context::measure on the CPU; on CUDA with Context::measure_device,
/// so that the asynchronous GPU work is what is timed: CUDA events around each sample on
/// the legacy default stream (LibTorch's default), the host's clock beside as `name` +
/// "_host"; or with --timer host the host's clock around each call and a device
/// synchronization.
template <class Fn>
Series measure_synchronized(Context& ctx, std::string_view name, const torch::Device& device, Fn&& fn) {
    if (device.is_cuda()) {
        restart_memory_peaks(ctx, device);
        return ctx.measure_device(name, std::forward<Fn>(fn), device.has_index() ? device.index() : -1);
    }
    if (device.is_cpu()) return ctx.measure(name, std::forward<Fn>(fn));
    return ctx.measure(name, [&] {
        fn();
        synchronize(device);
    });
}

}  // namespace bench::libtorch
