#include <bench/internal/monitors/gpu_clocks.hpp>

#include <algorithm>
#include <stdexcept>

#include "nvml.hpp"

namespace bench {

namespace nvml = detail::nvml;

void check_clock_setting(const std::string& setting) {
    if (setting == "base") return;
    const bool digits = !setting.empty() && setting.size() <= 5 &&
                        std::all_of(setting.begin(), setting.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (!digits || std::stoul(setting) == 0)
        throw std::invalid_argument("'" + setting +
                                    "' is not a clock: 'base' (the GPU's base clock) or MHz, e.g. 1410");
}

struct GpuClockLock::Impl {
    const nvml::Api* api = nullptr;
    std::unique_ptr<nvml::Session> session;
    std::vector<std::pair<nvml::Device, std::string>> locked;  // device, "GPU 0 (name)"
    std::string description;
};

GpuClockLock::GpuClockLock(const std::string& setting, const std::vector<std::string>& devices,
                           const std::string& nvml_library)
    : impl_(std::make_unique<Impl>()) {
    check_clock_setting(setting);
    Impl& m = *impl_;
    std::string error;
    m.api = nvml::load(nvml_library, error);
    if (m.api == nullptr) throw std::runtime_error("cannot lock GPU clocks: " + error);
    if (m.api->lock_clocks == nullptr || m.api->reset_clocks == nullptr)
        throw std::runtime_error("cannot lock GPU clocks: this NVML has no nvmlDeviceSetGpuLockedClocks");
    m.session = std::make_unique<nvml::Session>(m.api);
    if (!m.session->ok()) throw std::runtime_error("cannot lock GPU clocks: " + m.session->error());
    const unsigned int mhz = setting == "base" ? nvml::clock_limit_tdp : static_cast<unsigned int>(std::stoul(setting));
    const std::string what = setting == "base" ? "base clock" : setting + " MHz";
    for (const std::string& device : devices) {
        const nvml::Found found = nvml::find_device(*m.api, device);
        if (found.device == nullptr) {
            release();
            throw std::runtime_error("cannot lock the clocks of " + device + ": " + found.error);
        }
        if (std::any_of(m.locked.begin(), m.locked.end(), [&](const auto& l) { return l.first == found.device; }))
            continue;
        char name[128] = {};
        std::string label = "GPU " + std::to_string(found.index);
        if (m.api->device_name && m.api->device_name(found.device, name, sizeof name - 1) == nvml::success)
            label += " (" + std::string(name) + ")";
        if (const nvml::Return rc = m.api->lock_clocks(found.device, mhz, mhz); rc != nvml::success) {
            release();
            std::string reason = "nvmlDeviceSetGpuLockedClocks failed: " + m.api->error(rc);
            if (rc == nvml::error_no_permission) reason += " (locking clocks needs root)";
            if (rc == nvml::error_not_supported) reason += " (this GPU does not lock its clocks: Volta or later does)";
            throw std::runtime_error("cannot lock the clocks of " + label + " at " + (setting == "base" ? "the " : "") +
                                     what + ": " + reason);
        }
        m.locked.emplace_back(found.device, label);
        m.description += (m.description.empty() ? what + " on " : ", ") + label;
    }
}

GpuClockLock::~GpuClockLock() {
    if (impl_) release();
}

const std::string& GpuClockLock::description() const { return impl_->description; }

std::vector<std::string> GpuClockLock::release() {
    std::vector<std::string> problems;
    Impl& m = *impl_;
    for (const auto& [device, label] : m.locked)
        if (const nvml::Return rc = m.api->reset_clocks(device); rc != nvml::success)
            problems.push_back("cannot unlock the clocks of " + label + ": nvmlDeviceResetGpuLockedClocks failed: " +
                               m.api->error(rc) + " (nvidia-smi --reset-gpu-clocks does it)");
    m.locked.clear();
    return problems;
}

}  // namespace bench
