#include "commands/merge_command.hpp"

#include <algorithm>
#include <iostream>
#include <map>
#include <set>
#include <stdexcept>

#include "analysis/scenario_statistics.hpp"
#include "history/history_store.hpp"  // run_id_of
#include "report/files/report_json.hpp"
#include "report/report_figures.hpp"
#include "report/report_reader.hpp"
#include "report/reporter_registry.hpp"
#include "util/run_id.hpp"

namespace benchhost {

namespace fs = std::filesystem;

RunRecord merge_shards(const std::vector<std::pair<fs::path, RunRecord>>& shards) {
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

int merge_command(const MergeCommand& command) {
    const fs::path& out = command.out;
    const std::vector<fs::path>& dirs = command.shards;
    std::vector<std::pair<fs::path, RunRecord>> shards;
    RunRecord merged;
    try {
        for (const fs::path& dir : dirs) {
            const fs::path folder = run_folder_of(dir);
            shards.emplace_back(folder, read_run(folder));
        }
        merged = merge_shards(shards);
    } catch (const std::exception& e) {
        std::cerr << "benchhost: error: " << e.what() << "\n";
        return 2;
    }
    analyze_run(merged);
    // The files a run of the shards' options would have written, formats included.
    std::vector<std::string> formats;
    if (const auto it = merged.run_config.find("formats"); it != merged.run_config.end()) {
        std::string list = it->second;
        for (std::size_t start = 0; start < list.size();) {
            const std::size_t comma = std::min(list.find(',', start), list.size());
            if (comma > start) formats.push_back(list.substr(start, comma - start));
            start = comma + 1;
        }
    }
    ReporterSettings settings;
    settings.output_dir = out;
    const std::vector<std::string> errors =
        report_whole_run(merged, reporter_names({ReporterKind::file}, formats), settings);
    for (const std::string& error : errors) std::cerr << "benchhost: error: " << error << "\n";
    if (!errors.empty()) return 1;
    const RunTotals totals = count_totals(merged);
    std::cout << "merged " << shards.size() << " shard" << (shards.size() == 1 ? "" : "s") << " into "
              << (out / summary_file_name).string() << ": " << totals_text(totals) << "\n";
    return 0;
}

}  // namespace benchhost
