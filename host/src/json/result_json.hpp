// JSON form of the SDK's data types and of a scenario's outcome: the worker protocol (the
// host sends a ScenarioConfig to a worker and reads back a ScenarioResult) and the run
// journal (one line per scenario run, run/journal.hpp). Their blocks (config, series,
// figures, monitors, sampling, shard) are written and read by json/scenario_json.hpp,
// which the reports use too.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <bench/config.hpp>
#include <bench/result.hpp>
#include <bench/statistics.hpp>

#include "model/run_record.hpp"

namespace benchhost {

std::string config_to_json(const bench::ScenarioConfig& config);
/// Throws std::runtime_error saying which field is missing or of the wrong type.
bench::ScenarioConfig config_from_json(std::string_view json);

std::string result_to_json(const bench::ScenarioResult& result);
/// Throws std::runtime_error saying which field is missing or of the wrong type.
bench::ScenarioResult result_from_json(std::string_view json);

/// A process that a worker left running when it ended, which the worker server stopped
/// (execute/worker_server.hpp): its pid and its command line, cut short.
struct StoppedProcess {
    int pid = 0;
    std::string command;
};

/// The worker server's list of the processes it stopped after a worker, as the host reads
/// it from the worker's status pipe.
std::string stopped_processes_to_json(const std::vector<StoppedProcess>& processes);
/// Throws std::runtime_error saying which field is missing or of the wrong type.
std::vector<StoppedProcess> stopped_processes_from_json(std::string_view json);

/// A monitor report's name: lower-case letters, digits and '_', ending in "_metrics"
/// ("gpu_metrics"). The report writes each monitor under its name.
bool is_monitor_name(std::string_view name);

// ---- The run journal (JSON Lines) --------------------------------------------------
// The first line describes the run; every other line is one execution of a scenario
// (one round), as it ended: {"round", "plugin_path", "plugin_version", "plugin_build"
// (scenario_json.hpp; absent in older journals), "started_at", "wall_time_s", "log_tail",
// "crashed_while_loading", "confirms_after" (a confirmation round: the rounds before the
// confirmation; absent otherwise), "config": config, "result": result}.
// A resumed run appends a header line of its own and goes on.

inline constexpr const char* journal_format_name = "benchhost run journal";
inline constexpr int journal_format_version = 1;

struct JournalHeader {
    std::string timestamp, started_at, commit_id, host_version;
    std::map<std::string, std::string> run_config;
    std::optional<ShardInfo> shard;
    std::string run_id;  // "run_id": what --resume keeps; absent in older journals
};

/// One line of a journal: a header, or an outcome with the round it was (1-based).
struct JournalLine {
    std::optional<JournalHeader> header;
    std::optional<ScenarioOutcome> outcome;
    int round = 1;
};

std::string journal_header_line(const JournalHeader& header);  // ends in '\n'
std::string journal_outcome_line(const ScenarioOutcome& outcome, int round);  // ends in '\n'
/// Throws std::runtime_error "<origin>: field 'result.series[0].unit' is missing".
JournalLine parse_journal_line(std::string_view line, const std::string& origin);

}  // namespace benchhost
