#include "nvml.hpp"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <string_view>
#include <vector>

namespace bench::detail::nvml {

namespace {

template <class F>
void resolve(void* handle, F& function, std::initializer_list<const char*> names) {
    function = nullptr;
    for (const char* name : names) {
        if (void* symbol = dlsym(handle, name)) {
            // POSIX guarantees that a data pointer from dlsym converts to a function pointer.
            function = reinterpret_cast<F>(symbol);
            return;
        }
    }
}

struct Loaded {
    std::unique_ptr<Api> api;  // null when loading failed
    std::string error;
};

Loaded load_library(const std::string& library) {
    Loaded loaded;
    dlerror();
    void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
        const char* message = dlerror();
        loaded.error = library + " not found: " + (message ? message : "dlopen failed");
        return loaded;
    }
    // The library stays loaded for the life of the process: NVML keeps threads and
    // state that unloading would pull from under them.
    auto api = std::make_unique<Api>();
    resolve(handle, api->init, {"nvmlInit_v2", "nvmlInit"});
    resolve(handle, api->shutdown, {"nvmlShutdown"});
    resolve(handle, api->error_string, {"nvmlErrorString"});
    resolve(handle, api->device_count, {"nvmlDeviceGetCount_v2", "nvmlDeviceGetCount"});
    resolve(handle, api->device_by_index, {"nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex"});
    resolve(handle, api->device_by_uuid, {"nvmlDeviceGetHandleByUUID"});
    resolve(handle, api->device_name, {"nvmlDeviceGetName"});
    resolve(handle, api->device_uuid, {"nvmlDeviceGetUUID"});
    resolve(handle, api->utilization, {"nvmlDeviceGetUtilizationRates"});
    resolve(handle, api->memory, {"nvmlDeviceGetMemoryInfo"});
    resolve(handle, api->processes,
            {"nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetComputeRunningProcesses_v2"});
    resolve(handle, api->power, {"nvmlDeviceGetPowerUsage"});
    resolve(handle, api->power_limit, {"nvmlDeviceGetEnforcedPowerLimit"});
    resolve(handle, api->energy, {"nvmlDeviceGetTotalEnergyConsumption"});
    resolve(handle, api->temperature, {"nvmlDeviceGetTemperature"});
    resolve(handle, api->clock, {"nvmlDeviceGetClockInfo"});
    resolve(handle, api->max_clock, {"nvmlDeviceGetMaxClockInfo"});
    resolve(handle, api->memory_bus_width, {"nvmlDeviceGetMemoryBusWidth"});
    resolve(handle, api->throttle_reasons,
            {"nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons"});
    resolve(handle, api->driver_version, {"nvmlSystemGetDriverVersion"});
    resolve(handle, api->nvml_version, {"nvmlSystemGetNVMLVersion"});
    resolve(handle, api->cuda_driver_version, {"nvmlSystemGetCudaDriverVersion_v2", "nvmlSystemGetCudaDriverVersion"});
    resolve(handle, api->mig_mode, {"nvmlDeviceGetMigMode"});
    resolve(handle, api->is_mig_device, {"nvmlDeviceIsMigDeviceHandle"});
    resolve(handle, api->lock_clocks, {"nvmlDeviceSetGpuLockedClocks"});
    resolve(handle, api->reset_clocks, {"nvmlDeviceResetGpuLockedClocks"});
    const std::pair<bool, const char*> required[] = {
        {api->init != nullptr, "nvmlInit_v2"},
        {api->shutdown != nullptr, "nvmlShutdown"},
        {api->error_string != nullptr, "nvmlErrorString"},
        {api->device_count != nullptr, "nvmlDeviceGetCount_v2"},
        {api->device_by_index != nullptr, "nvmlDeviceGetHandleByIndex_v2"}};
    for (const auto& [present, name] : required) {
        if (!present) {
            loaded.error = library + ": " + name + " is missing (not an NVML library?)";
            return loaded;
        }
    }
    loaded.api = std::move(api);
    return loaded;
}

std::vector<std::string> split(std::string_view text, char separator) {
    std::vector<std::string> parts;
    for (std::size_t start = 0;;) {
        const auto end = text.find(separator, start);
        parts.emplace_back(text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
        if (end == std::string_view::npos) return parts;
        start = end + 1;
    }
}

bool parse_index(std::string_view text, unsigned int& value) {
    if (text.empty() || text.size() > 6) return false;
    value = 0;
    for (const char c : text) {
        if (c < '0' || c > '9') return false;
        value = value * 10 + static_cast<unsigned int>(c - '0');
    }
    return true;
}

}  // namespace

std::string describe_reasons(std::uint64_t mask) {
    static const std::pair<std::uint64_t, const char*> names[] = {
        {reason_gpu_idle, "gpu_idle"},
        {reason_applications_clocks, "applications_clocks_setting"},
        {reason_sw_power_cap, "sw_power_cap"},
        {reason_hw_slowdown, "hw_slowdown"},
        {reason_sync_boost, "sync_boost"},
        {reason_sw_thermal, "sw_thermal_slowdown"},
        {reason_hw_thermal, "hw_thermal_slowdown"},
        {reason_hw_power_brake, "hw_power_brake_slowdown"},
        {reason_display_clocks, "display_clock_setting"}};
    std::string text;
    std::uint64_t known = 0;
    for (const auto& [bit, name] : names) {
        known |= bit;
        if (mask & bit) text += (text.empty() ? "" : ", ") + std::string(name);
    }
    if (mask & ~known) {
        char other[32];
        std::snprintf(other, sizeof other, "0x%llx", static_cast<unsigned long long>(mask & ~known));
        text += (text.empty() ? "other " : ", other ") + std::string(other);
    }
    return text;
}

std::string Api::error(Return code) const {
    const char* text = error_string ? error_string(code) : nullptr;
    return text ? std::string(text) : "NVML error " + std::to_string(code);
}

const Api* load(const std::string& library, std::string& error) {
    // Never destroyed: a sampling thread may still call NVML while the process exits
    // (a plugin that calls exit() runs the static destructors under it).
    static std::mutex& mutex = *new std::mutex;
    static std::map<std::string, Loaded>& libraries = *new std::map<std::string, Loaded>;
    std::lock_guard lock(mutex);
    auto it = libraries.find(library);
    if (it == libraries.end()) it = libraries.emplace(library, load_library(library)).first;
    error = it->second.error;
    return it->second.api.get();
}

Session::Session(const Api* api) : api_(api) {
    if (api_ == nullptr) {
        error_ = "NVML is not loaded";
        return;
    }
    const Return rc = api_->init();
    ok_ = rc == success;
    if (!ok_) error_ = "nvmlInit_v2 failed: " + api_->error(rc);
}

Session::~Session() {
    if (ok_) api_->shutdown();
}

Found find_device(const Api& api, const std::string& device) {
    Found found;
    unsigned int count = 0;
    if (const Return rc = api.device_count(&count); rc != success) {
        found.error = "nvmlDeviceGetCount_v2 failed: " + api.error(rc);
        return found;
    }
    if (count == 0) {
        found.error = "no GPU: NVML reports 0 devices";
        return found;
    }
    unsigned int ordinal = 0;  // among the devices the process may use
    if (device.rfind("cuda:", 0) == 0 && !parse_index(std::string_view(device).substr(5), ordinal)) {
        found.error = "device '" + device + "' does not name a GPU index";
        return found;
    }
    // CUDA_VISIBLE_DEVICES renumbers the devices a process sees, as CUDA does.
    const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
    if (visible != nullptr) {
        const std::vector<std::string> entries = split(visible, ',');
        if (std::string_view(visible).empty() || ordinal >= entries.size()) {
            found.error = "no GPU " + std::to_string(ordinal) + " among CUDA_VISIBLE_DEVICES='" + visible + "'";
            return found;
        }
        const std::string& entry = entries[ordinal];
        unsigned int index = 0;
        if (parse_index(entry, index)) {
            ordinal = index;
        } else if (api.device_by_uuid != nullptr) {
            if (const Return rc = api.device_by_uuid(entry.c_str(), &found.device); rc != success) {
                found.error =
                    "CUDA_VISIBLE_DEVICES names '" + entry + "': nvmlDeviceGetHandleByUUID failed: " + api.error(rc);
                found.device = nullptr;
                return found;
            }
            found.index = ordinal;
            return found;
        } else {
            found.error = "CUDA_VISIBLE_DEVICES names '" + entry + "', which is not an index";
            return found;
        }
    }
    if (ordinal >= count) {
        found.error = "no GPU " + std::to_string(ordinal) + ": NVML reports " + std::to_string(count) + " device" +
                      (count == 1 ? "" : "s");
        return found;
    }
    if (const Return rc = api.device_by_index(ordinal, &found.device); rc != success) {
        found.error = "nvmlDeviceGetHandleByIndex_v2(" + std::to_string(ordinal) + ") failed: " + api.error(rc);
        found.device = nullptr;
        return found;
    }
    found.index = ordinal;
    // NVML numbers GPUs by PCI bus; CUDA fastest first unless CUDA_DEVICE_ORDER=PCI_BUS_ID
    // (benchhost sets it for its workers when the environment does not).
    const char* order = std::getenv("CUDA_DEVICE_ORDER");
    if (count > 1 && (order == nullptr || std::string_view(order) != "PCI_BUS_ID"))
        found.order_warning = std::string("CUDA_DEVICE_ORDER is ") + (order ? order : "unset") +
                              ": CUDA numbers the GPUs fastest first and NVML by PCI bus, so GPU " +
                              std::to_string(ordinal) +
                              " watched may not be the one the scenario ran on (CUDA_DEVICE_ORDER=PCI_BUS_ID, or a "
                              "GPU UUID in CUDA_VISIBLE_DEVICES, makes them agree)";
    return found;
}

}  // namespace bench::detail::nvml
