#include <bench/internal/monitors/cpu_monitor.hpp>

#include <fcntl.h>
#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

#include <bench/memory_peak.hpp>

#include "monitor_summary.hpp"
#include "sample_table.hpp"

namespace bench {

namespace {

using detail::Merge;

constexpr double nan = std::numeric_limits<double>::quiet_NaN();

enum Column : std::size_t {
    cpu_time,  // s of CPU, user + system, all threads (cumulative)
    rss,  // MiB resident
    threads,  // threads of the process
    minor_faults,  // cumulative
    major_faults,  // cumulative
    voluntary_cs,  // cumulative
    involuntary_cs,  // cumulative
    frequency,  // MHz of the CPU the main thread last ran on
    runnable,  // runnable tasks on the machine, the sampling thread excluded
    load_average,  // 1-minute load average
    machine_busy,  // jiffies all CPUs spent busy (cumulative)
    machine_total,  // jiffies all CPUs spent (cumulative)
    column_count
};

std::vector<Merge> merges() {
    std::vector<Merge> m(column_count, Merge::last);
    for (const Column c : {rss, threads, frequency, runnable, load_average}) m[c] = Merge::mean;
    return m;
}

/// A file read again and again from its start, into a buffer on the stack: no
/// allocation. Returns the bytes read (at most size - 1, NUL-terminated), 0 on error.
std::size_t reread(int fd, char* buffer, std::size_t size) {
    if (fd < 0) return 0;
    const ssize_t n = ::pread(fd, buffer, size - 1, 0);
    if (n <= 0) return 0;
    buffer[n] = '\0';
    return static_cast<std::size_t>(n);
}

/// Skips `count` space-separated fields.
const char* skip_fields(const char* p, int count) {
    for (int i = 0; i < count && p; ++i) {
        p = std::strchr(p, ' ');
        if (p) ++p;
    }
    return p;
}

double to_mib(double bytes) { return bytes / (1024.0 * 1024.0); }

}  // namespace

int usable_cpu_count() {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        const int count = CPU_COUNT(&set);
        if (count > 0) return count;
    }
    const long online = sysconf(_SC_NPROCESSORS_ONLN);
    return online > 0 ? static_cast<int>(online) : 1;
}

struct CpuMonitor::Impl {
    static constexpr int max_cpus = 1024;

    MonitorOptions options;
    Clock::time_point origin = Clock::now();
    detail::SampleTable table;
    detail::SamplingThread thread;
    long long samples = 0;
    int cpus = usable_cpu_count();
    long page_size = sysconf(_SC_PAGESIZE);

    int stat_fd = -1, statm_fd = -1, loadavg_fd = -1, machine_stat_fd = -1;
    // scaling_cur_freq of each CPU, opened when first needed: -1 not yet, -2 unreadable.
    std::array<int, max_cpus> frequency_fds;

    explicit Impl(const MonitorOptions& o) : options(o), table(merges(), o.capacity) {
        frequency_fds.fill(-1);
        stat_fd = ::open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
        statm_fd = ::open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
        loadavg_fd = ::open("/proc/loadavg", O_RDONLY | O_CLOEXEC);
        machine_stat_fd = ::open("/proc/stat", O_RDONLY | O_CLOEXEC);
    }
    ~Impl() {
        thread.stop();
        for (const int fd : {stat_fd, statm_fd, loadavg_fd, machine_stat_fd})
            if (fd >= 0) ::close(fd);
        for (const int fd : frequency_fds)
            if (fd >= 0) ::close(fd);
    }

    double cpu_frequency_mhz(int cpu) {
        if (cpu < 0 || cpu >= max_cpus) return nan;
        int& fd = frequency_fds[static_cast<std::size_t>(cpu)];
        if (fd == -1) {
            char path[96];
            std::snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_cur_freq", cpu);
            fd = ::open(path, O_RDONLY | O_CLOEXEC);
            if (fd < 0) fd = -2;
        }
        char buffer[32];
        if (fd < 0 || reread(fd, buffer, sizeof buffer) == 0) return nan;
        return std::strtod(buffer, nullptr) / 1000.0;  // kHz
    }

