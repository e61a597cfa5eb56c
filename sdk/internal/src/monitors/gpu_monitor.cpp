#include <bench/internal/monitors/gpu_monitor.hpp>

#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <sstream>

#include <bench/internal/monitors/memory_bandwidth.hpp>

#include "monitor_summary.hpp"
#include "nvml.hpp"
#include "sample_table.hpp"

namespace bench {

namespace {

namespace nvml = detail::nvml;
using detail::Merge;

constexpr double nan = std::numeric_limits<double>::quiet_NaN();
constexpr double mib = 1024.0 * 1024.0;
// Steps of the energy reading a measurement must span for its energy to be reported:
// each end of the measurement can be off by up to one step, so 10 steps bound the error
// to about 20%, and a longer measurement brings it down.
constexpr int min_energy_steps = 10;

// The columns of a sample.
enum Column : std::size_t {
    gpu_util,
    mem_util,
    mem_used,
    proc_mem,
    power,
    energy_counter,  // mJ, as NVML counts it
    temperature,
    sm_clock,
    mem_clock,
    throttle,  // bit mask of reasons
    errors,  // bit mask of the columns whose read failed
    listed,  // processes NVML lists on the device
    others,  // of them, not this process
    own_listed,  // 1 when this process was among them, 0 when not
    column_count
};

std::vector<Merge> merges() {
    std::vector<Merge> m(column_count, Merge::mean);
    m[energy_counter] = Merge::last;
    m[throttle] = Merge::bit_or;
    m[errors] = Merge::bit_or;
    return m;
}

// The sampled quantities reported as metrics: name, column, unit.
struct Gauge {
    const char* name;
    Column column;
    const char* unit;
};
constexpr Gauge gauges[] = {
    {"gpu_utilization", gpu_util, "%"},
    {"memory_utilization", mem_util, "%"},
    {"memory_used", mem_used, "MiB"},
    {"process_memory_used", proc_mem, "MiB"},
    {"power", power, "W"},
    {"temperature", temperature, "C"},
    {"sm_clock", sm_clock, "MHz"},
    {"memory_clock", mem_clock, "MHz"},
};

const char* const function_names[column_count] = {"nvmlDeviceGetUtilizationRates",
                                                  "nvmlDeviceGetUtilizationRates",
                                                  "nvmlDeviceGetMemoryInfo",
                                                  "nvmlDeviceGetComputeRunningProcesses_v3",
                                                  "nvmlDeviceGetPowerUsage",
                                                  "nvmlDeviceGetTotalEnergyConsumption",
                                                  "nvmlDeviceGetTemperature",
                                                  "nvmlDeviceGetClockInfo(SM)",
                                                  "nvmlDeviceGetClockInfo(MEM)",
                                                  "nvmlDeviceGetCurrentClocksThrottleReasons",
                                                  "",
                                                  "",
                                                  "",
                                                  ""};

/// This process's pids: its own, and where /proc shows them (NSpid in
/// /proc/self/status), those of the pid namespaces it is nested in. NVML lists processes
/// by the pid the driver's namespace gives them: inside a container with a pid namespace
/// of its own, that is none of the pids the container can see.
std::vector<unsigned int> own_pids() {
    std::vector<unsigned int> pids{static_cast<unsigned int>(::getpid())};
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line)) {
        if (line.rfind("NSpid:", 0) != 0) continue;
        std::istringstream words(line.substr(6));
        unsigned int pid = 0;
        while (words >> pid)
            if (std::find(pids.begin(), pids.end(), pid) == pids.end()) pids.push_back(pid);
    }
    return pids;
}

/// "101, 102" for the first `count` of `pids`.
template <class Pids>
std::string pid_list(const Pids& pids, std::size_t count) {
    std::string text;
    for (std::size_t i = 0; i < count && i < pids.size(); ++i) text += (i ? ", " : "") + std::to_string(pids[i]);
    return text;
}

std::string cuda_version_text(int version) {
    return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

}  // namespace

