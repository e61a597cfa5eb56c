#include "plan/shard.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <numeric>

#include <bench/params.hpp>

#include "util/fingerprint.hpp"

namespace benchhost {

namespace {

int positive_int(const std::string& text, const std::string& what) {
    const auto value = bench::parse_int(text);
    if (!value || *value < 0 || *value > 1'000'000)
        throw ConfigError(what + " must be a whole number, got '" + text + "'");
    return static_cast<int>(*value);
}

}  // namespace

ShardSpec parse_shard(const std::string& text, const std::function<const char*(const char*)>& environment) {
    ShardSpec spec;
    if (text == "slurm") {
        const auto get = [&](const char* name) -> std::string {
            const char* value = environment ? environment(name) : std::getenv(name);
            if (value == nullptr || *value == '\0')
                throw ConfigError(std::string("--shard slurm: ") + name +
                                  " is not set (run inside a SLURM job array: sbatch --array=1-N)");
            return value;
        };
        const int id = positive_int(get("SLURM_ARRAY_TASK_ID"), "SLURM_ARRAY_TASK_ID");
        const int count = positive_int(get("SLURM_ARRAY_TASK_COUNT"), "SLURM_ARRAY_TASK_COUNT");
        const char* min_text = environment ? environment("SLURM_ARRAY_TASK_MIN") : std::getenv("SLURM_ARRAY_TASK_MIN");
        const int min = min_text != nullptr && *min_text != '\0' ? positive_int(min_text, "SLURM_ARRAY_TASK_MIN") : 1;
        spec.index = id - min + 1;
        spec.count = count;
        if (spec.index < 1 || spec.index > spec.count)
            throw ConfigError("--shard slurm: task " + std::to_string(id) + " of an array starting at " +
                              std::to_string(min) + " with " + std::to_string(count) +
                              " tasks is not one of them (arrays must be contiguous, e.g. --array=1-" +
                              std::to_string(count) + ")");
        return spec;
    }
    const auto slash = text.find('/');
    if (slash == std::string::npos) throw ConfigError("--shard: expected K/N (e.g. 2/4) or slurm, got '" + text + "'");
    spec.index = positive_int(text.substr(0, slash), "--shard K");
    spec.count = positive_int(text.substr(slash + 1), "--shard N");
    if (spec.count < 1 || spec.index < 1 || spec.index > spec.count)
        throw ConfigError("--shard " + text + ": K must be between 1 and N");
    return spec;
}

std::string plan_fingerprint(const Plan& plan) {
    std::vector<std::string> ids;
    ids.reserve(plan.scenarios.size());
    for (const PlannedScenario& s : plan.scenarios) ids.push_back(s.config.scenario_id());
    std::sort(ids.begin(), ids.end());
    std::string text;
    for (const std::string& id : ids) text += id + '\n';
    return fingerprint(text);
}

Plan shard_plan(const Plan& plan, const ShardSpec& spec, const std::map<std::string, double>& known_costs) {
    const std::vector<std::vector<std::size_t>> groups = variant_groups(plan);  // as --rounds interleaves them

    std::vector<double> known;
    for (const auto& [id, cost] : known_costs) known.push_back(cost);
    double fallback = 1.0;
    if (!known.empty()) {
        std::nth_element(known.begin(), known.begin() + static_cast<std::ptrdiff_t>(known.size() / 2), known.end());
        fallback = known[known.size() / 2];
    }
    struct Weighed {
        double cost;
        std::string key;  // the group's smallest scenario id: a tie-break every machine agrees on
        std::size_t group;
    };
    std::vector<Weighed> weighed;
    for (std::size_t g = 0; g < groups.size(); ++g) {
        Weighed w{0, {}, g};
        for (const std::size_t i : groups[g]) {
            const PlannedScenario& s = plan.scenarios[i];
            const std::string id = s.config.scenario_id();
            if (w.key.empty() || id < w.key) w.key = id;
            if (!s.skip_reason.empty() || !s.reject_reason.empty()) continue;  // not run: no cost
            const auto it = known_costs.find(id);
            w.cost += it != known_costs.end() ? it->second : fallback;
        }
        weighed.push_back(std::move(w));
    }
    // Longest first, each to the least loaded shard (ties: the lower index).
    std::sort(weighed.begin(), weighed.end(),
              [](const Weighed& a, const Weighed& b) { return a.cost != b.cost ? a.cost > b.cost : a.key < b.key; });
    std::vector<double> load(static_cast<std::size_t>(spec.count), 0.0);
    std::vector<bool> mine(plan.scenarios.size(), false);
    for (const Weighed& w : weighed) {
        const auto shard = static_cast<std::size_t>(std::min_element(load.begin(), load.end()) - load.begin());
        load[shard] += w.cost;
        if (shard + 1 == static_cast<std::size_t>(spec.index))
            for (const std::size_t i : groups[w.group]) mine[i] = true;
    }
    Plan out = plan;  // its warnings, notes and selection figures
    out.scenarios.clear();
    for (std::size_t i = 0; i < plan.scenarios.size(); ++i)
        if (mine[i]) out.scenarios.push_back(plan.scenarios[i]);
    return out;
}

std::map<std::string, double> scenario_costs(const RunRecord& earlier) {
    std::map<std::string, double> costs;
    for (const ScenarioOutcome& outcome : earlier.outcomes)
        if (outcome.wall_time_s > 0)
            costs[outcome.config.scenario_id()] = outcome.wall_time_s / std::max(outcome.rounds, 1);
    return costs;
}

}  // namespace benchhost