    Clock::time_point sample() {
        const Clock::time_point now = Clock::now();
        double* row = table.begin_row(detail::seconds_since(origin, now));
        rusage usage{};
        if (::getrusage(RUSAGE_SELF, &usage) == 0) {
            row[cpu_time] = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                            static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
            row[minor_faults] = static_cast<double>(usage.ru_minflt);
            row[major_faults] = static_cast<double>(usage.ru_majflt);
            row[voluntary_cs] = static_cast<double>(usage.ru_nvcsw);
            row[involuntary_cs] = static_cast<double>(usage.ru_nivcsw);
        }
        char buffer[1024];
        if (reread(statm_fd, buffer, sizeof buffer) > 0) {
            // "size resident shared text lib data dt", in pages.
            const char* p = skip_fields(buffer, 1);
            if (p) row[rss] = to_mib(std::strtod(p, nullptr) * static_cast<double>(page_size));
        }
        if (reread(stat_fd, buffer, sizeof buffer) > 0) {
            // "pid (comm) state ppid ...": fields counted after the last ')'.
            if (const char* close = std::strrchr(buffer, ')')) {
                const char* fields = close + 2;  // field 3, the state
                if (const char* p = skip_fields(fields, 20 - 3)) row[threads] = std::strtod(p, nullptr);
                if (const char* p = skip_fields(fields, 39 - 3)) row[frequency] = cpu_frequency_mhz(std::atoi(p));
            }
        }
        if (reread(loadavg_fd, buffer, sizeof buffer) > 0) {
            // "0.52 0.58 0.59 2/614 12345": load averages, runnable/all tasks.
            char* end = nullptr;
            row[load_average] = std::strtod(buffer, &end);
            if (const char* p = skip_fields(buffer, 3)) row[runnable] = std::max(0.0, std::strtod(p, nullptr) - 1);
        }
        if (reread(machine_stat_fd, buffer, sizeof buffer) > 0 && std::strncmp(buffer, "cpu ", 4) == 0) {
            // "cpu user nice system idle iowait irq softirq steal ...", in jiffies.
            double fields[8] = {};
            char* p = buffer + 4;
            for (double& field : fields) field = std::strtod(p, &p);
            const double idle = fields[3] + fields[4];
            const double busy = fields[0] + fields[1] + fields[2] + fields[5] + fields[6] + fields[7];
            row[machine_busy] = busy;
            row[machine_total] = busy + idle;
        }
        table.commit();
        ++samples;
        return now;
    }

    MonitorReport report(const std::vector<MeasurementWindow>& windows) const;
};