struct GpuMonitor::Impl {
    MonitorOptions options;
    const nvml::Api* api = nullptr;
    std::unique_ptr<nvml::Session> session;
    nvml::Device device = nullptr;
    unsigned int index = 0;
    std::string reason;
    std::string name, uuid;

    Clock::time_point origin = Clock::now();
    detail::SampleTable table;
    detail::SamplingThread thread;

    // Filled while sampling; allocated here, before.
    std::array<nvml::ProcessInfo, 256> processes{};
    std::vector<unsigned int> pids = own_pids();
    // The first other processes seen on the device (their pids), for the warning.
    std::array<unsigned int, 8> other_pids{};
    std::size_t other_pid_count = 0;
    std::string mig;  // what MIG means for these figures; empty when MIG is off
    std::string order_warning;  // nvml::Found::order_warning
    std::array<bool, column_count> unsupported{};
    long long samples = 0;
    long long read_errors = 0;
    // What take_throttling() has not handed out yet: read by another thread while sampling.
    std::atomic<std::uint64_t> unseen_reasons{0};
    std::atomic<long long> unseen_readings{0};
    std::array<char, 256> first_error{};

    explicit Impl(const MonitorOptions& o) : options(o), table(merges(), o.capacity) {}

    bool available() const { return device != nullptr; }

    /// Stores a reading, or notes why there is none.
    void note(double* row, Column column, nvml::Return rc, double value) {
        if (rc == nvml::success) {
            row[column] = value;
            return;
        }
        if (rc == nvml::error_not_supported) {
            unsupported[column] = true;
            return;
        }
        row[errors] = (std::isnan(row[errors]) ? 0.0 : row[errors]) + static_cast<double>(1u << column);
        ++read_errors;
        if (first_error[0] == '\0') {
            const char* message = api->error_string ? api->error_string(rc) : nullptr;
            std::snprintf(first_error.data(), first_error.size(), "%s failed at sample %lld: %s",
                          function_names[column], samples, message ? message : "unknown error");
        }
    }

    Clock::time_point sample() {
        const Clock::time_point now = Clock::now();
        double* row = table.begin_row(detail::seconds_since(origin, now));
        row[errors] = 0;
        if (api->utilization && !unsupported[gpu_util]) {
            nvml::Utilization u{};
            const nvml::Return rc = api->utilization(device, &u);
            note(row, gpu_util, rc, u.gpu);
            if (rc == nvml::success) row[mem_util] = u.memory;
        }
        if (api->memory && !unsupported[mem_used]) {
            nvml::Memory m{};
            const nvml::Return rc = api->memory(device, &m);
            note(row, mem_used, rc, static_cast<double>(m.used) / mib);
        }
        if (api->processes && !unsupported[proc_mem]) {
            unsigned int count = static_cast<unsigned int>(processes.size());
            const nvml::Return rc = api->processes(device, &count, processes.data());
            // Without this process among them: 0 (no CUDA context yet, or none any more),
            // unless it is never listed (report() says why).
            double used = 0;
            if (rc == nvml::success) {
                count = std::min(count, static_cast<unsigned int>(processes.size()));
                double other = 0, own = 0;
                for (unsigned int i = 0; i < count; ++i) {
                    const unsigned int listed_pid = processes[i].pid;
                    if (std::find(pids.begin(), pids.end(), listed_pid) != pids.end()) {
                        own = 1;
                        used = processes[i].usedGpuMemory == ~0ULL
                                   ? nan
                                   : static_cast<double>(processes[i].usedGpuMemory) / mib;
                        continue;
                    }
                    ++other;
                    const auto seen_end = other_pids.begin() + static_cast<std::ptrdiff_t>(other_pid_count);
                    if (other_pid_count < other_pids.size() &&
                        std::find(other_pids.begin(), seen_end, listed_pid) == seen_end)
                        other_pids[other_pid_count++] = listed_pid;
                }
                row[listed] = count;
                row[others] = other;
                row[own_listed] = own;
            }
            if (rc != nvml::error_insufficient_size) note(row, proc_mem, rc, used);
        }
        if (api->power && !unsupported[power]) {
            unsigned int milliwatts = 0;
            const nvml::Return rc = api->power(device, &milliwatts);
            note(row, power, rc, milliwatts / 1000.0);
        }
        if (api->energy && !unsupported[energy_counter]) {
            unsigned long long millijoules = 0;
            const nvml::Return rc = api->energy(device, &millijoules);
            note(row, energy_counter, rc, static_cast<double>(millijoules));
        }
        if (api->temperature && !unsupported[temperature]) {
            unsigned int celsius = 0;
            const nvml::Return rc = api->temperature(device, nvml::temperature_gpu, &celsius);
            note(row, temperature, rc, celsius);
        }
        if (api->clock && !unsupported[sm_clock]) {
            unsigned int mhz = 0;
            const nvml::Return rc = api->clock(device, nvml::clock_sm, &mhz);
            note(row, sm_clock, rc, mhz);
        }
        if (api->clock && !unsupported[mem_clock]) {
            unsigned int mhz = 0;
            const nvml::Return rc = api->clock(device, nvml::clock_mem, &mhz);
            note(row, mem_clock, rc, mhz);
        }
        if (api->throttle_reasons && !unsupported[throttle]) {
            unsigned long long reasons = 0;
            const nvml::Return rc = api->throttle_reasons(device, &reasons);
            note(row, throttle, rc, static_cast<double>(reasons));
            if (rc == nvml::success) {
                unseen_reasons.fetch_or(reasons);
                unseen_readings.fetch_add(1);
            }
        }
        table.commit();
        ++samples;
        return now;
    }

