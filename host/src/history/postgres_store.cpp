// The history in a PostgreSQL database, through libpqxx (Debian's libpqxx-dev): the
// tables, the semantics and the messages of the SQLite store (sqlite_store.cpp). Several
// processes may add runs at once, each run one transaction; a run added twice at once is
// stored once (INSERT ... ON CONFLICT (run_key) DO NOTHING; run_key is the run's id). The tables are made in an
// empty database under an advisory lock, so that processes starting together make them
// once. A database that has other tables, or a newer history, is refused and left as it is.
//
// Values travel as text: doubles with 17 digits (exact), samples as a bytea in hex.
#include "history/postgres_store.hpp"

#include <pqxx/pqxx>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>

#include <fmt/format.h>

#include "history/history_sql.hpp"
#include "history/schema_migrations.hpp"
#include "util/id_pattern.hpp"

namespace benchhost {

namespace {

/// The tables of schema version 1, then the migrations, as sqlite_store.cpp's (which says
/// why). Text that is compared or ordered is compared byte by byte (COLLATE "C"), as
/// SQLite does, whatever the database's locale.
constexpr SchemaSql schema{.tables_v1 = R"sql(
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE runs (
  id BIGSERIAL PRIMARY KEY,
  run_key TEXT NOT NULL UNIQUE,
  started_at TEXT COLLATE "C" NOT NULL, finished_at TEXT NOT NULL, timestamp TEXT NOT NULL,
  commit_id TEXT NOT NULL, branch TEXT NOT NULL, host_name TEXT NOT NULL,
  machine TEXT COLLATE "C" NOT NULL, machine_text TEXT NOT NULL, config_hash TEXT NOT NULL,
  shard_index INTEGER NOT NULL, shard_count INTEGER NOT NULL,
  source TEXT NOT NULL, host_version TEXT NOT NULL, complete INTEGER NOT NULL);
CREATE INDEX runs_by_machine ON runs (machine, started_at);
CREATE TABLE scenarios (
  id BIGSERIAL PRIMARY KEY,
  run_id BIGINT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  scenario_id TEXT COLLATE "C" NOT NULL, plugin TEXT NOT NULL, benchmark TEXT NOT NULL,
  status TEXT NOT NULL, reason TEXT NOT NULL, rounds INTEGER NOT NULL,
  UNIQUE (run_id, scenario_id));
CREATE INDEX scenarios_by_id ON scenarios (scenario_id, run_id);
CREATE TABLE series (
  scenario BIGINT NOT NULL REFERENCES scenarios (id) ON DELETE CASCADE,
  name TEXT COLLATE "C" NOT NULL, unit TEXT NOT NULL, count BIGINT NOT NULL,
  mean DOUBLE PRECISION, median DOUBLE PRECISION, std DOUBLE PRECISION,
  min DOUBLE PRECISION, max DOUBLE PRECISION,
  p25 DOUBLE PRECISION, p75 DOUBLE PRECISION, p90 DOUBLE PRECISION, p95 DOUBLE PRECISION,
  p99 DOUBLE PRECISION, ci_low DOUBLE PRECISION, ci_high DOUBLE PRECISION,
  samples BYTEA,
  PRIMARY KEY (scenario, name));
)sql",
                           .migrations = {R"sql(
CREATE TABLE series_v2 (
  scenario_id TEXT COLLATE "C" NOT NULL,
  run_id BIGINT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  name TEXT COLLATE "C" NOT NULL, unit TEXT NOT NULL, count BIGINT NOT NULL,
  mean DOUBLE PRECISION, median DOUBLE PRECISION, std DOUBLE PRECISION,
  min DOUBLE PRECISION, max DOUBLE PRECISION,
  p25 DOUBLE PRECISION, p75 DOUBLE PRECISION, p90 DOUBLE PRECISION, p95 DOUBLE PRECISION,
  p99 DOUBLE PRECISION, ci_low DOUBLE PRECISION, ci_high DOUBLE PRECISION,
  samples BYTEA,
  CONSTRAINT series_v2_key PRIMARY KEY (scenario_id, run_id, name));
INSERT INTO series_v2
  SELECT s.scenario_id, s.run_id, v.name, v.unit, v.count, v.mean, v.median, v.std, v.min, v.max,
         v.p25, v.p75, v.p90, v.p95, v.p99, v.ci_low, v.ci_high, v.samples
  FROM series v JOIN scenarios s ON s.id = v.scenario;
DROP TABLE series;
ALTER TABLE series_v2 RENAME TO series;
ALTER TABLE series RENAME CONSTRAINT series_v2_key TO series_key;
DROP INDEX scenarios_by_id;
CREATE INDEX scenarios_by_id ON scenarios (scenario_id, run_id, status);
CREATE INDEX runs_by_start ON runs (started_at, id);
)sql",
                                          history_sql::merged_shards_migration, history_sql::run_id_migration,
                                          history_sql::series_note_migration}};
