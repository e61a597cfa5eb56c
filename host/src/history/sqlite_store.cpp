// The history in an SQLite file (Debian's libsqlite3). WAL journal and a busy timeout:
// several processes may add runs to one file at once (each run one transaction), and
// readers never wait for writers. A file that is not an SQLite database, or not a
// benchhost history, is refused and left as it is.
#include <sqlite3.h>
#include <unistd.h>

#include <cstring>
#include <functional>
#include <map>

#include "history/history_sql.hpp"
#include "history/history_store.hpp"
#include "history/postgres_store.hpp"
#include "history/schema_migrations.hpp"
#include "util/id_pattern.hpp"

namespace benchhost {

namespace fs = std::filesystem;

namespace {

/// The tables of schema version 1 (runs, their scenarios, each scenario's series), then
/// the migrations (schema_migrations.hpp):
///
/// 2: a scenario's series are stored together, in run order (a table without rowid,
/// keyed by scenario id, run and series name), and its runs' statuses are in the index
/// of scenario ids: reading one scenario of 10,000 runs of 50 scenarios then reads a few
/// hundred pages instead of a page a run. The runs are indexed by start, so that the
/// newest are found without sorting them all.
///
/// 3: the shards of each merged run (history_sql::merged_shards_migration).
///
/// 4: runs are known by their id (history_sql::run_id_migration).
///
/// 5: a series' note (history_sql::series_note_migration).
constexpr SchemaSql sqlite_schema{.tables_v1 = R"sql(
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE runs (
  id INTEGER PRIMARY KEY,
  run_key TEXT NOT NULL UNIQUE,
  started_at TEXT NOT NULL, finished_at TEXT NOT NULL, timestamp TEXT NOT NULL,
  commit_id TEXT NOT NULL, branch TEXT NOT NULL, host_name TEXT NOT NULL,
  machine TEXT NOT NULL, machine_text TEXT NOT NULL, config_hash TEXT NOT NULL,
  shard_index INTEGER NOT NULL, shard_count INTEGER NOT NULL,
  source TEXT NOT NULL, host_version TEXT NOT NULL, complete INTEGER NOT NULL);
CREATE INDEX runs_by_machine ON runs (machine, started_at);
CREATE TABLE scenarios (
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  scenario_id TEXT NOT NULL, plugin TEXT NOT NULL, benchmark TEXT NOT NULL,
  status TEXT NOT NULL, reason TEXT NOT NULL, rounds INTEGER NOT NULL,
  UNIQUE (run_id, scenario_id));
CREATE INDEX scenarios_by_id ON scenarios (scenario_id, run_id);
CREATE TABLE series (
  scenario INTEGER NOT NULL REFERENCES scenarios (id) ON DELETE CASCADE,
  name TEXT NOT NULL, unit TEXT NOT NULL, count INTEGER NOT NULL,
  mean REAL, median REAL, std REAL, min REAL, max REAL,
  p25 REAL, p75 REAL, p90 REAL, p95 REAL, p99 REAL, ci_low REAL, ci_high REAL,
  samples BLOB,
  PRIMARY KEY (scenario, name));
)sql",
                                  .migrations = {R"sql(
CREATE TABLE series_v2 (
  scenario_id TEXT NOT NULL,
  run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  name TEXT NOT NULL, unit TEXT NOT NULL, count INTEGER NOT NULL,
  mean REAL, median REAL, std REAL, min REAL, max REAL,
  p25 REAL, p75 REAL, p90 REAL, p95 REAL, p99 REAL, ci_low REAL, ci_high REAL,
  samples BLOB,
  PRIMARY KEY (scenario_id, run_id, name)) WITHOUT ROWID;
INSERT INTO series_v2
  SELECT s.scenario_id, s.run_id, v.name, v.unit, v.count, v.mean, v.median, v.std, v.min, v.max,
         v.p25, v.p75, v.p90, v.p95, v.p99, v.ci_low, v.ci_high, v.samples
  FROM series v JOIN scenarios s ON s.id = v.scenario;
DROP TABLE series;
ALTER TABLE series_v2 RENAME TO series;
DROP INDEX scenarios_by_id;
CREATE INDEX scenarios_by_id ON scenarios (scenario_id, run_id, status);
CREATE INDEX runs_by_start ON runs (started_at, id);
)sql",
                                                 history_sql::merged_shards_migration, history_sql::run_id_migration,
                                                 history_sql::series_note_migration}};
static_assert(sqlite_schema.complete(), "SQL for every schema version");