    MonitorReport report(const std::vector<MeasurementWindow>& windows) const;
};

MonitorReport GpuMonitor::Impl::report(const std::vector<MeasurementWindow>& windows) const {
    MonitorReport report;
    if (!available()) {
        report.reason = reason;
        return report;
    }
    report.available = true;
    const std::vector<double> times = table.times();
    const std::vector<detail::Span> spans = detail::spans_of(windows, origin);
    const std::vector<char> counted = detail::counted_samples(times, spans);
    const bool measured = !spans.empty();
    const std::string during = measured ? "during measurement" : "during the scenario";
    long long iterations = 0;
    for (const MeasurementWindow& w : windows) iterations += w.iterations;

    report.info["device"] = name;
    report.info["device_index"] = std::to_string(index);
    if (!uuid.empty()) report.info["uuid"] = uuid;
    report.info["window"] = measured ? "measurement" : "scenario";
    report.values["sample_count"] = {static_cast<double>(samples), "samples"};
    report.values["interval"] = {options.interval_ms, "ms"};
    if (!times.empty()) report.values["duration"] = {times.back() - times.front(), "s"};
    if (table.halvings() > 0)
        report.info["merged_samples"] = "every " + std::to_string(1LL << table.halvings()) +
                                        " samples were merged into one (the scenario outran the sample buffer)";

    std::vector<std::pair<std::string, std::vector<double>>> series;
    std::string unsupported_names;
    // This process's memory on the device: NVML lists processes by pid; when it never
    // listed this one, its figure is unknown, not 0.
    const std::vector<double> own = table.column(own_listed), listed_counts = table.column(listed),
                              other_counts = table.column(others);
    const bool process_lists_read = std::any_of(own.begin(), own.end(), [](double v) { return !std::isnan(v); });
    const bool own_seen = std::any_of(own.begin(), own.end(), [](double v) { return v > 0; });
    if (process_lists_read && !own_seen) {
        report.info["process_memory_used"] =
            "unavailable: NVML never listed this process (pid " + pid_list(pids, pids.size()) +
            ") among the device's processes; in a container with a pid namespace of its own, NVML "
            "lists the host's pids";
    }
    for (const Gauge& gauge : gauges) {
        std::vector<double> values = table.column(gauge.column);
        if (gauge.column == proc_mem && process_lists_read && !own_seen) values.assign(values.size(), nan);
        bool any = false;
        for (const double v : values) any = any || !std::isnan(v);
        if (!any) {
            if (unsupported[gauge.column])
                unsupported_names += (unsupported_names.empty() ? "" : ", ") + std::string(gauge.name);
            continue;
        }
        report.metrics[gauge.name] = detail::stats_of(values, counted, gauge.unit);
        series.emplace_back(gauge.name, std::move(values));
    }

    // Energy: NVML's counter where the GPU has one, else the integral of power.
    const std::vector<double> counter = table.column(energy_counter);
    const std::vector<double> watts = table.column(power);
    std::vector<double> joules(times.size(), nan);
    double first = nan;
    for (std::size_t i = 0; i < times.size(); ++i) {
        if (std::isnan(counter[i])) continue;
        if (std::isnan(first)) first = counter[i];
        joules[i] = (counter[i] - first) / 1000.0;
    }
    std::string energy_source = "total energy counter";
    if (std::isnan(first)) {
        if (unsupported[energy_counter])
            unsupported_names += (unsupported_names.empty() ? "" : ", ") + std::string("energy_counter");
        energy_source = "integrated power";
        double total = 0, last_watts = nan, last_time = nan;
        for (std::size_t i = 0; i < times.size(); ++i) {
            if (std::isnan(watts[i])) continue;
            if (!std::isnan(last_watts)) total += (last_watts + watts[i]) / 2 * (times[i] - last_time);
            last_watts = watts[i];
            last_time = times[i];
            joules[i] = total;
        }
        if (std::isnan(last_watts)) energy_source = "none";
    }
    if (!unsupported_names.empty()) report.info["unsupported"] = unsupported_names;
    report.info["energy_source"] = energy_source;
    if (energy_source != "none") {
        const double total = detail::growth(joules);
        report.values["energy_total"] = {total, "J"};
        // The energy of the measurement windows needs a reading that moves finely enough:
        // an H100's energy counter moves in steps of tens of milliseconds, so a 30 ms
        // window read 0 J or twice its energy there. Where the reading stood still between
        // samples, its step is about the scenario's duration over its changes; a window
        // shorter than min_energy_steps such steps gets no energy, with a warning.
        long long changes = 0, intervals = 0;
        double first_time = nan, last_time = nan, previous = nan;
        for (std::size_t i = 0; i < times.size(); ++i) {
            if (std::isnan(joules[i])) continue;
            if (!std::isnan(previous)) {
                ++intervals;
                changes += joules[i] != previous;
            }
            if (std::isnan(first_time)) first_time = times[i];
            last_time = times[i];
            previous = joules[i];
        }
        double window_s = 0;
        for (const detail::Span& span : spans) window_s += span.stop - span.start;
        // A reading that moved at every one of at least 4 intervals is taken to move
        // continuously; with fewer readings nothing tells, and the mean interval stands in.
        const bool moves_every_reading = changes == intervals && intervals >= 4;
        const double step_s = intervals == 0 ? std::numeric_limits<double>::infinity()
                              : moves_every_reading
                                  ? 0
                                  : (last_time - first_time) / static_cast<double>(std::max(changes, 1LL));
        if (!measured) {
            report.values["energy"] = {total, "J"};
        } else if (window_s >= static_cast<double>(min_energy_steps) * step_s) {
            const double energy = detail::growth_during(times, joules, spans);
            report.values["energy"] = {energy, "J"};
            if (iterations > 0) report.values["energy_per_iteration"] = {energy / static_cast<double>(iterations), "J"};
        } else {
            // Not a warning: energy is a side figure, and on a GPU most short scenarios
            // would warn; the report says why it is missing.
            const auto ms = [](double seconds) { return std::to_string(std::llround(seconds * 1000)); };
            const std::string reading = energy_source == "integrated power" ? "power reading" : "energy counter";
            if (!std::isfinite(step_s)) {
                report.info["energy_not_reported"] = "the " + reading + " was read once: too few readings for the " +
                                                     "measurement's " + ms(window_s) + " ms";
            } else {
                const long long min_time = std::max(1LL, std::llround(std::ceil(min_energy_steps * step_s)));
                report.info["energy_not_reported"] =
                    "the " + reading + " moved about every " + ms(step_s) + " ms, and the measurement's " +
                    ms(window_s) + " ms need at least " + std::to_string(min_energy_steps) +
                    " such steps: measure longer (e.g. --min-time " + std::to_string(min_time) + ")";
            }
        }
        series.emplace_back("energy", joules);
    }
    if (measured) report.values["measured_iterations"] = {static_cast<double>(iterations), "iterations"};

    // Throttling during measurement.
    std::uint64_t reasons = 0, seen = 0;
    long long throttled = 0, counted_samples = 0;
    const std::vector<double> masks = table.column(throttle);
    for (std::size_t i = 0; i < masks.size(); ++i) {
        if (!counted[i]) continue;
        ++counted_samples;
        if (std::isnan(masks[i])) continue;
        const auto mask = static_cast<std::uint64_t>(masks[i]);
        seen |= mask;
        if (mask & nvml::throttling_reasons) {
            reasons |= mask & nvml::throttling_reasons;
            ++throttled;
        }
    }
    if (api->throttle_reasons && !unsupported[throttle]) {
        report.flags["throttled"] = throttled > 0;
        report.values["throttled_samples"] = {static_cast<double>(throttled), "samples"};
        report.info["throttle_reasons"] = reasons ? nvml::describe_reasons(reasons) : "none";
        if (seen & ~nvml::throttling_reasons)
            report.info["other_clock_reasons"] = nvml::describe_reasons(seen & ~nvml::throttling_reasons);
        series.emplace_back("throttle_reasons", masks);
        if (throttled > 0)
            report.warnings.push_back("GPU " + std::to_string(index) + " (" + name + ") throttled " + during + " in " +
                                      std::to_string(throttled) + " of " + std::to_string(counted_samples) +
                                      " samples (" + nvml::describe_reasons(reasons) +
                                      "): its clocks were lowered, so the figures may understate it");
    }

    // Other processes on the device: power, energy, utilization and the device's memory
    // are the whole device's, theirs included. Where this process is not listed under
    // its pid (a pid namespace), one of those listed may be this process.
    double most_others = 0;
    for (std::size_t i = 0; i < other_counts.size(); ++i) {
        if (!counted[i] || std::isnan(other_counts[i])) continue;
        most_others = std::max(most_others, own_seen ? other_counts[i] : listed_counts[i] - 1);
    }
    if (process_lists_read) report.values["other_processes"] = {std::ceil(most_others), "processes"};
    if (most_others > 0) {
        const std::string pid_text = pid_list(other_pids, other_pid_count);
        const long long n = std::llround(std::ceil(most_others));
        report.info["other_processes"] = (own_seen ? "" : "at least ") + std::to_string(n) + " (pids " + pid_text +
                                         (own_seen ? "" : ", this process possibly among them") + ")";
        report.warnings.push_back("GPU " + std::to_string(index) + " (" + name + ") was used by " +
                                  (own_seen ? "" : "at least ") + std::to_string(n) + " other process" +
                                  (n == 1 ? "" : "es") + " " + during + " (pids " + pid_text +
                                  "): its utilization, power, energy and memory used count their work too, and "
                                  "they compete for the device");
    }
    if (!mig.empty()) report.info["mig"] = mig;
    if (!order_warning.empty()) report.warnings.push_back(order_warning);

    report.values["read_errors"] = {static_cast<double>(read_errors), "reads"};
    if (read_errors > 0) {
        report.info["first_error"] = first_error.data();
        report.warnings.push_back("NVML: " + std::to_string(read_errors) + " read" + (read_errors == 1 ? "" : "s") +
                                  " failed (first: " + std::string(first_error.data()) +
                                  "); those readings are left out of the statistics");
    }
    report.timeline = detail::make_timeline(times, series, counted);
    return report;
}

