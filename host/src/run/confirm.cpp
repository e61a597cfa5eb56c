#include "run/confirm.hpp"

#include <map>

namespace benchhost {

std::vector<std::string> confirm_regressions(ScenarioRunner& runner, const Plan& plan, const RunRecord& base,
                                             const CompareOptions& options, int rounds, const RunRecord& record,
                                             spdlog::logger& log) {
    std::map<std::string, const ScenarioOutcome*> base_by_id;
    for (const ScenarioOutcome& outcome : base.outcomes) base_by_id.emplace(outcome.config.scenario_id(), &outcome);
    std::vector<std::pair<std::size_t, int>> flagged;  // plan index, rounds before the confirmation
    std::vector<std::string> ids;
    for (std::size_t index = 0; index < plan.scenarios.size(); ++index) {
        const std::string id = plan.scenarios[index].config.scenario_id();
        const ScenarioOutcome* outcome = runner.outcome(id);
        const auto base_outcome = base_by_id.find(id);
        if (outcome == nullptr || base_outcome == base_by_id.end()) continue;
        const std::vector<SeriesComparison> rows = compare_outcomes(*base_outcome->second, *outcome, options);
        if (scenario_verdict(rows) != Verdict::slower) continue;
        if (slower_by_counts_alone(rows)) {
            log.info(
                "{}: slower by its compiler counts alone, which are the same on every run of a build: no "
                "rounds to confirm",
                id);
            continue;
        }
        const int first = outcome->rounds;
        if (!runner.reopen_for_confirmation(id)) continue;
        flagged.emplace_back(index, first);
        ids.push_back(id);
    }
    if (flagged.empty()) return ids;
    log.info("{} scenario{} slower than the baseline: {} more round{} each to confirm", flagged.size(),
             flagged.size() == 1 ? "" : "s", rounds, rounds == 1 ? "" : "s");
    const std::size_t total = flagged.size() * static_cast<std::size_t>(rounds);
    std::size_t number = 0;
    for (int k = 1; k <= rounds && !record.interrupted; ++k) {
        for (const auto& [index, first] : flagged) {
            const std::string id = plan.scenarios[index].config.scenario_id();
            runner.run(index, first + k, k == rounds, ExecutionProgress{++number, total, id + " (confirming)"});
            if (record.interrupted) break;
        }
    }
    for (const auto& [index, first] : flagged) {
        const std::string id = plan.scenarios[index].config.scenario_id();
        const ScenarioOutcome* outcome = runner.outcome(id);
        if (outcome == nullptr) continue;
        if (outcome->result.status != bench::Status::success) {
            // A failed round leaves nothing to compare: no rows, which scenario_verdict calls "same".
            log.warn("{}: its confirmation failed after {} rounds ({} before the confirmation), not confirmed: {} ({})",
                     id, outcome->rounds, first, outcome->result.reason, bench::to_string(outcome->result.status));
            continue;
        }
        const Verdict verdict = scenario_verdict(compare_outcomes(*base_by_id.at(id), *outcome, options));
        log.info("{}: {} after {} rounds ({} before the confirmation)", id,
                 verdict == Verdict::slower ? "still slower: confirmed" : "now " + std::string(to_string(verdict)),
                 outcome->rounds, first);
    }
    return ids;
}

}  // namespace benchhost
