// Timing work on a CUDA device by the device's own clock (ABI 2.10): CUDA events recorded
// around each sample, on a stream (the legacy default stream unless one is given), so
// that a sample is the device's time from the first kernel of the call to the end of
// the last, without the launch and synchronization costs a host clock adds. The host's
// clock is read around the same samples (the call plus the wait for the device) and
// kept beside. For a cold cache, the device's L2 is flushed (a buffer of twice its size
// written on the same stream) before each sample, outside its events.
//
// The CUDA runtime is loaded at run time (libcudart, the one LibTorch loaded when it
// did), so that this builds without CUDA; without a runtime or a device, available()
// says why. Context::measure_device uses it as the scenario's --timer and --cache say.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <bench/export.hpp>
#include <bench/timer.hpp>

namespace bench {

class BENCH_EXPORT CudaDevice {
public:
    /// CUDA device `index` (-1: the current one), through the CUDA runtime.
    explicit CudaDevice(int index = -1);
    ~CudaDevice();
    CudaDevice(const CudaDevice&) = delete;
    CudaDevice& operator=(const CudaDevice&) = delete;

    /// Whether the runtime loaded and the device is there; else why not.
    bool available() const;
    const std::string& unavailable_reason() const;
    int index() const;
    /// The device's L2 cache, in bytes (0 when it does not say).
    std::size_t l2_cache_bytes() const;
    /// The device memory's peak bandwidth in GB/s: 2 x its memory clock x its bus width,
    /// as data sheets count it (an H100 SXM: 3352); 0 when the runtime does not say
    /// (ABI 2.11).
    double peak_memory_bandwidth_gbs() const;

    /// Waits for all the device's work (cudaDeviceSynchronize). The calls below throw
    /// std::runtime_error, naming the CUDA error, when the runtime fails.
    void synchronize();
    /// Records the start and the stop event of a sample on `stream` (nullptr: the
    /// legacy default stream, which waits for the work of every blocking stream).
    void record_start(void* stream = nullptr);
    void record_stop(void* stream = nullptr);
    /// Waits for the stop event; the device's time from start to stop, in ms.
    double elapsed_ms();
    /// Writes a buffer of twice the L2's size on `stream` (cudaMemsetAsync), evicting
    /// what the last sample left there; returns the bytes written.
    std::size_t flush_l2(void* stream = nullptr);

    /// A stream of this device's own (non-blocking), made at the first call: the one
    /// CUDA graphs are captured and launched on (ABI 2.11).
    void* stream();
    /// Calls `launch(stream())` once to warm up (lazy initialization, first
    /// allocations) and waits for it, then once more under stream capture, and
    /// instantiates what it queued as a CUDA graph, replacing the last one (ABI 2.11).
    /// `launch` must only queue work on the stream it is given: a synchronization, a
    /// read back to the host or an allocation outside a pool invalidates the capture.
    /// Throws std::runtime_error naming the call that failed, or saying that this
    /// runtime has no CUDA graphs.
    void capture_graph(const std::function<void(void*)>& launch);
    /// Launches the captured graph on stream() (cudaGraphLaunch); std::logic_error
    /// before capture_graph.
    void launch_graph();

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

/// What time_on_device measured: the samples by the device's clock, and by the host's
/// around each of them (the call, then the wait for its stop event), per call.
struct DeviceTimedSamples {
    TimedSamples device;  // its ms are the events' times
    std::vector<double> host_ms;
};

/// time_callable on `device`: warmup calls (each waited for), then samples until the
/// stopping rule of `options` says enough, each sample a batch of calls between two
/// events (the batch calibrated on the device's clock; one call a sample when `cold`,
/// and the L2 flushed before each).
template <class Fn>
DeviceTimedSamples time_on_device(Fn&& fn, const TimingOptions& options, CudaDevice& device, bool cold,
                                  void* stream = nullptr) {
    const double min_ns = options.min_sample_ns > 0 ? options.min_sample_ns : default_min_sample_ns();
    DeviceTimedSamples result;
    TimedSamples& timed = result.device;
    // One sample of `count` calls: the device's time and the host's, in ns.
    const auto sample = [&](long long count, double& host_ns) {
        if (cold) device.flush_l2(stream);
        const auto start = Clock::now();
        device.record_start(stream);
        detail::call_repeatedly(fn, count);
        device.record_stop(stream);
        const double device_ms = device.elapsed_ms();
        host_ns = elapsed_ns(start, Clock::now());
        return device_ms * 1e6;
    };
    double last_call_ns = -1, host_ns = 0;
    for (int i = 0; i < options.warmup_iterations; ++i) {
        last_call_ns = sample(1, host_ns);
        if (i == 0) timed.first_call_ms = host_ns / 1e6;
    }
    if (!cold && last_call_ns < min_ns) {
        long long batch = 1;
        for (double elapsed = last_call_ns < 0 ? sample(1, host_ns) : last_call_ns;
             elapsed < min_ns && batch < detail::max_batch;) {
            const double wanted = elapsed > 0 ? std::ceil(batch * min_ns * 1.1 / elapsed) : batch * 10.0;
            batch = std::min(std::clamp(static_cast<long long>(wanted), batch * 2, batch * 100), detail::max_batch);
            elapsed = sample(batch, host_ns);
        }
        timed.inner_iterations = batch;
    }
    timed.batch_limited = timed.inner_iterations >= detail::max_batch;
    const long long batch = timed.inner_iterations;
    StoppingRule rule(options);
    timed.start = Clock::now();
    rule.start(timed.start);
    auto now = timed.start;
    while (!rule.should_stop(timed.ms, now)) {
        const double device_ns = sample(batch, host_ns);
        now = Clock::now();
        timed.ms.push_back(device_ns / 1e6 / static_cast<double>(batch));
        timed.sample_ends.push_back(now);
        result.host_ms.push_back(host_ns / 1e6 / static_cast<double>(batch));
    }
    timed.stop = Clock::now();
    timed.sampling = rule.report(timed.ms, timed.stop);
    return result;
}

}  // namespace bench