GpuMonitor::GpuMonitor(const MonitorOptions& options) : impl_(std::make_unique<Impl>(options)) {
    Impl& m = *impl_;
    std::string error;
    m.api = nvml::load(options.nvml_library, error);
    if (m.api == nullptr) {
        m.reason = error;
        return;
    }
    m.session = std::make_unique<nvml::Session>(m.api);
    if (!m.session->ok()) {
        m.reason = m.session->error();
        m.session.reset();
        return;
    }
    const nvml::Found found = nvml::find_device(*m.api, options.device);
    if (found.device == nullptr) {
        m.reason = found.error;
        m.session.reset();
        return;
    }
    m.device = found.device;
    m.index = found.index;
    m.order_warning = found.order_warning;
    char text[128] = {};
    if (m.api->device_name && m.api->device_name(m.device, text, sizeof text - 1) == nvml::success) m.name = text;
    text[0] = '\0';
    if (m.api->device_uuid && m.api->device_uuid(m.device, text, sizeof text - 1) == nvml::success) m.uuid = text;
    if (m.name.empty()) m.name = "GPU " + std::to_string(m.index);
    // MIG: an instance (CUDA_VISIBLE_DEVICES=MIG-<uuid>) is its own NVML device, named
    // with its profile; on a whole GPU in MIG mode, the figures are all instances'.
    unsigned int is_instance = 0, current = 0, pending = 0;
    if (m.api->is_mig_device && m.api->is_mig_device(m.device, &is_instance) == nvml::success && is_instance != 0) {
        m.mig = "instance " + (m.uuid.empty() ? m.name : m.uuid) +
                ": NVML reads a MIG instance's memory and processes, not its utilization";
    } else if (m.api->mig_mode && m.api->mig_mode(m.device, &current, &pending) == nvml::success && current == 1) {
        m.mig =
            "enabled: the scenario ran on one of this GPU's instances, and the GPU's figures count the other "
            "instances' work too; name the instance in CUDA_VISIBLE_DEVICES (MIG-<uuid>) to watch it alone";
    }
}

