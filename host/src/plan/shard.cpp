#include "plan/shard.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <numeric>
#include <set>
#include <stdexcept>

#include <bench/params.hpp>

#include "util/fingerprint.hpp"
#include "util/run_id.hpp"

namespace benchhost {

namespace fs = std::filesystem;

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

RunRecord merge_shards(const std::vector<std::pair<fs::path, RunRecord>>& shards,
                       const std::function<std::string(const RunRecord&)>& run_id_of) {
    if (shards.empty()) throw std::runtime_error("no shards to merge");
    for (const auto& [dir, record] : shards)
        if (!record.shard)
            throw std::runtime_error(dir.string() +
                                     ": not a shard (its summary has no run_metadata.shard: run with --shard)");

    const ShardInfo& first = *shards.front().second.shard;
    for (const auto& [dir, record] : shards) {
        const ShardInfo& info = *record.shard;
        if (info.count != first.count || info.plan_fingerprint != first.plan_fingerprint ||
            info.plan_scenarios != first.plan_scenarios)
            throw std::runtime_error("shards of different plans: " + shards.front().first.string() + " is shard " +
                                     std::to_string(first.index) + "/" + std::to_string(first.count) + " of plan " +
                                     first.plan_fingerprint + " (" + std::to_string(first.plan_scenarios) +
                                     " scenarios), " + dir.string() + " is shard " + std::to_string(info.index) + "/" +
                                     std::to_string(info.count) + " of plan " + info.plan_fingerprint + " (" +
                                     std::to_string(info.plan_scenarios) +
                                     " scenarios): were they run with the same plugins and options?");
    }

    std::map<int, const std::pair<fs::path, RunRecord>*> by_index;
    std::string duplicated;
    for (const auto& shard : shards) {
        const int index = shard.second.shard->index;
        if (auto it = by_index.find(index); it != by_index.end()) {
            if (!duplicated.empty()) duplicated += "; ";
            duplicated += "shard " + std::to_string(index) + " in both " + it->second->first.string() + " and " +
                          shard.first.string();
        } else {
            by_index[index] = &shard;
        }
    }
    if (!duplicated.empty()) throw std::runtime_error("duplicated shards: " + duplicated);
    std::string missing;
    for (int k = 1; k <= first.count; ++k) {
        if (by_index.count(k) > 0) continue;
        if (!missing.empty()) missing += ", ";
        missing += std::to_string(k) + "/" + std::to_string(first.count);
    }
    if (!missing.empty()) throw std::runtime_error("missing shards: " + missing);

    RunRecord merged;
    const RunRecord& lead = by_index.begin()->second->second;
    merged.timestamp = lead.timestamp;
    merged.host_name = lead.host_name;
    merged.commit_id = lead.commit_id;
    merged.host_version = lead.host_version;
    merged.hardware = lead.hardware;
    merged.hardware_warnings = lead.hardware_warnings;
    merged.run_config = lead.run_config;
    merged.run_config.erase("shard");
    merged.finished = true;
    std::set<std::string> seen;
    std::string sources;
    // The merged run's id follows from its shards' ids, in shard order: the same shards
    // merged again (into another folder too) are the same run, which the history then
    // stores once.
    std::string shard_ids = "merged";
    for (const auto& [index, shard] : by_index)
        shard_ids += "\n" + std::to_string(index) + " " + run_id_of(shard->second);
    merged.run_id = run_id_from(shard_ids);
    for (const auto& [index, shard] : by_index) {
        const auto& [dir, record] = *shard;
        if (merged.started_at.empty() || (!record.started_at.empty() && record.started_at < merged.started_at))
            merged.started_at = record.started_at;
        if (record.finished_at > merged.finished_at) merged.finished_at = record.finished_at;
        merged.interrupted = merged.interrupted || record.interrupted;
        merged.finished = merged.finished && record.finished;
        for (const std::string& warning : record.hardware_warnings)
            if (std::find(merged.hardware_warnings.begin(), merged.hardware_warnings.end(), warning) ==
                merged.hardware_warnings.end())
                merged.hardware_warnings.push_back("shard " + std::to_string(index) + ": " + warning);
        for (const ScenarioOutcome& outcome : record.outcomes) {
            const std::string id = outcome.config.scenario_id();
            if (!seen.insert(id).second)
                throw std::runtime_error(id + " is in two shards (" + dir.string() + " and another): not one plan");
            merged.outcomes.push_back(outcome);
        }
        merged.shards.push_back(ShardRecord{index, record.host_name, record.started_at, record.finished_at,
                                            record.commit_id, dir.string(), record.hardware});
        if (!sources.empty()) sources += ",";
        sources += dir.string();
    }
    merged.run_config["merged_from"] = sources;
    // Complete only when every shard completed and together they ran the whole plan.
    merged.finished = merged.finished && merged.outcomes.size() == first.plan_scenarios;
    return merged;
}

}  // namespace benchhost
