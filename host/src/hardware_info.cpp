#include "hardware_info.hpp"

#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>

#include <sys/utsname.h>
#include <unistd.h>

#include <bench/version.hpp>

#ifndef BENCHHOST_VERSION
#define BENCHHOST_VERSION "unknown"
#endif
#ifndef BENCHHOST_BUILD_TYPE
#define BENCHHOST_BUILD_TYPE "unknown"
#endif

namespace benchhost {
namespace {

std::string_view trim(std::string_view text) {
    const auto first = text.find_first_not_of(" \t\r\n");
    if (first == std::string_view::npos) return {};
    const auto last = text.find_last_not_of(" \t\r\n");
    return text.substr(first, last - first + 1);
}

// The value of the first "key<sep>value" line of a file, trimmed.
std::optional<std::string> read_keyed_value(const char* file, std::string_view key, char separator) {
    std::ifstream in(file);
    std::string line;
    while (std::getline(in, line)) {
        const auto at = line.find(separator);
        if (at == std::string::npos) continue;
        if (trim(std::string_view(line).substr(0, at)) != key) continue;
        return std::string(trim(std::string_view(line).substr(at + 1)));
    }
    return std::nullopt;
}

std::optional<std::string> read_first_line(const char* file) {
    std::ifstream in(file);
    std::string line;
    if (!std::getline(in, line)) return std::nullopt;
    std::string value(trim(line));
    if (value.empty()) return std::nullopt;
    return value;
}

std::string unquote(std::string value) {
    if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') && value.back() == value.front()) {
        return value.substr(1, value.size() - 2);
    }
    return value;
}

void collect_cpu(HardwareInfo& info) {
    auto& cpu = info["cpu"];
    if (auto model = read_keyed_value("/proc/cpuinfo", "model name", ':'); model && !model->empty()) {
        cpu["model"] = *model;
    }
    if (auto vendor = read_keyed_value("/proc/cpuinfo", "vendor_id", ':'); vendor && !vendor->empty()) {
        cpu["vendor"] = *vendor;
    }
    if (const unsigned cores = std::thread::hardware_concurrency(); cores > 0) {
        cpu["logical_cores"] = std::to_string(cores);
    }
    if (auto flags = read_keyed_value("/proc/cpuinfo", "flags", ':')) {
        std::set<std::string, std::less<>> present;
        std::istringstream words(*flags);
        for (std::string word; words >> word;) present.insert(word);
        for (const char* flag : {"avx2", "avx512f", "avx512_bf16"}) {
            cpu[std::string("flags_") + flag] = present.contains(flag) ? "yes" : "no";
        }
    }
    if (auto governor = read_first_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor")) {
        cpu["scaling_governor"] = *governor;
    }
    if (cpu.empty()) info.erase("cpu");
}

void collect_memory(HardwareInfo& info) {
    // "MemTotal:       16384256 kB"
    const auto total = read_keyed_value("/proc/meminfo", "MemTotal", ':');
    if (!total) return;
    std::istringstream in(*total);
    unsigned long long kib = 0;
    std::string unit;
    if (!(in >> kib) || kib == 0) return;
    in >> unit;
    if (!unit.empty() && unit != "kB") return;
    info["memory"]["total_mib"] = std::to_string(kib / 1024);
}

void collect_os(HardwareInfo& info) {
    auto& os = info["os"];
    if (auto name = read_keyed_value("/etc/os-release", "PRETTY_NAME", '=')) {
        std::string value = unquote(*name);
        if (!value.empty()) os["name"] = value;
    }
    struct utsname names {};
    if (::uname(&names) == 0) {
        os["kernel"] = names.release;
        os["machine"] = names.machine;
    }
    if (os.empty()) info.erase("os");
}

void collect_build(HardwareInfo& info) {
    auto& build = info["build"];
#if defined(__clang__)
    build["compiler"] = "Clang " __clang_version__;
#elif defined(__GNUC__)
    build["compiler"] = "GCC " __VERSION__;
#endif
    build["build_type"] = BENCHHOST_BUILD_TYPE;
    build["sdk_version"] = BENCH_SDK_VERSION;
    build["host_version"] = BENCHHOST_VERSION;
}

void collect_host(HardwareInfo& info) {
    char name[256] = {};
    if (::gethostname(name, sizeof(name) - 1) == 0 && name[0] != '\0') {
        info["host"]["hostname"] = name;
    }
}

}  // namespace

HardwareInfo collect_hardware_info() {
    HardwareInfo info;
    // A file that cannot be read or parsed simply yields no entry: nothing here throws
    // for a missing fact.
    collect_cpu(info);
    collect_memory(info);
    collect_os(info);
    collect_build(info);
    collect_host(info);
    return info;
}

}  // namespace benchhost