GpuMonitor::~GpuMonitor() { stop(); }

bool GpuMonitor::available() const { return impl_->available(); }
const std::string& GpuMonitor::reason() const { return impl_->reason; }

void GpuMonitor::start() {
    if (available()) impl_->thread.start_sampling(impl_->options.interval_ms, [this] { impl_->sample(); });
}

void GpuMonitor::stop() { impl_->thread.stop_sampling(); }

Clock::time_point GpuMonitor::sample_now() {
    if (!available()) return Clock::now();
    return impl_->sample();
}

MonitorReport GpuMonitor::report(const std::vector<MeasurementWindow>& windows) const { return impl_->report(windows); }

SampleDeviceState GpuMonitor::sample_states(const std::vector<Clock::time_point>& starts,
                                            const std::vector<Clock::time_point>& ends) const {
    SampleDeviceState states;
    const Impl& d = *impl_;
    if (!d.available() || d.api->throttle_reasons == nullptr || d.unsupported[throttle]) return states;
    const std::vector<double> times = d.table.times();
    const std::vector<double> clocks = d.table.column(sm_clock), masks = d.table.column(throttle);
    states.sm_clock_mhz.reserve(ends.size());
    states.throttle_reasons.reserve(ends.size());
    for (std::size_t i = 0; i < ends.size() && i < starts.size(); ++i) {
        const double from = detail::seconds_since(d.origin, starts[i]), to = detail::seconds_since(d.origin, ends[i]);
        // The last reading at or before the start, then every one up to the end.
        auto first = std::upper_bound(times.begin(), times.end(), from);
        if (first != times.begin()) --first;
        double clock = NAN;
        std::uint64_t reasons = 0;
        for (auto it = first; it != times.end() && *it <= to; ++it) {
            const auto row = static_cast<std::size_t>(it - times.begin());
            if (!std::isnan(clocks[row]) && !(clocks[row] >= clock)) clock = clocks[row];
            if (!std::isnan(masks[row])) reasons |= static_cast<std::uint64_t>(masks[row]);
        }
        states.sm_clock_mhz.push_back(clock);
        states.throttle_reasons.push_back(reasons);
    }
    return states;
}

