// What a run produced, as the reporters read it: data flows from the executor into a
// RunRecord, and every reporter (JSON, CSV, console) only reads it.
#pragma once

#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <bench/config.hpp>
#include <bench/internal/statistics/bootstrap.hpp>
#include <bench/internal/statistics/series_analysis.hpp>
#include <bench/result.hpp>

#include "model/plugin_build.hpp"

namespace benchhost {

/// Facts about the machine and the build, as key -> value text, grouped by section
/// ("cpu", "memory", "os", "build", ...). Written as nested JSON objects.
using HardwareInfo = std::map<std::string, std::map<std::string, std::string>>;

/// One fact of `hardware` ("cpu", "model"); empty when it is not there.
std::string hardware_fact(const HardwareInfo& hardware, const std::string& section, const std::string& key);

/// The statistics of one series of a scenario, computed once when the scenario ends
/// (analysis/scenario_statistics.hpp) and read by every reporter, so that the console,
/// the JSON files and the rendered reports never disagree.
struct SeriesStatistics {
    std::string name, unit;
    /// Over the finite samples only: summary (count, mean, median, quantiles, std), cv,
    /// MdAPE, bootstrap CIs of median and mean, Tukey outliers, stability.
    bench::SeriesAnalysis analysis;
    std::size_t non_finite = 0;  // samples left out because they are NaN or infinite
    int bootstrap_resamples = 0;  // behind the CIs
};

/// A compiled or kernelized variant's speedup over the eager scenario that differs from
/// it only in the variant.
struct Speedup {
    std::string series;
    double value = 0;  // median of eager / median of this variant: above 1 is faster
    bench::Interval ci;  // 95%, bootstrap of the ratio of medians
    std::string baseline_scenario_id;
};

/// A distributed scenario's scaling efficiency: its throughput over world_size times the
/// throughput of the scenario at world size 1 that differs from it only in world size
/// (world_size_group_key), in the same run.
struct ScalingEfficiency {
    std::string series;  // the throughput series compared: "throughput", else "tokens_per_second"
    int world_size = 0;
    double value = NAN;  // median at N / (N x median at 1); 1 is perfect scaling
    /// 95%: the bootstrap interval of the ratio of the medians (as a speedup's), over N;
    /// none at world size 1, whose efficiency is 1 by definition.
    bench::Interval ci;
    std::string baseline_scenario_id;  // the scenario at world size 1
};

/// A rank of a distributed scenario that held the others up in a time series: its median
/// slower than the other ranks' samples pooled, beyond the interval (analysis/stragglers.hpp).
struct Straggler {
    std::string series;  // the scenario's series ("latency.1MiB"); the rank's own is "<series>.rank<N>"
    int rank = 0;
    double median = NAN;  // the rank's median
    double others_median = NAN;  // the median of the other ranks' samples, pooled
    double ratio = NAN;  // median / others_median
    bench::Interval interval;  // the 95% bootstrap interval of the ratio
};

struct ScenarioStatistics {
    bool computed = false;
    std::vector<SeriesStatistics> series;  // the result's series, the first of each name
    /// A distributed scenario's stragglers: by series in the order recorded, the slowest
    /// rank first (analysis/stragglers.hpp, from the ranks' series "<series>.rank<N>").
    std::vector<Straggler> stragglers;
    bool speedups_computed = false;  // the eager counterpart was found and compared
    std::vector<Speedup> speedups;  // over eager, with their 95% CIs
    bool scaling_computed = false;  // the scenario at world size 1 was found and compared
    std::optional<ScalingEfficiency> scaling;  // a distributed scenario's, when that scenario ran

    const SeriesStatistics* find(std::string_view name) const {
        for (const SeriesStatistics& s : series)
            if (s.name == name) return &s;
        return nullptr;
    }
};

struct ScenarioOutcome {
    bench::ScenarioConfig config;
    bench::ScenarioResult result;  // status and reason included
    std::filesystem::path plugin_path;  // the .so it came from
    std::string plugin_version;
    PluginBuild plugin_build{};  // how the plugin was compiled, from its handshake
    std::string started_at;  // ISO 8601 UTC, e.g. "2026-11-22T11:50:00Z"
    double wall_time_s = 0;  // worker start to end, as the host saw it
    std::string log_tail;  // last lines the worker printed, kept for failures
    bool crashed_while_loading = false;  // the worker died before the plugin was loaded
    int rounds = 1;  // worker runs whose samples are pooled in `result` (see RunOptions::rounds)
    /// Per series name, how many samples each round added, in order (only with rounds > 1):
    /// what a comparison resamples by round (analysis/compare.cpp).
    std::map<std::string, std::vector<std::size_t>> round_sizes;
    /// With --confirm: the rounds the scenario had when it was flagged slower; the rounds
    /// after them confirm or overturn that verdict. 0: never confirmed.
    int first_rounds = 0;
    ScenarioStatistics statistics;  // filled when the scenario has ended (all its rounds)
};

/// Which part of a plan a sharded run ran (`run --shard K/N`).
struct ShardInfo {
    int index = 1, count = 1;
    std::size_t plan_scenarios = 0;  // scenarios of the whole plan
    std::string plan_fingerprint;  // the same for every shard of one plan (shard.hpp)
};

/// One shard of a merged run, and the machine it ran on.
struct ShardRecord {
    int index = 1;
    std::string host_name, started_at, finished_at, commit_id, source;  // source: its run folder
    HardwareInfo hardware;
};

struct RunRecord {
    /// The run's own id, 32 lower-case hex digits (util/run_id.hpp): random, made when the
    /// run starts (each side of an A/B run has its own), kept when it is resumed; a merged
    /// run's follows from its shards'. Empty for a run folder written before runs had
    /// ids: the history derives one for it (history_store.hpp, run_id_of).
    std::string run_id;
    std::string timestamp;  // YYYYmmdd_HHMMSS, local time: names the files
    std::string started_at;  // ISO 8601 UTC
    std::string finished_at;
    std::string host_name;
    std::string commit_id;  // git commit of benchhost, "unknown" if not known
    std::string host_version;
    HardwareInfo hardware;
    /// What about the machine or the build may make figures wrong (a debug build,
    /// frequency scaling, a loaded machine): written as "warnings" in the summary's
    /// context and in each report's hardware_info.
    std::vector<std::string> hardware_warnings;
    std::map<std::string, std::string> run_config;  // effective run options, for the record
    bool interrupted = false;
    bool finished = false;  // every planned scenario has run; the summary says "complete"
    std::vector<ScenarioOutcome> outcomes;
    std::optional<ShardInfo> shard;  // this run is one shard of a plan
    std::vector<ShardRecord> shards;  // this run was merged from these shards
};

/// failed counts every status other than success and skipped (failed, crashed,
/// timed_out, exited, rejected).
struct RunTotals {
    int total = 0, successful = 0, failed = 0, skipped = 0;
    /// Scenarios that ran: succeeded or failed. A skip is not a failure: it did not run.
    int ran() const { return successful + failed; }
    /// Counts one scenario that ended with `status`.
    void count(bench::Status status);
    /// successful / ran(), in [0, 1]; NaN when none ran (no scenario, or every one
    /// skipped), which the summary writes as null.
    double success_rate() const;
};

RunTotals count_totals(const RunRecord& record);

}  // namespace benchhost
