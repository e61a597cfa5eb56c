// What a run becomes in the history: its row (key, machine, config hash, branch) and its
// scenarios with the statistics the run computed.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>

#include "analysis/compare.hpp"  // compiler_counts
#include "analysis/framework_comparison.hpp"  // compile_time_ms
#include "history/history_store.hpp"
#include "util/fingerprint.hpp"

namespace benchhost {

namespace {

/// Options that say where a run was started or written, or which plugins and benchmarks
/// it ran, not how it measured them: left out of the config hash, so that the same
/// measurement from another folder, or in a run of more or fewer benchmarks, hashes the
/// same. The axes ("axes.*": variants, batch sizes, threads, ...) stay in: not every
/// axis is in every scenario's id.
const std::set<std::string> not_measurement = {"command_line",
                                               "working_directory",
                                               "resumed_from",
                                               "baseline",
                                               "regression_threshold",
                                               "fail_on_regression",
                                               "noise_floor",
                                               "confirm",
                                               "formats",
                                               "shard",
                                               "shard_costs",
                                               "history",
                                               "history_samples",
                                               "merged_from",
                                               "ab_side",
                                               "ab_other_side",
                                               "plugins_dir",
                                               "config_file",
                                               "timeout_s",
                                               "retry_failed",
                                               "allow_untrusted_plugins",
                                               "monitor_interval_ms",
                                               "include",
                                               "exclude",
                                               "categories",
                                               "enable_mock",
                                               "profile",
                                               "memory_limit_by"};

/// The branch the CI says it builds, from the variables CI systems set.
std::string branch_from_environment() {
    for (const char* name :
         {"BENCH_BRANCH", "GITHUB_HEAD_REF", "GITHUB_REF_NAME", "CI_COMMIT_REF_NAME", "BRANCH_NAME", "GIT_BRANCH"}) {
        const char* value = std::getenv(name);
        if (value != nullptr && *value != '\0') return value;
    }
    return "";
}

}  // namespace

std::string machine_text(const HardwareInfo& hardware) {
    std::string text = hardware_fact(hardware, "host", "hostname");
    for (const auto& [section, key] :
         {std::pair{"cpu", "model"}, std::pair{"cpu", "logical_cores"}, std::pair{"memory", "total_mib"},
          std::pair{"os", "machine"}, std::pair{"gpu", "count"}, std::pair{"gpu", "gpu0_name"}}) {
        const std::string fact = hardware_fact(hardware, section, key);
        text += "; " + std::string(section) + "." + key + "=" + (fact.empty() ? "?" : fact);
    }
    return text;
}

namespace {

/// What identified a run before runs had ids, 16 hex digits: when and where it started,
/// which part of its plan it was, and what it measured (the first sample of each series).
std::string key_before_run_ids(const RunRecord& record, const std::string& machine) {
    const int shard_index = record.shard ? record.shard->index : 0;
    const int shard_count = record.shard ? record.shard->count : 0;
    std::string identity = record.timestamp + "\n" + record.started_at + "\n" + record.host_name + "\n" + machine +
                           "\n" + std::to_string(shard_index) + "/" + std::to_string(shard_count) + "\n";
    char number[32];
    for (const ScenarioOutcome& outcome : record.outcomes) {
        identity += outcome.config.scenario_id() + " " + outcome.started_at;
        for (const bench::Series& series : outcome.result.series) {
            const double first = series.samples.empty() ? 0.0 : series.samples.front();
            std::snprintf(number, sizeof number, " %zu:%.17g", series.samples.size(), first);
            identity += number;
        }
        identity += "\n";
    }
    return fingerprint(identity);
}

}  // namespace

std::string run_id_of(const RunRecord& record) {
    if (!record.run_id.empty()) return record.run_id;
    // Sixteen zeros, then the old key: what history schema 4 made of the keys stored
    // before it, so that such a folder added again is the run stored then.
    return std::string(16, '0') + key_before_run_ids(record, fingerprint(machine_text(record.hardware)));
}

bool supersedes(const HistoryRun& added, const HistoryRun& stored) {
    if (added.finished_at != stored.finished_at) return added.finished_at > stored.finished_at;
    return added.complete && !stored.complete;
}

HistoryRun history_run_of(const RunRecord& record, const std::string& source) {
    HistoryRun run;
    run.started_at = record.started_at;
    run.finished_at = record.finished_at;
    run.timestamp = record.timestamp;
    run.commit_id = record.commit_id;
    run.branch = branch_from_environment();
    run.host_name = record.host_name;
    run.machine_text = machine_text(record.hardware);
    run.machine = fingerprint(run.machine_text);
    std::string config;
    for (const auto& [key, value] : record.run_config)
        if (not_measurement.count(key) == 0) config += key + "=" + value + "\n";
    run.config_hash = fingerprint(config);
    if (record.shard) {
        run.shard_index = record.shard->index;
        run.shard_count = record.shard->count;
    }
    run.source = source;
    run.host_version = record.host_version;
    run.complete = record.finished;
    run.key = run_id_of(record);
    run.scenarios = record.outcomes.size();
    return run;
}

std::vector<HistoryRun> merged_shards_of(const RunRecord& record) {
    std::vector<HistoryRun> shards;
    for (const ShardRecord& merged : record.shards) {
        HistoryRun shard;
        shard.shard_index = merged.index;
        shard.shard_count = static_cast<int>(record.shards.size());
        shard.started_at = merged.started_at;
        shard.host_name = merged.host_name;
        shards.push_back(std::move(shard));
    }
    return shards;
}

std::vector<HistoryScenario> history_scenarios_of(const RunRecord& record, bool samples) {
    std::vector<HistoryScenario> scenarios;
    scenarios.reserve(record.outcomes.size());
    for (const ScenarioOutcome& outcome : record.outcomes) {
        HistoryScenario scenario;
        scenario.scenario_id = outcome.config.scenario_id();
        scenario.plugin = outcome.config.plugin;
        scenario.benchmark = outcome.config.benchmark;
        scenario.status = std::string(bench::to_string(outcome.result.status));
        scenario.reason = outcome.result.reason;
        scenario.rounds = outcome.rounds;
        for (const SeriesStatistics& statistics : outcome.statistics.series) {
            HistorySeries series;
            series.name = statistics.name;
            series.unit = statistics.unit;
            series.summary = statistics.analysis.summary;
            series.ci_low = statistics.analysis.median_ci.low;
            series.ci_high = statistics.analysis.median_ci.high;
            if (samples)
                if (const bench::Series* raw = outcome.result.find_series(statistics.name))
                    series.samples = raw->samples;
            scenario.series.push_back(std::move(series));
        }
        // What the compiler did, as one-value series of unit "count", so that `history
        // check` gates them as compare does (any increase is slower).
        for (const std::string_view name : compiler_counts) {
            const bench::Scalar* count = outcome.result.find_scalar(std::string(name));
            if (count == nullptr || !std::isfinite(count->value)) continue;
            HistorySeries series;
            series.name = std::string(name);
            series.unit = "count";
            const std::vector<double> value = {count->value};
            series.summary = bench::summarize(value);
            series.ci_low = series.ci_high = count->value;
            if (samples) series.samples = {count->value};
            // The breaks' reasons and the recompiles' guards, so that `history check` names
            // them where the count grew.
            series.note = compiler_count_reasons(outcome.result, name);
            scenario.series.push_back(std::move(series));
        }
        // A cold compile's time (--compile-cache cold: every run compiles from nothing), as a
        // one-value series in ms, which `history check` judges by the spread between runs as
        // any other; a warm compile's hangs on what the caches held, and is left out.
        if (const double compile_ms = compile_time_ms(outcome);
            outcome.config.compile_cache == "cold" && std::isfinite(compile_ms)) {
            HistorySeries series;
            series.name = "compile_time";
            series.unit = "ms";
            series.summary = bench::summarize(std::vector<double>{compile_ms});
            series.ci_low = series.ci_high = compile_ms;
            if (samples) series.samples = {compile_ms};
            scenario.series.push_back(std::move(series));
        }
        scenarios.push_back(std::move(scenario));
    }
    return scenarios;
}

}  // namespace benchhost
