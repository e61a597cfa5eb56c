// The history in a PostgreSQL database (history/postgres_store.cpp), through libpqxx.
#pragma once

#include <memory>
#include <string>

#include "history/history_store.hpp"

namespace benchhost {

/// Whether `location` names a PostgreSQL database ("postgresql://...", "postgres://...").
bool is_postgres_location(const std::string& location);

/// `url` without its password ("postgresql://user:secret@host/db" -> "postgresql://user@host/db";
/// also a "password=" parameter), for messages.
std::string url_without_password(const std::string& url);

/// Connects to the database at `url`; makes the history's tables in an empty database
/// (the database itself must be there). Throws HistoryError naming the URL without password.
std::unique_ptr<HistoryStore> open_postgres_history(const std::string& url, bool create);

}  // namespace benchhost