class Statement {
public:
    Statement(sqlite3* db, const char* sql, const std::string& where) : where_(where) {
        if (sqlite3_prepare_v2(db, sql, -1, &statement_, nullptr) != SQLITE_OK)
            throw HistoryError(where + ": " + sqlite3_errmsg(db));
    }
    ~Statement() { sqlite3_finalize(statement_); }
    Statement(const Statement&) = delete;
    Statement& operator=(const Statement&) = delete;

    Statement& bind(int i, const std::string& text) {
        sqlite3_bind_text(statement_, i, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
        return *this;
    }
    Statement& bind(int i, long long value) {
        sqlite3_bind_int64(statement_, i, value);
        return *this;
    }
    Statement& bind(int i, double value) {
        if (std::isfinite(value)) sqlite3_bind_double(statement_, i, value);
        else sqlite3_bind_null(statement_, i);  // NaN is no value
        return *this;
    }
    Statement& bind_blob(int i, const std::vector<double>& values) {
        if (values.empty()) sqlite3_bind_null(statement_, i);
        else
            sqlite3_bind_blob(statement_, i, values.data(), static_cast<int>(values.size() * sizeof(double)),
                              SQLITE_TRANSIENT);
        return *this;
    }
    /// True while there is a row.
    bool step() {
        const int status = sqlite3_step(statement_);
        if (status == SQLITE_ROW) return true;
        if (status == SQLITE_DONE) return false;
        throw HistoryError(where_ + ": " + sqlite3_errmsg(sqlite3_db_handle(statement_)));
    }
    void reset() {
        sqlite3_reset(statement_);
        sqlite3_clear_bindings(statement_);
    }
    std::string text(int i) const {
        const unsigned char* value = sqlite3_column_text(statement_, i);
        return value == nullptr ? std::string() : reinterpret_cast<const char*>(value);
    }
    long long integer(int i) const { return sqlite3_column_int64(statement_, i); }
    double number(int i) const {
        return sqlite3_column_type(statement_, i) == SQLITE_NULL ? NAN : sqlite3_column_double(statement_, i);
    }
    std::vector<double> doubles(int i) const {
        const auto* bytes = static_cast<const char*>(sqlite3_column_blob(statement_, i));
        const int size = sqlite3_column_bytes(statement_, i);
        std::vector<double> values(static_cast<std::size_t>(size) / sizeof(double));
        if (bytes != nullptr && !values.empty()) std::memcpy(values.data(), bytes, values.size() * sizeof(double));
        return values;
    }

private:
    sqlite3_stmt* statement_ = nullptr;
    std::string where_;
};

class SqliteStore final : public HistoryStore, private SchemaDatabase {
public:
    SqliteStore(const std::string& path, bool create) : path_(path) {
        std::error_code ec;
        const bool exists = fs::exists(path, ec);
        if (!exists && !create)
            throw HistoryError(path + ": no history there (a run with --history " + path + " makes one)");
        if (exists && fs::is_directory(path, ec)) throw HistoryError(path + ": is a folder, not a history file");
        const int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0) | SQLITE_OPEN_NOMUTEX;
        if (sqlite3_open_v2(path.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
            const std::string why = db_ != nullptr ? sqlite3_errmsg(db_) : "out of memory";
            sqlite3_close(db_);
            db_ = nullptr;
            throw HistoryError(path + ": cannot open: " + why);
        }
        try {
            sqlite3_busy_timeout(db_, 30000);
            execute("PRAGMA foreign_keys = ON");
            migrate_schema(*this, sqlite_schema);  // also: is it a database, a history?
            if (sqlite3_db_readonly(db_, "main") == 1)
                throw HistoryError(path + ": read-only (benchhost adds runs to it)");
        } catch (...) {
            sqlite3_close(db_);
            db_ = nullptr;
            throw;
        }
    }
    ~SqliteStore() override { sqlite3_close(db_); }

