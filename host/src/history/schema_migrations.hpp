// How a history's tables are made and migrated, once for both backends (sqlite_store.cpp,
// postgres_store.cpp): the version stored is read; a newer one is refused, the database
// left as it is; an older one (or an empty database, version 0) is brought up to
// history_schema_version in one transaction: the tables of version 1 made when there are
// none, then each migration from the version stored up, the version recorded after each.
// The version is read again in the transaction, as another process may have made or
// migrated the tables meanwhile. A backend gives its SQL (the dialects differ) and the
// few operations of SchemaDatabase.
#pragma once

#include <array>
#include <functional>
#include <string>

#include "history/history_sql.hpp"
#include "history/history_store.hpp"

namespace benchhost {

/// A backend's SQL for each version of the history's tables, in its dialect.
struct SchemaSql {
    /// The tables of version 1. A new history is made as version 1, then migrated: every
    /// history goes the same way.
    const char* tables_v1 = nullptr;
    /// migrations[i] takes a history from version i + 1 to version i + 2.
    std::array<const char*, history_schema_version - 1> migrations{};

    /// Whether there is SQL for every version: each backend checks it at compile time
    /// (static_assert), so that raising history_schema_version without a migration in
    /// both dialects does not build.
    constexpr bool complete() const {
        if (tables_v1 == nullptr) return false;
        for (const char* migration : migrations)
            if (migration == nullptr) return false;
        return true;
    }
};

/// What a backend does for migrate_schema().
class SchemaDatabase {
public:
    virtual ~SchemaDatabase() = default;

    /// Where the history is, for messages (a HistoryStore's where() overrides this too).
    virtual std::string where() const = 0;
    /// 0 for an empty database, or the schema version of the history in it; throws
    /// HistoryError for a database that is not a history. Reads in the transaction of
    /// in_transaction() while one is open.
    virtual int read_version() = 0;
    /// What the backend does outside a transaction once `version` (< history_schema_version)
    /// has been read and before the tables are made (0) or migrated; it may refuse.
    virtual void before_schema_change(int /*version*/) {}
    /// Runs `work` in one transaction, which another process making or migrating the same
    /// history waits for; commits when `work` returns, rolls back when it throws.
    virtual void in_transaction(const std::function<void()>& work) = 0;
    /// Executes `sql` (one or more statements without results) in the transaction open.
    virtual void execute(const char* sql) = 0;
};

/// The meta rows of a new history, at version 1; the same text in both dialects.
inline std::string new_meta_sql() {
    return std::string("INSERT INTO meta (key, value) VALUES ('format', '") + history_sql::format +
           "'), ('schema_version', '1')";
}

/// Records `version` as the history's schema version; the same text in both dialects.
inline std::string schema_version_sql(int version) {
    return "UPDATE meta SET value = '" + std::to_string(version) + "' WHERE key = 'schema_version'";
}

/// Brings the history in `database` up to history_schema_version with `sql` (see the top);
/// nothing when it is there already. Throws HistoryError for a newer history, naming its
/// version, and for what `database` throws; a step that fails leaves the database as it
/// was (the transaction is rolled back).
inline void migrate_schema(SchemaDatabase& database, const SchemaSql& sql) {
    const auto refuse_newer = [&](int version) {
        if (version > history_schema_version) throw HistoryError(history_sql::newer_schema(database.where(), version));
    };
    const int stored = database.read_version();  // also: is it a history at all?
    refuse_newer(stored);
    if (stored == history_schema_version) return;
    database.before_schema_change(stored);
    database.in_transaction([&] {
        int version = database.read_version();  // another process may have made or migrated it meanwhile
        refuse_newer(version);
        if (version == 0) {
            database.execute(sql.tables_v1);
            database.execute(new_meta_sql().c_str());
            version = 1;
        }
        for (; version < history_schema_version; ++version) {
            database.execute(sql.migrations.at(static_cast<std::size_t>(version - 1)));
            database.execute(schema_version_sql(version + 1).c_str());
        }
    });
}

}  // namespace benchhost
