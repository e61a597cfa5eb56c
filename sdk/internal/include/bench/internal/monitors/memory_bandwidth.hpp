// A GPU memory's peak bandwidth, from its clock and bus width, as data sheets count it:
// two transfers a clock (HBM and GDDR alike) over the whole bus. NVML (the GPU monitor's
// hardware facts) and the CUDA runtime (CudaDevice) each give the clock and the width;
// this is the one formula both use.
//
// Internal (sdk/internal): for the host and the SDK's own implementation; not installed,
// not exported from libbench_sdk.so, not part of the plugin API (sdk/CMakeLists.txt).
#pragma once

namespace bench {

/// GB/s of a memory at `clock_mhz` over a bus of `bus_bits`: an H100 SXM's 2619 MHz
/// over 5120 bits is 3352 GB/s.
constexpr double peak_memory_bandwidth_gbs(double clock_mhz, double bus_bits) {
    return 2.0 * clock_mhz * 1e6 * (bus_bits / 8.0) / 1e9;
}

}  // namespace bench