    AddResult add_run(const RunRecord& record, const std::string& source, bool samples) override {
        const HistoryRun run = history_run_of(record, source);
        AddResult result;
        Transaction transaction(*this);
        {
            Statement existing(db_, "SELECT id, finished_at, complete FROM runs WHERE run_key = ?", path_);
            if (existing.bind(1, run.key).step()) {
                result.run_id = existing.integer(0);
                HistoryRun stored;
                stored.finished_at = existing.text(1);
                stored.complete = existing.integer(2) != 0;
                if (!supersedes(run, stored)) return result;  // stored before: nothing changes
                result.replaced = true;
            }
        }
        if (result.replaced) {
            // The run as it ends now, under the number it had: its row rewritten, what it
            // held deleted and written again. The series first: they belong to the run,
            // not to its scenarios' rows.
            Statement update(db_,
                             "UPDATE runs SET started_at = ?, finished_at = ?, timestamp = ?, commit_id = ?, "
                             "branch = ?, host_name = ?, machine = ?, machine_text = ?, config_hash = ?, "
                             "shard_index = ?, shard_count = ?, source = ?, host_version = ?, complete = ? "
                             "WHERE id = ?",
                             path_);
            update.bind(1, run.started_at).bind(2, run.finished_at).bind(3, run.timestamp).bind(4, run.commit_id);
            update.bind(5, run.branch).bind(6, run.host_name).bind(7, run.machine).bind(8, run.machine_text);
            update.bind(9, run.config_hash).bind(10, static_cast<long long>(run.shard_index));
            update.bind(11, static_cast<long long>(run.shard_count)).bind(12, run.source);
            update.bind(13, run.host_version).bind(14, static_cast<long long>(run.complete));
            update.bind(15, result.run_id).step();
            for (const char* sql :
                 {"DELETE FROM series WHERE run_id = ?1 AND scenario_id IN (SELECT scenario_id FROM scenarios WHERE "
                  "run_id = ?1)",
                  "DELETE FROM scenarios WHERE run_id = ?1", "DELETE FROM merged_shards WHERE run_id = ?1"}) {
                Statement remove(db_, sql, path_);
                remove.bind(1, result.run_id).step();
            }
        } else {
            Statement insert_run(db_,
                                 (std::string("INSERT INTO ") + history_sql::insert_run_columns +
                                  " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)")
                                     .c_str(),
                                 path_);
            insert_run.bind(1, run.key).bind(2, run.started_at).bind(3, run.finished_at).bind(4, run.timestamp);
            insert_run.bind(5, run.commit_id).bind(6, run.branch).bind(7, run.host_name).bind(8, run.machine);
            insert_run.bind(9, run.machine_text).bind(10, run.config_hash);
            insert_run.bind(11, static_cast<long long>(run.shard_index))
                .bind(12, static_cast<long long>(run.shard_count));
            insert_run.bind(13, run.source).bind(14, run.host_version).bind(15, static_cast<long long>(run.complete));
            insert_run.step();
            result.run_id = sqlite3_last_insert_rowid(db_);
        }

        Statement insert_scenario(
            db_,
            (std::string("INSERT INTO ") + history_sql::insert_scenario_columns + " VALUES (?,?,?,?,?,?,?)").c_str(),
            path_);
        Statement insert_series(db_,
                                (std::string("INSERT INTO ") + history_sql::insert_series_columns +
                                 " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)")
                                    .c_str(),
                                path_);
        Statement insert_shard(
            db_,
            (std::string("INSERT INTO ") + history_sql::insert_merged_shard_columns + " VALUES (?,?,?,?,?)").c_str(),
            path_);
        for (const HistoryRun& shard : merged_shards_of(record)) {
            insert_shard.reset();
            insert_shard.bind(1, result.run_id).bind(2, static_cast<long long>(shard.shard_index));
            insert_shard.bind(3, static_cast<long long>(shard.shard_count)).bind(4, shard.started_at);
            insert_shard.bind(5, shard.host_name).step();
        }
        for (const HistoryScenario& scenario : history_scenarios_of(record, samples)) {
            insert_scenario.reset();
            insert_scenario.bind(1, result.run_id).bind(2, scenario.scenario_id).bind(3, scenario.plugin);
            insert_scenario.bind(4, scenario.benchmark).bind(5, scenario.status).bind(6, scenario.reason);
            insert_scenario.bind(7, static_cast<long long>(scenario.rounds));
            insert_scenario.step();
            for (const HistorySeries& s : scenario.series) {
                insert_series.reset();
                insert_series.bind(1, scenario.scenario_id).bind(2, result.run_id).bind(3, s.name).bind(4, s.unit);
                const bench::Summary& m = s.summary;
                insert_series.bind(5, static_cast<long long>(m.count));
                int i = 6;
                for (const double value :
                     {m.mean, m.median, m.std, m.min, m.max, m.p25, m.p75, m.p90, m.p95, m.p99, s.ci_low, s.ci_high})
                    insert_series.bind(i++, value);
                insert_series.bind_blob(i++, s.samples);
                insert_series.bind(i, s.note);
                insert_series.step();
            }
            ++result.scenarios;
        }
        transaction.commit();
        result.added = !result.replaced;
        return result;
    }