static_assert(schema.complete(), "SQL for every schema version");

/// The advisory lock held while the tables are made or migrated ("benchhst").
constexpr long long schema_lock = 0x62656e6368687374LL;

/// A parameter as text; nullopt is NULL.
using Param = std::optional<std::string>;

Param text(const std::string& value) { return value; }
Param integer(long long value) { return std::to_string(value); }
Param real(double value) {
    if (!std::isfinite(value)) return std::nullopt;  // NaN is no value
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.17g", value);
    return std::string(buffer);
}
/// The doubles' bytes, as bytea's hex input; NULL when there are none.
Param bytes(const std::vector<double>& values) {
    if (values.empty()) return std::nullopt;
    static constexpr char digits[] = "0123456789abcdef";
    std::string out = "\\x";
    out.reserve(2 + values.size() * sizeof(double) * 2);
    const auto* data = reinterpret_cast<const unsigned char*>(values.data());
    for (std::size_t i = 0; i < values.size() * sizeof(double); ++i) {
        out += digits[data[i] >> 4];
        out += digits[data[i] & 15];
    }
    return out;
}

std::string text_of(const pqxx::field& field) { return field.is_null() ? std::string() : field.c_str(); }
long long integer_of(const pqxx::field& field) { return field.is_null() ? 0 : std::atoll(field.c_str()); }
double real_of(const pqxx::field& field) { return field.is_null() ? NAN : std::strtod(field.c_str(), nullptr); }
std::vector<double> doubles_of(const pqxx::field& field) {
    std::vector<double> values;
    if (field.is_null()) return values;
    const char* hex = field.c_str();
    const std::size_t length = std::strlen(hex);
    if (length < 2 || hex[0] != '\\' || hex[1] != 'x') return values;
    std::vector<unsigned char> raw((length - 2) / 2);
    const auto nibble = [](char c) { return c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10; };
    for (std::size_t i = 0; i < raw.size(); ++i)
        raw[i] = static_cast<unsigned char>(nibble(hex[2 + 2 * i]) << 4 | nibble(hex[3 + 2 * i]));
    values.resize(raw.size() / sizeof(double));
    if (!values.empty()) std::memcpy(values.data(), raw.data(), values.size() * sizeof(double));
    return values;
}

/// libpq's message on one line, without the trailing newline.
std::string libpq_message(std::string message) {
    for (std::size_t at; (at = message.find("\n\t")) != std::string::npos;) message.replace(at, 2, " ");
    for (char& c : message)
        if (c == '\n' || c == '\t') c = ' ';
    while (!message.empty() && message.back() == ' ') message.pop_back();
    if (message.starts_with("ERROR:  ")) message.erase(0, 8);
    return message;
}

class PostgresStore final : public HistoryStore, private SchemaDatabase {
public:
    PostgresStore(const std::string& url, bool create) : where_(url_without_password(url)), create_(create) {
        try {
            connection_ = std::make_unique<pqxx::connection>(url);
        } catch (const std::exception& e) {
            throw HistoryError(where_ + ": could not connect: " + libpq_message(e.what()));
        }
        guarded([&] {
            pqxx::nontransaction quiet(*connection_);
            quiet.exec("SET client_min_messages = warning");
        });
        migrate_schema(*this, schema);  // also: is it a history?
    }

