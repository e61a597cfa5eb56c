// What the history's backends (sqlite_store.cpp, postgres_store.cpp) share: the column
// lists of their statements, which are the same text in both SQL dialects, and the
// messages that refuse a database.
#pragma once

#include <string>

#include "history/history_store.hpp"

namespace benchhost::history_sql {

/// meta.format of every benchhost history.
inline constexpr const char* format = "benchhost history";

/// A run's columns, in the order the backends read them (run_of).
inline constexpr const char* run_columns =
    "r.id, r.run_key, r.started_at, r.finished_at, r.timestamp, r.commit_id, r.branch, r.host_name, "
    "r.machine, r.machine_text, r.config_hash, r.shard_index, r.shard_count, r.source, r.host_version, "
    "r.complete";
/// How many run_columns there are.
inline constexpr int run_column_count = 16;

/// The columns an INSERT INTO runs / scenarios / series names, in the order of the values.
inline constexpr const char* insert_run_columns =
    "runs (run_key, started_at, finished_at, timestamp, commit_id, branch, host_name, machine, machine_text, "
    "config_hash, shard_index, shard_count, source, host_version, complete)";
inline constexpr const char* insert_scenario_columns =
    "scenarios (run_id, scenario_id, plugin, benchmark, status, reason, rounds)";
inline constexpr const char* insert_series_columns =
    "series (scenario_id, run_id, name, unit, count, mean, median, std, min, max, p25, p75, p90, p95, p99, ci_low, "
    "ci_high, samples, note)";

/// Schema 3, the same text in both dialects: the shards a merged run was merged from
/// (`benchhost merge`), so that adding one of them later is known to count twice. A
/// merged run stored by an older benchhost has none listed.
inline constexpr const char* merged_shards_migration = R"sql(
CREATE TABLE merged_shards (
  run_id BIGINT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  shard_index INTEGER NOT NULL, shard_count INTEGER NOT NULL,
  started_at TEXT NOT NULL, host_name TEXT NOT NULL,
  PRIMARY KEY (run_id, shard_index));
CREATE INDEX merged_shards_by_start ON merged_shards (started_at);
)sql";
/// The columns an INSERT INTO merged_shards names, in the order of the values.
inline constexpr const char* insert_merged_shard_columns =
    "merged_shards (run_id, shard_index, shard_count, started_at, host_name)";
/// Schema 4, the same text in both dialects: a run is known by its id, which run_key now
/// holds (history_store.hpp, run_id_of). A run stored before keeps its key behind sixteen
/// zeros: the id run_id_of derives for its folder, so that adding the folder again finds
/// it, and runs that were apart stay apart.
inline constexpr const char* run_id_migration =
    "UPDATE runs SET run_key = '0000000000000000' || run_key WHERE length(run_key) = 16;";
/// Schema 5, the same text in both dialects: what the run said of a series beside its
/// figures (HistorySeries::note: a graph_breaks count's reasons), so that `history check`
/// names the reason of a break it finds. A series stored before has none (NULL).
inline constexpr const char* series_note_migration = "ALTER TABLE series ADD COLUMN note TEXT;";

/// A point's columns after run_columns: the scenario, then its series (samples last,
/// added by the backend).
inline constexpr const char* point_columns =
    "s.scenario_id, s.status, v.name, v.unit, v.count, v.mean, v.median, v.std, v.min, v.max, "
    "v.p25, v.p75, v.p90, v.p95, v.p99, v.ci_low, v.ci_high, v.note";
/// FROM and ORDER BY of points(), around the WHERE clause.
inline constexpr const char* point_from =
    " FROM scenarios s JOIN runs r ON r.id = s.run_id LEFT JOIN series v ON v.scenario_id = s.scenario_id AND "
    "v.run_id = s.run_id";
inline constexpr const char* point_order = " ORDER BY r.started_at, r.id, v.name";
/// The distinct scenario ids, in order: one index lookup per id (a loose index scan over
/// scenarios_by_id), where SELECT DISTINCT reads every scenario of every run (55 ms for
/// 10,000 runs of 50 scenarios in SQLite, against 1).
inline constexpr const char* distinct_scenario_ids =
    "WITH RECURSIVE ids (id) AS (SELECT min(scenario_id) FROM scenarios UNION ALL "
    "SELECT (SELECT min(scenario_id) FROM scenarios WHERE scenario_id > ids.id) FROM ids WHERE ids.id IS NOT NULL) "
    "SELECT id FROM ids WHERE id IS NOT NULL";
/// ORDER BY of runs(): the newest first.
inline constexpr const char* run_order = " ORDER BY r.started_at DESC, r.id DESC";

/// "WHERE: written by a newer benchhost (history schema N; ...)".
inline std::string newer_schema(const std::string& where, int version) {
    return where + ": written by a newer benchhost (history schema " + std::to_string(version) +
           "; this one reads up to " + std::to_string(history_schema_version) + "): use that benchhost, or another " +
           (where.find("://") == std::string::npos ? "file" : "database");
}

/// "WHERE: an SQLite database, but not a benchhost history (WHY)".
inline std::string not_a_history(const std::string& where, const std::string& kind, const std::string& why) {
    return where + ": " + kind + " database, but not a benchhost history (" + why + ")";
}

}  // namespace benchhost::history_sql
