#include "run/hardware_info.hpp"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>

#include <sys/utsname.h>
#include <unistd.h>

#include <bench/internal/environment/calibration_cache.hpp>
#include <bench/internal/monitors/cpu_monitor.hpp>
#include <bench/internal/monitors/gpu_monitor.hpp>
#include <bench/version.hpp>

#include "util/join.hpp"
#include "util/text_table.hpp"

#ifndef BENCHHOST_VERSION
#define BENCHHOST_VERSION "unknown"
#endif
#ifndef BENCHHOST_BUILD_TYPE
#define BENCHHOST_BUILD_TYPE "unknown"
#endif

namespace benchhost {

extern const char* const build_git_commit;

namespace fs = std::filesystem;

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

std::optional<std::string> read_first_line(const std::string& file) {
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

// "48K" (sysfs) -> "48 KiB".
std::string cache_size(const std::string& text) {
    if (text.empty()) return text;
    const char unit = text.back();
    const std::string number = text.substr(0, text.size() - 1);
    if (unit == 'K') return number + " KiB";
    if (unit == 'M') return number + " MiB";
    if (unit == 'G') return number + " GiB";
    return text;
}

void collect_caches(std::map<std::string, std::string>& cpu) {
    for (int index = 0; index < 16; ++index) {
        const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/";
        const auto level = read_first_line(dir + "level");
        const auto type = read_first_line(dir + "type");
        const auto size = read_first_line(dir + "size");
        if (!level || !size) {
            if (index > 0) break;
            continue;
        }
        std::string name = "cache_l" + *level;
        if (type == "Data") name += "d";
        else if (type == "Instruction") name += "i";
        cpu[name] = cache_size(*size);
    }
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
    // Physical cores: distinct (package, core) pairs of /proc/cpuinfo.
    {
        std::ifstream in("/proc/cpuinfo");
        std::string line, package = "0";
        std::set<std::pair<std::string, std::string>> cores;
        std::set<std::string> packages;
        while (std::getline(in, line)) {
            const auto at = line.find(':');
            if (at == std::string::npos) continue;
            const std::string_view key = trim(std::string_view(line).substr(0, at));
            const std::string value(trim(std::string_view(line).substr(at + 1)));
            if (key == "physical id") {
                package = value;
                packages.insert(value);
            } else if (key == "core id") {
                cores.emplace(package, value);
            }
        }
        if (!cores.empty()) cpu["physical_cores"] = std::to_string(cores.size());
        if (!packages.empty()) cpu["sockets"] = std::to_string(packages.size());
    }
    cpu["cpus_available"] = std::to_string(bench::usable_cpu_count());
    if (const char* omp = std::getenv("OMP_NUM_THREADS"); omp && *omp) cpu["omp_num_threads"] = omp;
    if (auto mhz = read_keyed_value("/proc/cpuinfo", "cpu MHz", ':')) cpu["current_mhz"] = *mhz;
    collect_caches(cpu);
    if (auto flags = read_keyed_value("/proc/cpuinfo", "flags", ':')) {
        std::set<std::string, std::less<>> present;
        std::istringstream words(*flags);
        for (std::string word; words >> word;) present.insert(word);
        for (const char* flag : {"avx2", "avx512f", "avx512_bf16"}) {
            cpu[std::string("flags_") + flag] = present.contains(flag) ? "yes" : "no";
        }
    }

    // Frequency scaling and turbo, where the kernel says.
    const std::string cpufreq = "/sys/devices/system/cpu/cpu0/cpufreq/";
    const auto governor = read_first_line(cpufreq + "scaling_governor");
    if (governor) cpu["scaling_governor"] = *governor;
    if (auto driver = read_first_line(cpufreq + "scaling_driver")) cpu["scaling_driver"] = *driver;
    if (auto max = read_first_line(cpufreq + "cpuinfo_max_freq"))
        cpu["max_mhz"] = std::to_string(std::atol(max->c_str()) / 1000);
    if (auto min = read_first_line(cpufreq + "cpuinfo_min_freq"))
        cpu["min_mhz"] = std::to_string(std::atol(min->c_str()) / 1000);
    cpu["frequency_scaling"] = !governor                    ? "unknown (no cpufreq in /sys: a virtual machine?)"
                               : *governor == "performance" ? "off (governor performance)"
                                                            : "on (governor " + *governor + ")";
    if (auto no_turbo = read_first_line("/sys/devices/system/cpu/intel_pstate/no_turbo")) {
        cpu["turbo"] = *no_turbo == "0" ? "on" : "off";
    } else if (auto boost = read_first_line("/sys/devices/system/cpu/cpufreq/boost")) {
        cpu["turbo"] = *boost == "1" ? "on" : "off";
    } else {
        cpu["turbo"] = "unknown";
    }
}

std::optional<unsigned long long> meminfo_kib(std::string_view key) {
    // "MemTotal:       16384256 kB"
    const auto text = read_keyed_value("/proc/meminfo", key, ':');
    if (!text) return std::nullopt;
    std::istringstream in(*text);
    unsigned long long kib = 0;
    std::string unit;
    if (!(in >> kib)) return std::nullopt;
    in >> unit;
    if (!unit.empty() && unit != "kB") return std::nullopt;
    return kib;
}

void collect_memory(HardwareInfo& info) {
    auto& memory = info["memory"];
    if (auto total = meminfo_kib("MemTotal"); total && *total > 0) memory["total_mib"] = std::to_string(*total / 1024);
    if (auto available = meminfo_kib("MemAvailable")) memory["available_mib"] = std::to_string(*available / 1024);
    if (auto swap = meminfo_kib("SwapTotal")) memory["swap_total_mib"] = std::to_string(*swap / 1024);
    if (memory.empty()) info.erase("memory");
}

void collect_load(HardwareInfo& info) {
    std::ifstream in("/proc/loadavg");
    double one = 0, five = 0, fifteen = 0;
    if (!(in >> one >> five >> fifteen)) return;
    auto& load = info["load"];
    const auto text = [](double v) {
        std::ostringstream out;
        out << v;
        return out.str();
    };
    load["load_average_1m"] = text(one);
    load["load_average_5m"] = text(five);
    load["load_average_15m"] = text(fifteen);
    load["cpus_available"] = std::to_string(bench::usable_cpu_count());
}

void collect_gpu(HardwareInfo& info) {
    auto& gpu = info["gpu"];
    const bench::GpuSystemInfo gpus = bench::describe_gpus();
    gpu = gpus.facts;
    gpu["available"] = gpus.available ? "yes" : "no";
    if (!gpus.available) gpu["reason"] = gpus.reason;
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
#if defined(__OPTIMIZE__)
    build["optimized"] = "yes";
#else
    build["optimized"] = "no";
#endif
#if defined(NDEBUG)
    build["assertions"] = "off";
#else
    build["assertions"] = "on";
#endif
    build["sdk_version"] = BENCH_SDK_VERSION;
    build["sdk_abi"] = std::to_string(BENCH_SDK_ABI_MAJOR) + "." + std::to_string(BENCH_SDK_ABI_MINOR);
    build["host_version"] = BENCHHOST_VERSION;
    build["git_commit"] = build_git_commit;
}

void collect_libtorch(HardwareInfo& info) {
#if defined(BENCHHOST_TORCH_VERSION)
    info["libtorch"]["version_at_build"] = BENCHHOST_TORCH_VERSION;
#else
    info["libtorch"]["version_at_build"] = "none (built with BENCH_WITH_TORCH=OFF)";
#endif
}

void collect_host(HardwareInfo& info) {
    char name[256] = {};
    if (::gethostname(name, sizeof(name) - 1) == 0 && name[0] != '\0') {
        info["host"]["hostname"] = name;
    }
}

double leading_number_or_zero(const std::string& text) {
    char* end = nullptr;
    const double value = std::strtod(text.c_str(), &end);
    return end != text.c_str() ? value : 0.0;
}

}  // namespace

std::map<std::string, std::string> read_calibration(const fs::path& file) {
    std::map<std::string, std::string> out;
    std::error_code ec;
    if (file.empty() || !fs::exists(file, ec)) return out;
    bench::CalibrationCache cache;
    try {
        cache = bench::read_calibration_cache(file);
    } catch (const std::exception& e) {
        out["error"] = e.what();
        return out;
    }
    out["file"] = file.string();
    for (const auto& [key, entry] : cache.entries) {
        std::string details = entry.method;
        if (!entry.torch_version.empty())
            details += (details.empty() ? "" : ", ") + std::string("LibTorch ") + entry.torch_version;
        out["peak " + key] = number_text(entry.gflops, 4) + " GFLOP/s" + (details.empty() ? "" : " (" + details + ")");
    }
    if (!cache.ignored.empty()) out["ignored"] = join(cache.ignored, "; ");
    return out;
}

HardwareInfo collect_hardware_info() {
    HardwareInfo info;
    // A file that cannot be read or parsed simply yields no entry: nothing here throws
    // for a missing fact.
    collect_cpu(info);
    collect_memory(info);
    collect_load(info);
    collect_gpu(info);
    collect_os(info);
    collect_build(info);
    collect_libtorch(info);
    collect_host(info);
    if (auto calibration = read_calibration(bench::calibration_file().value_or(fs::path())); !calibration.empty())
        info["calibration"] = std::move(calibration);
    return info;
}

std::vector<std::string> hardware_warnings(const HardwareInfo& info) {
    std::vector<std::string> warnings;
    const auto fact = [&](const char* section, const char* key) { return hardware_fact(info, section, key); };
    const std::string build_type = fact("build", "build_type");
    if (fact("build", "optimized") == "no" ||
        (build_type != "Release" && build_type != "RelWithDebInfo" && build_type != "MinSizeRel"))
        warnings.push_back("benchhost is not an optimized build (build type '" + build_type +
                           "'): configure with -DCMAKE_BUILD_TYPE=Release; plugins built the same way run slower "
                           "than they should");
    if (const std::string governor = fact("cpu", "scaling_governor"); !governor.empty() && governor != "performance")
        warnings.push_back("CPU frequency scaling is on (governor '" + governor +
                           "'): figures may vary with the clock; use the 'performance' governor "
                           "(cpupower frequency-set -g performance)");
    if (fact("cpu", "turbo") == "on")
        warnings.push_back("CPU turbo is on: the clock varies with temperature and load, so figures may too");
    const std::string load = fact("load", "load_average_1m"), cpus = fact("load", "cpus_available");
    if (!load.empty() && !cpus.empty() && leading_number_or_zero(load) > leading_number_or_zero(cpus))
        warnings.push_back("the machine is loaded: load average " + load + " over the " + cpus +
                           " CPUs this process may use, before the run; other processes compete for them, so the "
                           "figures may be slow and noisy");
    return warnings;
}

void add_reported_facts(HardwareInfo& info, const ScenarioOutcome& outcome) {
    const auto& result_info = outcome.result.info;
    const std::string& plugin = outcome.config.plugin;
    if (!plugin.empty() && !outcome.plugin_version.empty()) {
        std::string text = "version " + outcome.plugin_version;
        if (const auto commit = result_info.find("git_commit"); commit != result_info.end())
            text += ", commit " + commit->second;
        else text += ", commit unknown";
        auto& entry = info["plugins"][plugin];
        if (entry.empty() || entry.find(", commit unknown") != std::string::npos) entry = text;
    }
    const auto framework = result_info.find("framework");
    if (framework == result_info.end() || framework->second != "libtorch") return;
    static const std::set<std::string, std::less<>> keys = {"mkldnn", "threads", "blas",
                                                            "onednn", "openmp",  "parallel_info"};
    for (const auto& [key, value] : result_info) {
        if (!key.starts_with("torch_") && keys.count(key) == 0) continue;
        std::string& entry = info["libtorch"][key];
        // Each distinct value once, in the order first reported.
        bool present = false;
        std::size_t start = 0;
        while (start <= entry.size() && !entry.empty()) {
            const auto end = entry.find(" | ", start);
            if (entry.substr(start, end == std::string::npos ? std::string::npos : end - start) == value)
                present = true;
            if (end == std::string::npos) break;
            start = end + 3;
        }
        if (!present) entry += (entry.empty() ? "" : " | ") + value;
    }
}

}  // namespace benchhost