    AddResult add_run(const RunRecord& record, const std::string& source, bool samples) override {
        const HistoryRun run = history_run_of(record, source);
        const std::vector<HistoryScenario> scenarios = history_scenarios_of(record, samples);
        AddResult result;
        guarded([&] {
            result = AddResult{};
            pqxx::work transaction(*connection_);
            const pqxx::result inserted =
                exec(transaction,
                     std::string("INSERT INTO ") + history_sql::insert_run_columns +
                         " VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15)"
                         " ON CONFLICT (run_key) DO NOTHING RETURNING id",
                     {text(run.key), text(run.started_at), text(run.finished_at), text(run.timestamp),
                      text(run.commit_id), text(run.branch), text(run.host_name), text(run.machine),
                      text(run.machine_text), text(run.config_hash), integer(run.shard_index), integer(run.shard_count),
                      text(run.source), text(run.host_version), integer(run.complete ? 1 : 0)});
            if (inserted.empty()) {  // stored before (or by a writer beside us)
                // Locked, so that two writers of a later state of the run replace it in turn.
                const pqxx::result existing =
                    exec(transaction, "SELECT id, finished_at, complete FROM runs WHERE run_key = $1 FOR UPDATE",
                         {text(run.key)});
                if (existing.empty()) return;
                result.run_id = integer_of(existing[0][0]);
                HistoryRun stored;
                stored.finished_at = text_of(existing[0][1]);
                stored.complete = integer_of(existing[0][2]) != 0;
                if (!supersedes(run, stored)) return;  // nothing changes
                // The run as it ends now, under the number it had (sqlite_store.cpp says how).
                result.replaced = true;
                exec(transaction,
                     "UPDATE runs SET started_at = $1, finished_at = $2, timestamp = $3, commit_id = $4, branch = $5, "
                     "host_name = $6, machine = $7, machine_text = $8, config_hash = $9, shard_index = $10, "
                     "shard_count = $11, source = $12, host_version = $13, complete = $14 WHERE id = $15",
                     {text(run.started_at), text(run.finished_at), text(run.timestamp), text(run.commit_id),
                      text(run.branch), text(run.host_name), text(run.machine), text(run.machine_text),
                      text(run.config_hash), integer(run.shard_index), integer(run.shard_count), text(run.source),
                      text(run.host_version), integer(run.complete ? 1 : 0), integer(result.run_id)});
                for (const char* sql :
                     {"DELETE FROM series WHERE run_id = $1 AND scenario_id IN (SELECT scenario_id FROM scenarios "
                      "WHERE run_id = $1)",
                      "DELETE FROM scenarios WHERE run_id = $1", "DELETE FROM merged_shards WHERE run_id = $1"})
                    exec(transaction, sql, {integer(result.run_id)});
            } else {
                result.run_id = integer_of(inserted[0][0]);
            }
            const std::string insert_scenario =
                std::string("INSERT INTO ") + history_sql::insert_scenario_columns + " VALUES ($1,$2,$3,$4,$5,$6,$7)";
            const std::string insert_series =
                std::string("INSERT INTO ") + history_sql::insert_series_columns +
                " VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18,$19)";
            for (const HistoryRun& shard : merged_shards_of(record))
                exec(
                    transaction,
                    std::string("INSERT INTO ") + history_sql::insert_merged_shard_columns + " VALUES ($1,$2,$3,$4,$5)",
                    {integer(result.run_id), integer(shard.shard_index), integer(shard.shard_count),
                     text(shard.started_at), text(shard.host_name)});
            for (const HistoryScenario& scenario : scenarios) {
                exec(
                    transaction, insert_scenario,
                    {integer(result.run_id), text(scenario.scenario_id), text(scenario.plugin),
                     text(scenario.benchmark), text(scenario.status), text(scenario.reason), integer(scenario.rounds)});
                for (const HistorySeries& s : scenario.series) {
                    const bench::Summary& m = s.summary;
                    exec(transaction, insert_series,
                         {text(scenario.scenario_id), integer(result.run_id), text(s.name), text(s.unit),
                          integer(static_cast<long long>(m.count)), real(m.mean), real(m.median), real(m.std),
                          real(m.min), real(m.max), real(m.p25), real(m.p75), real(m.p90), real(m.p95), real(m.p99),
                          real(s.ci_low), real(s.ci_high), bytes(s.samples), text(s.note)});
                }
                ++result.scenarios;
            }
            transaction.commit();
            result.added = !result.replaced;
        });
        return result;
    }

