// The CUDA runtime API, loaded at run time (dlopen), so that the SDK builds and runs
// without CUDA and a plugin that uses LibTorch shares the runtime LibTorch loaded. Only
// what device-side timing and the L2 flush need. The types are the C ABI's: handles are
// pointers, errors ints (cudaSuccess is 0); cuda_runtime_check.cpp checks them against
// the toolkit's headers where the build has them.
#pragma once

#include <cstddef>
#include <string>

namespace bench::detail::cuda {

using Error = int;
using Event = void*;
using Stream = void*;
using Graph = void*;  // cudaGraph_t
using GraphExec = void*;  // cudaGraphExec_t

inline constexpr Error success = 0;
inline constexpr unsigned int stream_non_blocking = 0x1;  // cudaStreamNonBlocking
inline constexpr int capture_mode_thread_local = 1;  // cudaStreamCaptureModeThreadLocal
inline constexpr int attribute_memory_clock_rate = 36;  // cudaDevAttrMemoryClockRate, kHz
inline constexpr int attribute_memory_bus_width = 37;  // cudaDevAttrGlobalMemoryBusWidth, bits
inline constexpr int attribute_l2_cache_size = 38;  // cudaDevAttrL2CacheSize

struct Runtime {
    Error (*get_device_count)(int*) = nullptr;
    Error (*get_device)(int*) = nullptr;
    Error (*set_device)(int) = nullptr;
    Error (*device_get_attribute)(int*, int, int) = nullptr;
    Error (*device_synchronize)() = nullptr;
    Error (*malloc)(void**, std::size_t) = nullptr;
    Error (*free)(void*) = nullptr;
    Error (*memset_async)(void*, int, std::size_t, Stream) = nullptr;
    Error (*event_create)(Event*) = nullptr;
    Error (*event_destroy)(Event) = nullptr;
    Error (*event_record)(Event, Stream) = nullptr;
    Error (*event_synchronize)(Event) = nullptr;
    Error (*event_elapsed_time)(float*, Event, Event) = nullptr;
    const char* (*error_string)(Error) = nullptr;
    // CUDA graphs: optional (null where this runtime lacks them).
    Error (*stream_create_with_flags)(Stream*, unsigned int) = nullptr;
    Error (*stream_destroy)(Stream) = nullptr;
    Error (*stream_begin_capture)(Stream, int) = nullptr;  // cudaStreamCaptureMode
    Error (*stream_end_capture)(Stream, Graph*) = nullptr;
    Error (*graph_instantiate_with_flags)(GraphExec*, Graph, unsigned long long) = nullptr;
    Error (*graph_launch)(GraphExec, Stream) = nullptr;
    Error (*graph_exec_destroy)(GraphExec) = nullptr;
    Error (*graph_destroy)(Graph) = nullptr;
    std::string library;  // the file it came from
};

/// The runtime, loaded once per process: the first of libcudart.so.13, .12, .11 and
/// libcudart.so that loads with every function above (one already loaded, by LibTorch,
/// is found by its name). Null when none does; `why` then says what was tried.
const Runtime* runtime(std::string& why);

/// "cudaErrorX (what it means)" for `error`.
std::string error_text(const Runtime& api, Error error);

}  // namespace bench::detail::cuda