GpuMonitor::Throttling GpuMonitor::take_throttling() {
    Throttling seen;
    seen.readings = impl_->unseen_readings.exchange(0);
    seen.reasons = impl_->unseen_reasons.exchange(0);
    return seen;
}

bool GpuMonitor::reads_throttling() const {
    return available() && impl_->api->throttle_reasons != nullptr && !impl_->unsupported[throttle];
}

bool is_throttling(std::uint64_t reasons) { return (reasons & nvml::throttling_reasons) != 0; }
std::string describe_throttling(std::uint64_t reasons) {
    return nvml::describe_reasons(reasons & nvml::throttling_reasons);
}

GpuSystemInfo describe_gpus(const std::string& nvml_library) {
    GpuSystemInfo info;
    std::string error;
    const nvml::Api* api = nvml::load(nvml_library, error);
    if (api == nullptr) {
        info.reason = error;
        return info;
    }
    const nvml::Session session(api);
    if (!session.ok()) {
        info.reason = session.error();
        return info;
    }
    char text[128] = {};
    if (api->driver_version && api->driver_version(text, sizeof text - 1) == nvml::success)
        info.facts["driver_version"] = text;
    text[0] = '\0';
    if (api->nvml_version && api->nvml_version(text, sizeof text - 1) == nvml::success)
        info.facts["nvml_version"] = text;
    int cuda = 0;
    if (api->cuda_driver_version && api->cuda_driver_version(&cuda) == nvml::success && cuda > 0)
        info.facts["cuda_driver_version"] = cuda_version_text(cuda);
    unsigned int count = 0;
    if (const nvml::Return rc = api->device_count(&count); rc != nvml::success) {
        info.reason = "nvmlDeviceGetCount_v2 failed: " + api->error(rc);
        return info;
    }
    info.facts["count"] = std::to_string(count);
    if (count == 0) {
        info.reason = "no GPU: NVML reports 0 devices";
        return info;
    }
    info.available = true;
    for (unsigned int i = 0; i < count && i < 64; ++i) {
        nvml::Device device = nullptr;
        if (api->device_by_index(i, &device) != nvml::success) continue;
        const std::string prefix = "gpu" + std::to_string(i) + "_";
        text[0] = '\0';
        if (api->device_name && api->device_name(device, text, sizeof text - 1) == nvml::success)
            info.facts[prefix + "name"] = text;
        text[0] = '\0';
        if (api->device_uuid && api->device_uuid(device, text, sizeof text - 1) == nvml::success)
            info.facts[prefix + "uuid"] = text;
        nvml::Memory memory{};
        if (api->memory && api->memory(device, &memory) == nvml::success)
            info.facts[prefix + "memory_mib"] = std::to_string(memory.total / (1024 * 1024));
        unsigned int value = 0;
        if (api->power_limit && api->power_limit(device, &value) == nvml::success)
            info.facts[prefix + "power_limit_w"] = detail::format_number(value / 1000.0, 6);
        if (api->max_clock && api->max_clock(device, nvml::clock_sm, &value) == nvml::success)
            info.facts[prefix + "max_sm_clock_mhz"] = std::to_string(value);
        // The memory's peak from its clock and bus width (memory_bandwidth.hpp).
        unsigned int memory_mhz = 0, bus_bits = 0;
        if (api->max_clock && api->memory_bus_width &&
            api->max_clock(device, nvml::clock_mem, &memory_mhz) == nvml::success &&
            api->memory_bus_width(device, &bus_bits) == nvml::success && memory_mhz > 0 && bus_bits > 0)
            info.facts[prefix + "memory_bandwidth_gbs"] =
                detail::format_number(peak_memory_bandwidth_gbs(memory_mhz, bus_bits), 5);
    }
    return info;
}

}  // namespace bench