    std::vector<HistoryRun> runs(const RunFilter& filter) override {
        std::vector<Param> params;
        std::string sql = std::string("SELECT ") + history_sql::run_columns +
                          ", (SELECT count(*) FROM scenarios s WHERE s.run_id = r.id) FROM runs r" +
                          where_clause(filter, params) + history_sql::run_order;
        if (filter.limit > 0) sql += " LIMIT " + std::to_string(filter.limit);
        std::vector<HistoryRun> out;
        guarded([&] {
            out.clear();
            pqxx::read_transaction transaction(*connection_);
            for (const pqxx::row& row : exec(transaction, sql, params)) {
                HistoryRun run = run_of(row);
                run.scenarios = static_cast<std::size_t>(integer_of(row[history_sql::run_column_count]));
                out.push_back(std::move(run));
            }
        });
        return out;
    }

    std::vector<HistoryPoint> points(const std::string& pattern, const RunFilter& filter, bool with_samples) override {
        std::vector<HistoryPoint> out;
        guarded([&] {
            out.clear();
            pqxx::read_transaction transaction(*connection_);
            std::vector<std::string> ids;
            for (const pqxx::row& row : transaction.exec(history_sql::distinct_scenario_ids))
                if (std::string id = text_of(row[0]); matches_pattern(id, pattern)) ids.push_back(std::move(id));
            std::vector<Param> params;
            const std::string where = where_clause(filter, params, "s.scenario_id = $");
            const std::string sql = std::string("SELECT ") + history_sql::run_columns + ", " +
                                    history_sql::point_columns + (with_samples ? ", v.samples" : ", NULL") +
                                    history_sql::point_from + where + history_sql::point_order;
            std::map<long long, std::shared_ptr<const HistoryRun>> runs_read;
            for (const std::string& id : ids) {
                params.back() = id;
                for (const pqxx::row& row : exec(transaction, sql, params)) {
                    HistoryPoint point;
                    std::shared_ptr<const HistoryRun>& run = runs_read[integer_of(row[0])];
                    if (!run) run = std::make_shared<const HistoryRun>(run_of(row));
                    point.run = run;
                    int i = history_sql::run_column_count;
                    point.scenario_id = text_of(row[i++]);
                    point.status = text_of(row[i++]);
                    HistorySeries& s = point.series;
                    s.name = text_of(row[i++]);
                    s.unit = text_of(row[i++]);
                    bench::Summary& m = s.summary;
                    m.count = static_cast<std::size_t>(integer_of(row[i++]));
                    for (double* field : {&m.mean, &m.median, &m.std, &m.min, &m.max, &m.p25, &m.p75, &m.p90, &m.p95,
                                          &m.p99, &s.ci_low, &s.ci_high})
                        *field = real_of(row[i++]);
                    s.note = text_of(row[i++]);
                    if (with_samples) s.samples = doubles_of(row[i]);
                    out.push_back(std::move(point));
                }
            }
        });
        return out;
    }

    long long merged_run_holding(const HistoryRun& shard) override {
        long long id = 0;
        guarded([&] {
            pqxx::read_transaction transaction(*connection_);
            const pqxx::result found =
                exec(transaction,
                     "SELECT run_id FROM merged_shards WHERE started_at = $1 AND host_name = $2 AND shard_index = $3 "
                     "AND shard_count = $4 ORDER BY run_id LIMIT 1",
                     {text(shard.started_at), text(shard.host_name), integer(shard.shard_index),
                      integer(shard.shard_count)});
            id = found.empty() ? 0 : integer_of(found[0][0]);
        });
        return id;
    }

