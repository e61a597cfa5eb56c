// History: every run, kept in a database, so that a scenario can be followed over
// commits and machines ("when, and at which commit, did this get slower, and where?").
//
// A store holds runs; a run, its scenarios; a scenario, the summary of each of its
// series (median, mean, quantiles, the median's 95% interval, sample count, rounds) and,
// when asked for, the raw samples. The statistics are those the run computed
// (analysis/scenario_statistics.hpp): the store never recomputes them.
//
// A run is stored once, known by its id (HistoryRun::key: RunRecord::run_id, or one
// derived for a folder written before runs had ids): adding it again (the same run
// folder, or a copy of it) changes nothing; a run resumed after it was stored replaces
// what was stored of it (supersedes). Two runs with different ids are two runs, however
// alike. Runs are grouped by machine (a fingerprint of the hardware facts: two runs of
// one scenario are compared only on the same machine).
//
// Backends: an SQLite file (history/sqlite_store.cpp), the default, and a PostgreSQL
// database (history/postgres_store.cpp, for "postgresql://" URLs). The schema is
// versioned (history_schema_version); a database written by a newer benchhost is
// refused, never changed; an older one is migrated whenever it is opened, by a command
// that only reads it too, the same way in both (history/schema_migrations.hpp).
#pragma once

#include <cmath>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <bench/statistics.hpp>

#include "model/run_record.hpp"

namespace benchhost {

/// The version of the history's tables this benchhost writes.
inline constexpr int history_schema_version = 5;

/// A run as the history keeps it.
struct HistoryRun {
    long long id = 0;  // the store's own number; 0 before it is stored
    std::string key;  // the run's id (run_id_of): what makes it the same run when added again
    std::string started_at, finished_at, timestamp;
    std::string commit_id, branch;
    std::string host_name;
    std::string machine;  // fingerprint of the machine (hex)
    std::string machine_text;  // the facts it is made of, for people
    std::string config_hash;  // of the options that change what is measured (hex)
    int shard_index = 0, shard_count = 0;  // 0: not a shard
    std::string source;  // the run folder it came from
    std::string host_version;
    bool complete = false;  // every planned scenario ran
    std::size_t scenarios = 0;  // how many it has (read back)
};

/// One series of a scenario in one run.
struct HistorySeries {
    std::string name, unit;
    bench::Summary summary;  // over the finite samples, as the run computed it
    double ci_low = NAN, ci_high = NAN;  // of the median, 95%
    std::vector<double> samples;  // only with --history-samples
    /// What the run said of the series beside its figures: a graph_breaks count's reasons
    /// (info graph_break_reasons). Empty in a history of schema 4 and older.
    std::string note;
};

struct HistoryScenario {
    std::string scenario_id, plugin, benchmark, status, reason;
    int rounds = 1;
    std::vector<HistorySeries> series;
};

/// What `history list` selects; empty fields select everything.
struct RunFilter {
    std::string machine{};  // a fingerprint, or a prefix of one, or a host name
    std::string branch{};
    std::string since{}, until{};  // ISO 8601 dates or times, compared as text (UTC)
    std::size_t limit = 0;  // the newest N; 0: all
};

/// One point of a scenario's history: one series of it in one run.
struct HistoryPoint {
    /// The run, shared by all the points of it that one query read (a history of 10,000
    /// runs of 50 scenarios reads the 10,000 runs once, not 500,000 copies of them).
    std::shared_ptr<const HistoryRun> run;
    std::string scenario_id, status;
    HistorySeries series;
};

/// What adding a run did.
struct AddResult {
    long long run_id = 0;
    bool added = false;  // false: it was already there
    bool replaced = false;  // it was there, and what was stored of it is replaced (supersedes)
    std::size_t scenarios = 0;
};

class HistoryStore {
public:
    virtual ~HistoryStore() = default;

    /// Adds `record` (read from `source`, a run folder, or the folder a run writes to).
    /// With `samples`, the raw samples too. Idempotent: a run whose id is stored already
    /// changes nothing, unless it supersedes what is stored (a run resumed since), which it
    /// then replaces under the same number. Throws HistoryError.
    virtual AddResult add_run(const RunRecord& record, const std::string& source, bool samples) = 0;

    /// The runs `filter` selects, the newest first.
    virtual std::vector<HistoryRun> runs(const RunFilter& filter) = 0;

    /// The stored points of the scenarios whose id matches `pattern` (a substring, or a
    /// glob with * ? [), every series, oldest run first; only runs `filter` selects.
    virtual std::vector<HistoryPoint> points(const std::string& pattern, const RunFilter& filter,
                                             bool with_samples = false) = 0;

    /// The merged run (`benchhost merge`) that holds `shard` (a shard's row: its index,
    /// count, start and host) among the shards it was merged from; 0 when none is stored.
    /// Adding that shard beside it would count its scenarios twice.
    virtual long long merged_run_holding(const HistoryRun& shard) = 0;

    /// The schema version the database has.
    virtual int schema_version() = 0;
    /// Where it is, for messages ("history.db", "postgresql://host/db").
    virtual std::string where() const = 0;
    /// Its size in bytes, when the backend knows it.
    virtual std::optional<std::uintmax_t> size_bytes() = 0;
};

/// What went wrong with a history, naming it: "history.db: ...".
class HistoryError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// Opens (creates, with `create`) the history at `location`: an SQLite file path, or a
/// PostgreSQL URL ("postgresql://..." or "postgres://...", whose tables are made in an
/// empty database). Throws HistoryError naming the location (a URL without its password):
/// cannot be opened, created or connected to, not a benchhost history, a newer schema,
/// read-only when writing is wanted.
std::unique_ptr<HistoryStore> open_history(const std::string& location, bool create);

/// What `run --dry-run` checks of a history, writing nothing: an SQLite file that exists
/// opens as a benchhost history; one that does not could be made (its folder exists and
/// can be written). A PostgreSQL URL is not connected to. Throws HistoryError as
/// open_history does.
void check_history_location(const std::string& location);

// ---- What a run becomes in the history (history/history_rows.cpp) ----------------

/// The run's id: `record.run_id`, or for a run folder written before runs had ids (an
/// empty run_id), one derived from what identified a run then: sixteen zeros and a
/// fingerprint of when and where it started, its shard and the first sample of each
/// series. The same for the same folder every time, and what history schema 4 made of
/// the runs stored before it.
std::string run_id_of(const RunRecord& record);

/// Whether `added`, a run whose id is stored as `stored`, is a later state of it that
/// should replace it: it finished later (a run resumed since it was stored), or at the
/// same time but complete where the stored one is not. A copy of the folder as it was
/// earlier does not.
bool supersedes(const HistoryRun& added, const HistoryRun& stored);

/// The run's row: its id, machine fingerprint, config hash, branch (from the CI's
/// variables: GITHUB_HEAD_REF, GITHUB_REF_NAME, CI_COMMIT_REF_NAME, BRANCH_NAME,
/// GIT_BRANCH, BENCH_BRANCH; empty when none is set), shard.
HistoryRun history_run_of(const RunRecord& record, const std::string& source);

/// The shards a merged run holds, as rows of their own would have them (index, count,
/// start, host); empty for a run that was not merged.
std::vector<HistoryRun> merged_shards_of(const RunRecord& record);

/// The scenarios of the run, each series with the statistics the run computed.
std::vector<HistoryScenario> history_scenarios_of(const RunRecord& record, bool samples);

/// The machine facts the fingerprint is made of, "host; cpu; cores; memory; gpu".
std::string machine_text(const HardwareInfo& hardware);

}  // namespace benchhost