MonitorReport CpuMonitor::Impl::report(const std::vector<MeasurementWindow>& windows) const {
    MonitorReport report;
    report.available = samples > 0;
    if (!report.available) {
        report.reason = "no sample was taken (the monitor was not started)";
        return report;
    }
    const std::vector<double> times = table.times();
    const std::vector<detail::Span> spans = detail::spans_of(windows, origin);
    const std::vector<char> counted = detail::counted_samples(times, spans);
    const bool measured = !spans.empty();

    report.info["window"] = measured ? "measurement" : "scenario";
    report.values["sample_count"] = {static_cast<double>(samples), "samples"};
    report.values["interval"] = {options.interval_ms, "ms"};
    report.values["duration"] = {times.back() - times.front(), "s"};
    report.values["cpus_available"] = {static_cast<double>(cpus), "CPUs"};
    if (table.halvings() > 0)
        report.info["merged_samples"] = "every " + std::to_string(1LL << table.halvings()) +
                                        " samples were merged into one (the scenario outran the sample buffer)";

    std::vector<std::pair<std::string, std::vector<double>>> series;
    auto add_metric = [&](const char* name, std::vector<double> values, const char* unit) {
        bool any = false;
        for (const double v : values) any = any || !std::isnan(v);
        if (!any) return false;
        report.metrics[name] = detail::stats_of(values, counted, unit);
        series.emplace_back(name, std::move(values));
        return true;
    };
    const std::vector<double> cpu_seconds = table.column(cpu_time);
    add_metric("cpu_utilization", detail::rate_of(times, cpu_seconds, 100.0), "%");
    const std::vector<double> busy = table.column(machine_busy), total = table.column(machine_total);
    std::vector<double> machine(times.size(), nan);
    for (std::size_t i = 1; i < times.size(); ++i) {
        const double d = total[i] - total[i - 1];
        if (d > 0) machine[i] = (busy[i] - busy[i - 1]) / d * 100.0;
    }
    add_metric("system_cpu_utilization", std::move(machine), "%");
    add_metric("rss", table.column(rss), "MiB");
    add_metric("threads", table.column(threads), "threads");
    if (!add_metric("cpu_frequency", table.column(frequency), "MHz"))
        report.info["cpu_frequency"] = "not readable: no /sys/devices/system/cpu/cpuN/cpufreq/scaling_cur_freq";
    add_metric("runnable_tasks", table.column(runnable), "tasks");
    const std::vector<double> load = table.column(load_average);
    add_metric("load_average", load, "tasks");

    report.values["cpu_time"] = {detail::growth(cpu_seconds), "s"};
    if (measured) report.values["cpu_time_measured"] = {detail::growth_during(times, cpu_seconds, spans), "s"};
    const std::pair<const char*, Column> counters[] = {{"minor_page_faults", minor_faults},
                                                       {"major_page_faults", major_faults},
                                                       {"voluntary_context_switches", voluntary_cs},
                                                       {"involuntary_context_switches", involuntary_cs}};
    for (const auto& [name, column] : counters) {
        const double grown = detail::growth(table.column(column));
        if (!std::isnan(grown)) report.values[name] = {grown, "count"};
    }
    // The scenario's peak: the kernel's high-water mark, with the part before the SDK
    // restarted it for the timed samples (bench/memory_peak.hpp).
    if (const double peak = bench::scenario_resident_peak_mib(); peak == peak)
        report.values["peak_rss"] = {peak, "MiB"};

    // The load around the run: more runnable tasks than CPUs means someone waited.
    double load_start = nan, load_end = nan;
    for (const double v : load)
        if (!std::isnan(v)) {
            if (std::isnan(load_start)) load_start = v;
            load_end = v;
        }
    if (!std::isnan(load_start)) {
        report.values["load_average_start"] = {load_start, "tasks"};
        report.values["load_average_end"] = {load_end, "tasks"};
        const double worst = std::max(load_start, load_end);
        const bool loaded = worst > cpus;
        report.flags["loaded"] = loaded;
        if (loaded)
            report.warnings.push_back("the machine was loaded: load average " + detail::format_number(worst) +
                                      " over the " + std::to_string(cpus) + " CPU" + (cpus == 1 ? "" : "s") +
                                      " this process may use; other processes competed for them, so the figures "
                                      "may be slow and noisy");
    }
    report.timeline = detail::make_timeline(times, series, counted);
    return report;
}

CpuMonitor::CpuMonitor(const MonitorOptions& options) : impl_(std::make_unique<Impl>(options)) {}

CpuMonitor::~CpuMonitor() { stop(); }

void CpuMonitor::start() {
    impl_->thread.start_sampling(impl_->options.interval_ms, [this] { impl_->sample(); });
}

void CpuMonitor::stop() { impl_->thread.stop_sampling(); }

Clock::time_point CpuMonitor::sample_now() { return impl_->sample(); }

MonitorReport CpuMonitor::report(const std::vector<MeasurementWindow>& windows) const { return impl_->report(windows); }

}  // namespace bench
