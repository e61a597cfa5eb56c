#include "model/run_record.hpp"

#include <cmath>

namespace benchhost {

std::string hardware_fact(const HardwareInfo& hardware, const std::string& section, const std::string& key) {
    const auto s = hardware.find(section);
    if (s == hardware.end()) return {};
    const auto k = s->second.find(key);
    return k == s->second.end() ? std::string() : k->second;
}

double RunTotals::success_rate() const {
    return ran() > 0 ? static_cast<double>(successful) / static_cast<double>(ran()) : std::nan("");
}

void RunTotals::count(bench::Status status) {
    ++total;
    switch (status) {
        case bench::Status::success:
            ++successful;
            break;
        case bench::Status::skipped:
            ++skipped;
            break;
        case bench::Status::failed:
        case bench::Status::crashed:
        case bench::Status::timed_out:
        case bench::Status::exited:
        case bench::Status::rejected:
            ++failed;
            break;
    }
}

RunTotals count_totals(const RunRecord& record) {
    RunTotals totals;
    for (const auto& outcome : record.outcomes) totals.count(outcome.result.status);
    return totals;
}

}  // namespace benchhost
