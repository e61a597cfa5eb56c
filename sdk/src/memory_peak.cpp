#include <bench/memory_peak.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

namespace bench {

namespace {

// The most resident memory before the last restart, since the scenario began (MiB).
std::atomic<double> earlier_peak{0.0};

bool write_clear_refs() {
    const int fd = ::open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC);
    if (fd < 0) return false;
    const bool written = ::write(fd, "5", 1) == 1;  // 5: reset the peak RSS (proc(5))
    ::close(fd);
    return written;
}

}  // namespace

double resident_peak_mib() {
    // Read with stdio, not streams: this runs in workers between samples, and in the
    // CPU monitor's report.
    std::FILE* status = std::fopen("/proc/self/status", "re");
    if (status == nullptr) return std::numeric_limits<double>::quiet_NaN();
    char line[256];
    double kib = std::numeric_limits<double>::quiet_NaN();
    while (std::fgets(line, sizeof line, status) != nullptr) {
        if (std::strncmp(line, "VmHWM:", 6) != 0) continue;
        unsigned long long value = 0;
        if (std::sscanf(line + 6, "%llu", &value) == 1) kib = static_cast<double>(value);
        break;
    }
    std::fclose(status);
    return kib / 1024.0;
}

double scenario_resident_peak_mib() {
    const double now = resident_peak_mib();
    const double before = earlier_peak.load();
    return std::isnan(now) ? (before > 0 ? before : now) : std::max(before, now);
}

bool restart_resident_peak() {
    const double so_far = resident_peak_mib();
    if (std::isnan(so_far) || !write_clear_refs()) return false;
    double before = earlier_peak.load();
    while (so_far > before && !earlier_peak.compare_exchange_weak(before, so_far)) {}
    return true;
}

void begin_scenario_resident_peak() {
    write_clear_refs();
    earlier_peak.store(0.0);
}

}  // namespace bench
