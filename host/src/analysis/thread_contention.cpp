#include "analysis/thread_contention.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

#include <fmt/format.h>

namespace benchhost {

namespace {

/// A positive count written as text; 0 for anything else.
int positive_count(const std::string& text) {
    int value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    return error == std::errc() && end == text.data() + text.size() && value > 0 ? value : 0;
}

/// The CPUs other processes kept busy on a side, for the sentence: NaN when not monitored.
std::string load_text(const SideLoad& load) {
    return std::isfinite(load.other_cpus) ? fmt::format("{:.2f} CPUs", load.other_cpus) : "not monitored";
}

}  // namespace

std::optional<std::string> thread_per_cpu_warning(const std::vector<ScenarioThreads>& scenarios, int cpus,
                                                  const SideLoad& base, const SideLoad& next, double bar) {
    if (cpus < 2) return std::nullopt;
    const auto competing = [&](const SideLoad& load) {
        return std::isfinite(load.other_cpus) && load.other_cpus > bar;
    };
    if (!competing(base) && !competing(next)) return std::nullopt;
    std::vector<std::string> named;
    for (const ScenarioThreads& scenario : scenarios)
        if (scenario.threads >= cpus && std::find(named.begin(), named.end(), scenario.scenario_id) == named.end())
            named.push_back(scenario.scenario_id);
    if (named.empty()) return std::nullopt;
    constexpr std::size_t listed = 5;
    std::string names;
    for (std::size_t i = 0; i < named.size() && i < listed; ++i) names += (i == 0 ? "" : ", ") + named[i];
    if (named.size() > listed) names += fmt::format(" and {} more", named.size() - listed);
    return fmt::format(
        "{} {} a thread on each of the {} CPUs available while other processes kept CPUs busy (on average base {}, "
        "new {}): each call waits for whichever of its threads the load delays, so the pairs scatter and "
        "small changes go unseen; give {} fewer threads than CPUs (--threads {}): {}",
        named.size(), named.size() == 1 ? "scenario ran" : "scenarios ran", cpus, load_text(base), load_text(next),
        named.size() == 1 ? "it" : "them", cpus - 1, names);
}

std::vector<ScenarioThreads> scenario_threads(const RunRecord& record) {
    std::vector<ScenarioThreads> out;
    for (const ScenarioOutcome& outcome : record.outcomes) {
        int threads = 0;
        if (const auto it = outcome.result.info.find("threads"); it != outcome.result.info.end())
            threads = positive_count(it->second);
        if (threads == 0) threads = std::max(outcome.config.threads, 0);
        if (threads > 0) out.push_back({outcome.config.scenario_id(), threads});
    }
    return out;
}

std::optional<std::string> thread_per_cpu_warning(const RunRecord& base, const RunRecord& next,
                                                  const SideLoad& base_load, const SideLoad& new_load) {
    std::vector<ScenarioThreads> scenarios = scenario_threads(base);
    for (ScenarioThreads& scenario : scenario_threads(next)) {
        const auto same = std::find_if(scenarios.begin(), scenarios.end(),
                                       [&](const ScenarioThreads& s) { return s.scenario_id == scenario.scenario_id; });
        if (same == scenarios.end()) scenarios.push_back(std::move(scenario));
        else same->threads = std::max(same->threads, scenario.threads);
    }
    int cpus = positive_count(hardware_fact(base.hardware, "cpu", "cpus_available"));
    if (cpus == 0) cpus = positive_count(hardware_fact(next.hardware, "cpu", "cpus_available"));
    return thread_per_cpu_warning(scenarios, cpus, base_load, new_load);
}

}  // namespace benchhost
