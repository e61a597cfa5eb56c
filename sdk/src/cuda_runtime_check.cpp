// Built only where the CUDA toolkit is found: the declarations of cuda_runtime.hpp
// against the toolkit's own, so that a mismatch is a build error, not a wrong call.
#include <cuda_runtime_api.h>

#include <type_traits>

#include "cuda_runtime.hpp"

namespace bench::detail::cuda {

static_assert(sizeof(cudaError_t) == sizeof(Error) && cudaSuccess == success);
static_assert(sizeof(cudaEvent_t) == sizeof(Event) && sizeof(cudaStream_t) == sizeof(Stream));
static_assert(cudaDevAttrL2CacheSize == attribute_l2_cache_size);
static_assert(cudaDevAttrMemoryClockRate == attribute_memory_clock_rate);
static_assert(sizeof(cudaGraph_t) == sizeof(Graph) && sizeof(cudaGraphExec_t) == sizeof(GraphExec));
static_assert(cudaStreamNonBlocking == stream_non_blocking);
static_assert(static_cast<int>(cudaStreamCaptureModeThreadLocal) == capture_mode_thread_local);
static_assert(cudaDevAttrGlobalMemoryBusWidth == attribute_memory_bus_width);

// The same parameters, handles aside (the toolkit's are pointers to its own structs).
static_assert(std::is_same_v<decltype(&cudaGetDeviceCount), cudaError_t (*)(int*)>);
static_assert(std::is_same_v<decltype(&cudaGetDevice), cudaError_t (*)(int*)>);
static_assert(std::is_same_v<decltype(&cudaSetDevice), cudaError_t (*)(int)>);
static_assert(std::is_same_v<decltype(&cudaDeviceGetAttribute), cudaError_t (*)(int*, cudaDeviceAttr, int)>);
static_assert(std::is_same_v<decltype(&cudaDeviceSynchronize), cudaError_t (*)()>);
static_assert(std::is_same_v<decltype(&cudaFree), cudaError_t (*)(void*)>);
static_assert(std::is_same_v<decltype(&cudaMemsetAsync), cudaError_t (*)(void*, int, size_t, cudaStream_t)>);
static_assert(std::is_same_v<decltype(&cudaEventCreate), cudaError_t (*)(cudaEvent_t*)>);
static_assert(std::is_same_v<decltype(&cudaEventDestroy), cudaError_t (*)(cudaEvent_t)>);
static_assert(std::is_same_v<decltype(&cudaEventRecord), cudaError_t (*)(cudaEvent_t, cudaStream_t)>);
static_assert(std::is_same_v<decltype(&cudaEventSynchronize), cudaError_t (*)(cudaEvent_t)>);
static_assert(std::is_same_v<decltype(&cudaEventElapsedTime), cudaError_t (*)(float*, cudaEvent_t, cudaEvent_t)>);
static_assert(std::is_same_v<decltype(&cudaGetErrorString), const char* (*)(cudaError_t)>);
static_assert(std::is_same_v<decltype(&cudaStreamCreateWithFlags), cudaError_t (*)(cudaStream_t*, unsigned int)>);
static_assert(std::is_same_v<decltype(&cudaStreamDestroy), cudaError_t (*)(cudaStream_t)>);
static_assert(std::is_same_v<decltype(&cudaStreamBeginCapture), cudaError_t (*)(cudaStream_t, cudaStreamCaptureMode)>);
static_assert(std::is_same_v<decltype(&cudaStreamEndCapture), cudaError_t (*)(cudaStream_t, cudaGraph_t*)>);
static_assert(std::is_same_v<decltype(&cudaGraphInstantiateWithFlags),
                             cudaError_t (*)(cudaGraphExec_t*, cudaGraph_t, unsigned long long)>);
static_assert(std::is_same_v<decltype(&cudaGraphLaunch), cudaError_t (*)(cudaGraphExec_t, cudaStream_t)>);
static_assert(std::is_same_v<decltype(&cudaGraphExecDestroy), cudaError_t (*)(cudaGraphExec_t)>);
static_assert(std::is_same_v<decltype(&cudaGraphDestroy), cudaError_t (*)(cudaGraph_t)>);

}  // namespace bench::detail::cuda
