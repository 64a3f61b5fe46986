// A minimal SQL connection interface for the SQL catalog, so SQLite and PostgreSQL share
// one catalog implementation. Statements use '?' placeholders.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "arrow/result.h"

namespace floe {

using SqlValue = std::optional<std::string>;  ///< nullopt is SQL NULL.
using SqlRow = std::vector<SqlValue>;

/// One connection. Thread-safe: calls are serialised internally.
class SqlDatabase {
 public:
  virtual ~SqlDatabase() = default;
  SqlDatabase(const SqlDatabase&) = delete;
  SqlDatabase& operator=(const SqlDatabase&) = delete;

  /// Runs a statement and returns the number of rows it changed. A unique-constraint
  /// violation gives AlreadyExists; lock contention beyond the busy timeout gives
  /// CommitFailed; other failures give IOError.
  virtual arrow::Result<int64_t> Execute(std::string_view sql,
                                         const std::vector<SqlValue>& params) = 0;
  /// Runs a query and returns its rows (values as text).
  virtual arrow::Result<std::vector<SqlRow>> Query(
      std::string_view sql, const std::vector<SqlValue>& params) = 0;

 protected:
  SqlDatabase() = default;
};

/// Opens (creating if needed) an SQLite database file; ":memory:" for a private in-memory
/// one.
arrow::Result<std::unique_ptr<SqlDatabase>> OpenSqliteDatabase(const std::string& path);

/// Connects to PostgreSQL. `uri` is a libpq connection URI
/// (postgresql://user@host:5432/db, with query parameters such as host=/socket/dir or
/// sslmode=); `options` are further libpq keywords (user, password, ...) that override
/// the URI's.
arrow::Result<std::unique_ptr<SqlDatabase>> OpenPostgresDatabase(
    const std::string& uri, const std::map<std::string, std::string>& options);

}  // namespace floe