    std::vector<HistoryRun> runs(const RunFilter& filter) override {
        std::string sql = std::string("SELECT ") + history_sql::run_columns +
                          ", (SELECT count(*) FROM scenarios s WHERE s.run_id = r.id) FROM runs r" +
                          where_clause(filter) + history_sql::run_order;
        if (filter.limit > 0) sql += " LIMIT " + std::to_string(filter.limit);
        Statement select(db_, sql.c_str(), path_);
        bind_filter(select, filter);
        std::vector<HistoryRun> out;
        while (select.step()) {
            HistoryRun run = run_of(select, 0);
            run.scenarios = static_cast<std::size_t>(select.integer(16));
            out.push_back(std::move(run));
        }
        return out;
    }

    std::vector<HistoryPoint> points(const std::string& pattern, const RunFilter& filter, bool with_samples) override {
        std::vector<std::string> ids;
        {
            Statement distinct(db_, history_sql::distinct_scenario_ids, path_);
            while (distinct.step())
                if (const std::string id = distinct.text(0); matches_pattern(id, pattern)) ids.push_back(id);
        }
        std::vector<HistoryPoint> out;
        std::string sql = std::string("SELECT ") + history_sql::run_columns + ", " + history_sql::point_columns +
                          (with_samples ? ", v.samples" : ", NULL") + history_sql::point_from +
                          where_clause(filter, "s.scenario_id = ?9") + history_sql::point_order;
        Statement select(db_, sql.c_str(), path_);
        std::map<long long, std::shared_ptr<const HistoryRun>> runs_read;
        for (const std::string& id : ids) {
            select.reset();
            bind_filter(select, filter);
            select.bind(9, id);
            while (select.step()) {
                HistoryPoint point;
                std::shared_ptr<const HistoryRun>& run = runs_read[select.integer(0)];
                if (!run) run = std::make_shared<const HistoryRun>(run_of(select, 0));
                point.run = run;
                point.scenario_id = select.text(16);
                point.status = select.text(17);
                HistorySeries& s = point.series;
                s.name = select.text(18);
                s.unit = select.text(19);
                bench::Summary& m = s.summary;
                m.count = static_cast<std::size_t>(select.integer(20));
                double* fields[] = {&m.mean, &m.median, &m.std, &m.min, &m.max,    &m.p25,
                                    &m.p75,  &m.p90,    &m.p95, &m.p99, &s.ci_low, &s.ci_high};
                int i = 21;
                for (double* field : fields) *field = select.number(i++);
                s.note = select.text(i++);
                if (with_samples) s.samples = select.doubles(i);
                out.push_back(std::move(point));
            }
        }
        return out;
    }

    long long merged_run_holding(const HistoryRun& shard) override {
        Statement select(db_,
                         "SELECT run_id FROM merged_shards WHERE started_at = ? AND host_name = ? AND shard_index = ? "
                         "AND shard_count = ? ORDER BY run_id LIMIT 1",
                         path_);
        select.bind(1, shard.started_at).bind(2, shard.host_name);
        select.bind(3, static_cast<long long>(shard.shard_index)).bind(4, static_cast<long long>(shard.shard_count));
        return select.step() ? select.integer(0) : 0;
    }

    int schema_version() override { return read_version(); }
    std::string where() const override { return path_; }
    std::optional<std::uintmax_t> size_bytes() override {
        std::error_code ec;
        std::uintmax_t total = 0;
        for (const std::string suffix : {"", "-wal"}) {
            const auto size = fs::file_size(path_ + suffix, ec);
            if (!ec) total += size;
        }
        return total;
    }

private:
    /// BEGIN IMMEDIATE ... COMMIT, or ROLLBACK when it is left without commit().
    class Transaction {
    public:
        explicit Transaction(SqliteStore& store) : store_(store) { store_.execute("BEGIN IMMEDIATE"); }
        ~Transaction() {
            if (!committed_) sqlite3_exec(store_.db_, "ROLLBACK", nullptr, nullptr, nullptr);
        }
        void commit() {
            store_.execute("COMMIT");
            committed_ = true;
        }

    private:
        SqliteStore& store_;
        bool committed_ = false;
    };

    void execute(const char* sql) override {
        char* error = nullptr;
        if (sqlite3_exec(db_, sql, nullptr, nullptr, &error) != SQLITE_OK) {
            const std::string why = error != nullptr ? error : sqlite3_errmsg(db_);
            sqlite3_free(error);
            throw HistoryError(path_ + ": " + why);
        }
    }

