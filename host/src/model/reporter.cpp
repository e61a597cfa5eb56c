#include "model/reporter.hpp"

#include <algorithm>
#include <exception>

namespace benchhost {

template <typename Call>
void ReporterMultiplex::each(Call&& call) {
    for (const std::unique_ptr<Reporter>& reporter : reporters_) {
        try {
            call(*reporter);
        } catch (const std::exception& e) {
            errors_.emplace_back(e.what());
            failed_ = true;
        }
    }
}

void ReporterMultiplex::run_started(const RunRecord& record) {
    each([&](Reporter& r) { r.run_started(record); });
}

void ReporterMultiplex::execution_started(const ExecutionProgress& progress) {
    each([&](Reporter& r) { r.execution_started(progress); });
}

void ReporterMultiplex::execution_skipped(const ExecutionProgress& progress, bool resumed) {
    each([&](Reporter& r) { r.execution_skipped(progress, resumed); });
}

void ReporterMultiplex::execution_finished(const ExecutionProgress& progress, const ScenarioOutcome& outcome) {
    each([&](Reporter& r) { r.execution_finished(progress, outcome); });
}

void ReporterMultiplex::scenario_finished(const RunRecord& record, const ScenarioOutcome& outcome) {
    each([&](Reporter& r) { r.scenario_finished(record, outcome); });
}

void ReporterMultiplex::checkpoint(const RunRecord& record) {
    each([&](Reporter& r) { r.checkpoint(record); });
}

void ReporterMultiplex::run_finished(const RunRecord& record) {
    each([&](Reporter& r) { r.run_finished(record); });
}

void ReporterMultiplex::each_reporter(const std::function<void(Reporter&)>& call) { each(call); }

int ReporterMultiplex::exit_status() const {
    int status = failed_ ? 1 : 0;
    for (const std::unique_ptr<Reporter>& reporter : reporters_) status = std::max(status, reporter->exit_status());
    return status;
}

std::vector<std::filesystem::path> ReporterMultiplex::files() const {
    std::vector<std::filesystem::path> all;
    for (const std::unique_ptr<Reporter>& reporter : reporters_) {
        const std::vector<std::filesystem::path> some = reporter->files();
        all.insert(all.end(), some.begin(), some.end());
    }
    return all;
}

std::vector<std::string> ReporterMultiplex::take_errors() {
    std::vector<std::string> taken;
    taken.swap(errors_);
    return taken;
}

}  // namespace benchhost