    int schema_version() override {
        int version = 0;
        guarded([&] {
            pqxx::read_transaction transaction(*connection_);
            version = read_version(transaction);
        });
        return version;
    }
    std::string where() const override { return where_; }
    std::optional<std::uintmax_t> size_bytes() override {
        std::uintmax_t size = 0;
        guarded([&] {
            pqxx::read_transaction transaction(*connection_);
            size = static_cast<std::uintmax_t>(
                integer_of(transaction.exec("SELECT pg_database_size(current_database())")[0][0]));
        });
        return size;
    }

private:
    /// Runs `work`, turning libpqxx's exceptions into HistoryError naming the database.
    template <typename Work>
    void guarded(Work&& work) {
        try {
            work();
        } catch (const HistoryError&) {
            throw;
        } catch (const pqxx::broken_connection& e) {
            throw HistoryError(where_ + ": lost the connection: " + libpq_message(e.what()));
        } catch (const std::exception& e) {
            throw HistoryError(where_ + ": " + libpq_message(e.what()));
        }
    }

    static pqxx::result exec(pqxx::transaction_base& transaction, const std::string& sql,
                             const std::vector<Param>& params) {
        std::vector<const char*> raw;
        raw.reserve(params.size());
        for (const Param& param : params) raw.push_back(param ? param->c_str() : nullptr);
        return transaction.exec_params(sql, pqxx::prepare::make_dynamic_params(raw));
    }

    /// 0 for a database without tables; the schema version of a history; HistoryError
    /// for another database.
    int read_version(pqxx::transaction_base& transaction) {
        const pqxx::result tables = transaction.exec(
            "SELECT count(*), count(*) FILTER (WHERE table_name = 'meta') FROM information_schema.tables "
            "WHERE table_schema = current_schema()");
        if (integer_of(tables[0][0]) == 0) return 0;
        if (integer_of(tables[0][1]) == 0)
            throw HistoryError(history_sql::not_a_history(where_, "a PostgreSQL", "it has no meta table"));
        std::map<std::string, std::string> values;
        for (const pqxx::row& row :
             transaction.exec("SELECT key, value FROM meta WHERE key IN ('format', 'schema_version')"))
            values[text_of(row[0])] = text_of(row[1]);
        if (values["format"] != history_sql::format)
            throw HistoryError(
                history_sql::not_a_history(where_, "a PostgreSQL", "meta.format is '" + values["format"] + "'"));
        try {
            return std::stoi(values["schema_version"]);
        } catch (const std::exception&) {
            throw HistoryError(where_ + ": its schema_version is not a number: '" + values["schema_version"] + "'");
        }
    }

    // What migrate_schema (history/schema_migrations.hpp) makes and migrates the tables with.

    int read_version() override {
        if (schema_transaction_ != nullptr) return read_version(*schema_transaction_);
        return schema_version();
    }

    void before_schema_change(int version) override {
        if (version == 0 && !create_)
            throw HistoryError(where_ + ": no history there (a run with --history " + where_ + " makes one)");
    }

    /// The tables are made or migrated once: the processes that start together wait for
    /// each other on an advisory lock, held to the end of the transaction.
    void in_transaction(const std::function<void()>& work) override {
        guarded([&] {
            pqxx::work transaction(*connection_);
            transaction.exec("SELECT pg_advisory_xact_lock(" + std::to_string(schema_lock) + ")");
            schema_transaction_ = &transaction;
            try {
                work();
            } catch (...) {
                schema_transaction_ = nullptr;
                throw;
            }
            schema_transaction_ = nullptr;
            transaction.commit();
        });
    }