    /// 0 for an empty database; the schema version of a history; HistoryError for
    /// anything else (not a database, another database).
    int read_version() override {
        Statement tables(db_, "SELECT count(*) FROM sqlite_master", path_);
        tables.step();
        if (tables.integer(0) == 0) return 0;
        Statement has_meta(db_, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'meta'", path_);
        has_meta.step();
        if (has_meta.integer(0) == 0)
            throw HistoryError(history_sql::not_a_history(path_, "an SQLite", "it has no meta table"));
        Statement meta(db_, "SELECT key, value FROM meta WHERE key IN ('format', 'schema_version')", path_);
        std::map<std::string, std::string> values;
        while (meta.step()) values[meta.text(0)] = meta.text(1);
        if (values["format"] != history_sql::format)
            throw HistoryError(
                history_sql::not_a_history(path_, "an SQLite", "meta.format is '" + values["format"] + "'"));
        try {
            return std::stoi(values["schema_version"]);
        } catch (const std::exception&) {
            throw HistoryError(path_ + ": its schema_version is not a number: '" + values["schema_version"] + "'");
        }
    }

    void before_schema_change(int version) override {
        // WAL lets readers go on while one process writes; it stays set in the file. It is
        // set outside a transaction, as SQLite wants.
        if (version == 0) execute("PRAGMA journal_mode = WAL");
    }

    void in_transaction(const std::function<void()>& work) override {
        Transaction transaction(*this);
        work();
        transaction.commit();
    }

    /// " WHERE ..." for `filter` (parameters ?1 .. ?8), and `extra` (with its own).
    static std::string where_clause(const RunFilter& filter, const std::string& extra = "") {
        std::vector<std::string> terms;
        if (!filter.machine.empty()) terms.emplace_back("(r.machine LIKE ?1 || '%' OR r.host_name = ?1)");
        if (!filter.branch.empty()) terms.emplace_back("r.branch = ?2");
        if (!filter.since.empty()) terms.emplace_back("r.started_at >= ?3");
        if (!filter.until.empty()) terms.emplace_back("r.started_at <= ?4");
        if (!extra.empty()) terms.push_back(extra);
        std::string out;
        for (std::size_t i = 0; i < terms.size(); ++i) out += (i == 0 ? " WHERE " : " AND ") + terms[i];
        return out;
    }
    static void bind_filter(Statement& statement, const RunFilter& filter) {
        if (!filter.machine.empty()) statement.bind(1, filter.machine);
        if (!filter.branch.empty()) statement.bind(2, filter.branch);
        if (!filter.since.empty()) statement.bind(3, filter.since);
        if (!filter.until.empty()) statement.bind(4, filter.until);
    }

    static HistoryRun run_of(const Statement& row, int at) {
        HistoryRun run;
        run.id = row.integer(at);
        run.key = row.text(at + 1);
        run.started_at = row.text(at + 2);
        run.finished_at = row.text(at + 3);
        run.timestamp = row.text(at + 4);
        run.commit_id = row.text(at + 5);
        run.branch = row.text(at + 6);
        run.host_name = row.text(at + 7);
        run.machine = row.text(at + 8);
        run.machine_text = row.text(at + 9);
        run.config_hash = row.text(at + 10);
        run.shard_index = static_cast<int>(row.integer(at + 11));
        run.shard_count = static_cast<int>(row.integer(at + 12));
        run.source = row.text(at + 13);
        run.host_version = row.text(at + 14);
        run.complete = row.integer(at + 15) != 0;
        return run;
    }

    std::string path_;
    sqlite3* db_ = nullptr;
};

}  // namespace

std::unique_ptr<HistoryStore> open_history(const std::string& location, bool create) {
    if (location.empty()) throw HistoryError("--history: an empty location");
    if (is_postgres_location(location)) return open_postgres_history(location, create);
    return std::make_unique<SqliteStore>(location, create);
}

void check_history_location(const std::string& location) {
    if (location.empty()) throw HistoryError("--history: an empty location");
    if (is_postgres_location(location)) return;
    std::error_code ec;
    if (fs::exists(location, ec)) {
        SqliteStore(location, false);
        return;
    }
    const fs::path folder = fs::absolute(location, ec).parent_path();
    if (!fs::is_directory(folder, ec))
        throw HistoryError(location + ": cannot be made: its folder " + folder.string() + " does not exist");
    if (::access(folder.c_str(), W_OK) != 0)
        throw HistoryError(location + ": cannot be made: its folder " + folder.string() + " cannot be written");
}

}  // namespace benchhost
