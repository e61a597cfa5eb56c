#include "cuda_runtime.hpp"

#include <dlfcn.h>

#include <mutex>

namespace bench::detail::cuda {

namespace {

template <class F>
bool resolve(void* handle, F& function, const char* name) {
    // POSIX guarantees that a data pointer from dlsym converts to a function pointer.
    function = reinterpret_cast<F>(dlsym(handle, name));
    return function != nullptr;
}

struct Loaded {
    Runtime api;
    bool ok = false;
    std::string why;
};

Loaded load() {
    Loaded loaded;
    std::string tried;
    for (const char* library : {"libcudart.so.13", "libcudart.so.12", "libcudart.so.11.0", "libcudart.so"}) {
        dlerror();
        // Kept loaded for the life of the process, as the CUDA runtime expects.
        void* handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
        if (handle == nullptr) {
            const char* message = dlerror();
            tried += std::string(tried.empty() ? "" : "; ") + (message ? message : library);
            continue;
        }
        Runtime& api = loaded.api;
        const bool all = resolve(handle, api.get_device_count, "cudaGetDeviceCount") &&
                         resolve(handle, api.get_device, "cudaGetDevice") &&
                         resolve(handle, api.set_device, "cudaSetDevice") &&
                         resolve(handle, api.device_get_attribute, "cudaDeviceGetAttribute") &&
                         resolve(handle, api.device_synchronize, "cudaDeviceSynchronize") &&
                         resolve(handle, api.malloc, "cudaMalloc") && resolve(handle, api.free, "cudaFree") &&
                         resolve(handle, api.memset_async, "cudaMemsetAsync") &&
                         resolve(handle, api.event_create, "cudaEventCreate") &&
                         resolve(handle, api.event_destroy, "cudaEventDestroy") &&
                         resolve(handle, api.event_record, "cudaEventRecord") &&
                         resolve(handle, api.event_synchronize, "cudaEventSynchronize") &&
                         resolve(handle, api.event_elapsed_time, "cudaEventElapsedTime") &&
                         resolve(handle, api.error_string, "cudaGetErrorString");
        if (!all) {
            tried += std::string(tried.empty() ? "" : "; ") + library + " lacks a function of the runtime API";
            continue;
        }
        // Optional: CUDA graphs (CudaDevice::capture_graph says when they are missing).
        resolve(handle, api.stream_create_with_flags, "cudaStreamCreateWithFlags");
        resolve(handle, api.stream_destroy, "cudaStreamDestroy");
        resolve(handle, api.stream_begin_capture, "cudaStreamBeginCapture");
        resolve(handle, api.stream_end_capture, "cudaStreamEndCapture");
        resolve(handle, api.graph_instantiate_with_flags, "cudaGraphInstantiateWithFlags");
        resolve(handle, api.graph_launch, "cudaGraphLaunch");
        resolve(handle, api.graph_exec_destroy, "cudaGraphExecDestroy");
        resolve(handle, api.graph_destroy, "cudaGraphDestroy");
        api.library = library;
        loaded.ok = true;
        return loaded;
    }
    loaded.why = "no CUDA runtime could be loaded (" + tried + ")";
    return loaded;
}

}  // namespace

const Runtime* runtime(std::string& why) {
    static const Loaded loaded = load();
    why = loaded.why;
    return loaded.ok ? &loaded.api : nullptr;
}

std::string error_text(const Runtime& api, Error error) {
    const char* text = api.error_string != nullptr ? api.error_string(error) : nullptr;
    return "CUDA error " + std::to_string(error) + (text != nullptr ? std::string(" (") + text + ")" : "");
}

}  // namespace bench::detail::cuda
