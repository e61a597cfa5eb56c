#include <bench/device_timer.hpp>

#include <stdexcept>

#include <bench/internal/monitors/memory_bandwidth.hpp>

#include "cuda_runtime.hpp"

namespace bench {

namespace cuda = detail::cuda;

struct CudaDevice::Impl {
    const cuda::Runtime* api = nullptr;
    std::string why_not;
    int index = -1;
    std::size_t l2_bytes = 0;
    double bandwidth_gbs = 0;
    cuda::Event start = nullptr, stop = nullptr;
    void* flush_buffer = nullptr;
    std::size_t flush_bytes = 0;
    cuda::Stream own_stream = nullptr;
    cuda::GraphExec graph = nullptr;

    void check(cuda::Error error, const char* call) const {
        if (error != cuda::success) throw std::runtime_error(std::string(call) + ": " + cuda::error_text(*api, error));
    }
};

CudaDevice::CudaDevice(int index) : impl_(std::make_unique<Impl>()) {
    Impl& d = *impl_;
    d.api = cuda::runtime(d.why_not);
    if (d.api == nullptr) return;
    int count = 0;
    if (const cuda::Error error = d.api->get_device_count(&count); error != cuda::success || count == 0) {
        d.why_not = d.api->library + ": no CUDA device" +
                    (error != cuda::success ? ": " + cuda::error_text(*d.api, error) : std::string());
        d.api = nullptr;
        return;
    }
    if (index < 0 && d.api->get_device(&index) != cuda::success) index = 0;
    if (index >= count) {
        d.why_not = "CUDA device " + std::to_string(index) + " does not exist (" + std::to_string(count) + " seen)";
        d.api = nullptr;
        return;
    }
    d.index = index;
    d.check(d.api->set_device(index), "cudaSetDevice");
    int l2 = 0;
    if (d.api->device_get_attribute(&l2, cuda::attribute_l2_cache_size, index) == cuda::success && l2 > 0)
        d.l2_bytes = static_cast<std::size_t>(l2);
    // The memory's peak from its clock (kHz here) and bus width (memory_bandwidth.hpp).
    int memory_khz = 0, bus_bits = 0;
    if (d.api->device_get_attribute(&memory_khz, cuda::attribute_memory_clock_rate, index) == cuda::success &&
        d.api->device_get_attribute(&bus_bits, cuda::attribute_memory_bus_width, index) == cuda::success &&
        memory_khz > 0 && bus_bits > 0)
        d.bandwidth_gbs = bench::peak_memory_bandwidth_gbs(memory_khz / 1e3, bus_bits);
    d.check(d.api->event_create(&d.start), "cudaEventCreate");
    d.check(d.api->event_create(&d.stop), "cudaEventCreate");
}

CudaDevice::~CudaDevice() {
    Impl& d = *impl_;
    if (d.api == nullptr) return;
    if (d.start != nullptr) d.api->event_destroy(d.start);
    if (d.stop != nullptr) d.api->event_destroy(d.stop);
    if (d.flush_buffer != nullptr) d.api->free(d.flush_buffer);
    if (d.graph != nullptr) d.api->graph_exec_destroy(d.graph);
    if (d.own_stream != nullptr) d.api->stream_destroy(d.own_stream);
}

bool CudaDevice::available() const { return impl_->api != nullptr; }
const std::string& CudaDevice::unavailable_reason() const { return impl_->why_not; }
int CudaDevice::index() const { return impl_->index; }
std::size_t CudaDevice::l2_cache_bytes() const { return impl_->l2_bytes; }
double CudaDevice::peak_memory_bandwidth_gbs() const { return impl_->bandwidth_gbs; }

namespace {
void require(const CudaDevice& device) {
    if (!device.available()) throw std::logic_error("bench::CudaDevice: " + device.unavailable_reason());
}
}  // namespace

void CudaDevice::synchronize() {
    require(*this);
    impl_->check(impl_->api->device_synchronize(), "cudaDeviceSynchronize");
}

void CudaDevice::record_start(void* stream) {
    require(*this);
    impl_->check(impl_->api->event_record(impl_->start, stream), "cudaEventRecord");
}

void CudaDevice::record_stop(void* stream) {
    require(*this);
    impl_->check(impl_->api->event_record(impl_->stop, stream), "cudaEventRecord");
}

double CudaDevice::elapsed_ms() {
    require(*this);
    Impl& d = *impl_;
    d.check(d.api->event_synchronize(d.stop), "cudaEventSynchronize");
    float ms = 0;
    d.check(d.api->event_elapsed_time(&ms, d.start, d.stop), "cudaEventElapsedTime");
    return ms;
}

std::size_t CudaDevice::flush_l2(void* stream) {
    require(*this);
    Impl& d = *impl_;
    if (d.flush_buffer == nullptr) {
        // Twice the L2, as nvbench's L2 flush writes; 64 MiB when the device does not say.
        d.flush_bytes = d.l2_bytes > 0 ? 2 * d.l2_bytes : std::size_t{64} << 20;
        d.check(d.api->malloc(&d.flush_buffer, d.flush_bytes), "cudaMalloc (the L2 flush's buffer)");
    }
    static int value = 0;
    value = (value + 1) & 0xff;
    d.check(d.api->memset_async(d.flush_buffer, value, d.flush_bytes, stream), "cudaMemsetAsync (the L2 flush)");
    return d.flush_bytes;
}

void* CudaDevice::stream() {
    require(*this);
    Impl& d = *impl_;
    if (d.own_stream == nullptr) {
        if (d.api->stream_create_with_flags == nullptr || d.api->stream_destroy == nullptr)
            throw std::runtime_error(d.api->library + " has no cudaStreamCreateWithFlags");
        d.check(d.api->stream_create_with_flags(&d.own_stream, cuda::stream_non_blocking), "cudaStreamCreateWithFlags");
    }
    return d.own_stream;
}

void CudaDevice::capture_graph(const std::function<void(void*)>& launch) {
    require(*this);
    Impl& d = *impl_;
    const cuda::Runtime& api = *d.api;
    if (api.stream_begin_capture == nullptr || api.stream_end_capture == nullptr ||
        api.graph_instantiate_with_flags == nullptr || api.graph_launch == nullptr ||
        api.graph_exec_destroy == nullptr || api.graph_destroy == nullptr)
        throw std::runtime_error(api.library +
                                 " has no CUDA graphs (cudaStreamBeginCapture, cudaGraphInstantiateWithFlags)");
    cuda::Stream on = stream();
    launch(on);  // warm-up, outside the capture
    synchronize();
    d.check(api.stream_begin_capture(on, cuda::capture_mode_thread_local), "cudaStreamBeginCapture");
    try {
        launch(on);
    } catch (...) {
        cuda::Graph abandoned = nullptr;
        if (api.stream_end_capture(on, &abandoned) == cuda::success && abandoned != nullptr)
            api.graph_destroy(abandoned);
        throw;
    }
    cuda::Graph graph = nullptr;
    if (const cuda::Error error = api.stream_end_capture(on, &graph); error != cuda::success)
        throw std::runtime_error("cudaStreamEndCapture: " + cuda::error_text(api, error) +
                                 ": the call did something a capture cannot hold (a synchronization, a read back to "
                                 "the host, an allocation, work on another stream)");
    cuda::GraphExec exec = nullptr;
    const cuda::Error error = api.graph_instantiate_with_flags(&exec, graph, 0);
    api.graph_destroy(graph);
    d.check(error, "cudaGraphInstantiateWithFlags");
    if (d.graph != nullptr) api.graph_exec_destroy(d.graph);
    d.graph = exec;
}

void CudaDevice::launch_graph() {
    require(*this);
    Impl& d = *impl_;
    if (d.graph == nullptr) throw std::logic_error("bench::CudaDevice::launch_graph: no graph was captured");
    d.check(d.api->graph_launch(d.graph, d.own_stream), "cudaGraphLaunch");
}

}  // namespace bench