    void execute(const char* sql) override {
        if (schema_transaction_ == nullptr) throw std::logic_error("PostgresStore::execute outside a transaction");
        schema_transaction_->exec(sql);
    }

    /// " WHERE ..." for `filter`, its values appended to `params` ($1, $2, ... in order);
    /// with `extra`, a term that ends in "$" and takes one more parameter (left empty).
    static std::string where_clause(const RunFilter& filter, std::vector<Param>& params,
                                    const std::string& extra = "") {
        std::vector<std::string> terms;
        const auto next = [&](const std::string& value) {
            params.push_back(value);
            return fmt::format("${}::text", params.size());
        };
        if (!filter.machine.empty()) {
            const std::string machine = next(filter.machine);
            // ILIKE: SQLite's LIKE ignores the case of ASCII letters too.
            terms.push_back("(r.machine ILIKE " + machine + " || '%' OR r.host_name = " + machine + ")");
        }
        if (!filter.branch.empty()) terms.push_back("r.branch = " + next(filter.branch));
        if (!filter.since.empty()) terms.push_back("r.started_at >= " + next(filter.since));
        if (!filter.until.empty()) terms.push_back("r.started_at <= " + next(filter.until));
        if (!extra.empty()) terms.push_back(extra.substr(0, extra.size() - 1) + next(""));
        std::string out;
        for (std::size_t i = 0; i < terms.size(); ++i) out += (i == 0 ? " WHERE " : " AND ") + terms[i];
        return out;
    }

    static HistoryRun run_of(const pqxx::row& row) {
        HistoryRun run;
        run.id = integer_of(row[0]);
        run.key = text_of(row[1]);
        run.started_at = text_of(row[2]);
        run.finished_at = text_of(row[3]);
        run.timestamp = text_of(row[4]);
        run.commit_id = text_of(row[5]);
        run.branch = text_of(row[6]);
        run.host_name = text_of(row[7]);
        run.machine = text_of(row[8]);
        run.machine_text = text_of(row[9]);
        run.config_hash = text_of(row[10]);
        run.shard_index = static_cast<int>(integer_of(row[11]));
        run.shard_count = static_cast<int>(integer_of(row[12]));
        run.source = text_of(row[13]);
        run.host_version = text_of(row[14]);
        run.complete = integer_of(row[15]) != 0;
        return run;
    }

    std::string where_;
    bool create_ = false;  // make the tables in an empty database
    std::unique_ptr<pqxx::connection> connection_;
    pqxx::work* schema_transaction_ = nullptr;  // while in_transaction() runs
};

}  // namespace

bool is_postgres_location(const std::string& location) {
    return location.starts_with("postgresql://") || location.starts_with("postgres://");
}

std::string url_without_password(const std::string& url) {
    std::string out = url;
    const std::size_t scheme = out.find("://");
    if (scheme == std::string::npos) return out;
    const std::size_t host_start = scheme + 3;
    const std::size_t authority_end = std::min(out.find_first_of("/?#", host_start), out.size());
    const std::size_t at = out.rfind('@', authority_end == 0 ? 0 : authority_end - 1);
    if (at != std::string::npos && at >= host_start) {
        const std::size_t colon = out.find(':', host_start);
        if (colon != std::string::npos && colon < at) out.erase(colon, at - colon);
    }
    // A password given as a parameter: "?password=..." or "&password=...".
    const std::size_t query = out.find('?');
    if (query != std::string::npos) {
        for (std::size_t at_param = query; at_param < out.size();) {
            const std::size_t end = std::min(out.find('&', at_param + 1), out.size());
            const std::size_t name = at_param + 1;
            if (out.compare(name, 9, "password=") == 0) {
                // Keep the separator before it, unless it is the last parameter.
                if (end < out.size()) out.erase(name, end - name + 1);
                else out.erase(at_param, end - at_param);
                continue;
            }
            at_param = end;
        }
    }
    return out;
}

std::unique_ptr<HistoryStore> open_postgres_history(const std::string& url, bool create) {
    return std::make_unique<PostgresStore>(url, create);
}

}  // namespace benchhost
