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
#include "floe/util/env.h"

namespace floe {

using SqlValue = std::optional<std::string>;  ///< nullopt is SQL NULL.
using SqlRow = std::vector<SqlValue>;

/// One connection. Thread-safe: calls are serialised internally.
class SqlDatabase {
 public:
  virtual ~SqlDatabase() = default;
  SqlDatabase(const SqlDatabase&) = delete;
  SqlDatabase& operator=(const SqlDatabase&) = delete;

  /// How long a statement waits for a lock another connection holds, unless told
  /// otherwise (Python's sqlite3 waits 5 s, iceberg-java's sqlite-jdbc 3 s). A commit
  /// that gives up fails as a lost race, which the commit retry loop retries within
  /// commit.retry.num-retries and commit.retry.total-timeout-ms.
  static constexpr int64_t kDefaultLockWaitMs = 5000;

  /// Runs a statement and returns the number of rows it changed, waiting at most
  /// `lock_wait_ms` for a lock another connection holds (saying so in the log while it
  /// waits; a cancellation ends the wait; a database whose server decides how long a
  /// statement waits ignores it). A unique-constraint violation gives AlreadyExists;
  /// lock contention beyond the wait gives CommitFailed; other failures give IOError.
  virtual arrow::Result<int64_t> ExecuteWithLockWait(std::string_view sql,
                                                     const std::vector<SqlValue>& params,
                                                     int64_t lock_wait_ms) = 0;
  /// ExecuteWithLockWait with the default wait.
  arrow::Result<int64_t> Execute(std::string_view sql,
                                 const std::vector<SqlValue>& params) {
    return ExecuteWithLockWait(sql, params, kDefaultLockWaitMs);
  }
  /// Runs a query and returns its rows (values as text).
  virtual arrow::Result<std::vector<SqlRow>> Query(
      std::string_view sql, const std::vector<SqlValue>& params) = 0;
  /// The local files the database keeps (SQLite: the database file and its journal, WAL
  /// and shared-memory files); empty for a server or an in-memory database.
  virtual std::vector<std::string> Files() const = 0;
  /// OK when statements that write can succeed as far as the database can tell without
  /// trying; InvalidInput saying why when it was opened (or could only be opened)
  /// read-only.
  virtual arrow::Status CheckWritable() const { return arrow::Status::OK(); }
  /// True when a statement that failed is known to have changed nothing, or its change
  /// is visible to the next read, so reading again tells what happened (SQLite, which
  /// is local and synchronous). False where a failure can leave the outcome unknown (a
  /// connection to a server lost mid-statement).
  virtual bool FailuresCanBeChecked() const { return false; }

 protected:
  SqlDatabase() = default;
};

/// How to open an SQLite catalog database (the `mode` of an SQLite URI).
struct SqliteOpenOptions {
  enum class Mode {
    kReadOnly,         ///< mode=ro: reads only; every write is refused up front.
    kReadWrite,        ///< mode=rw: the file must exist.
    kReadWriteCreate,  ///< mode=rwc (the default): created when missing.
  };
  Mode mode = Mode::kReadWriteCreate;
};

/// Opens an SQLite database file; ":memory:" for a private in-memory one. The path is
/// made absolute (Files() reports it so); anything but a regular file gives
/// InvalidInput, and a missing file NotFound unless the mode creates it. `env` times and
/// paces the waits for another connection's lock.
arrow::Result<std::unique_ptr<SqlDatabase>> OpenSqliteDatabase(
    const std::string& path, const SqliteOpenOptions& options = {},
    Env* env = Env::Default());

/// Connects to PostgreSQL. `uri` is a libpq connection URI
/// (postgresql://user@host:5432/db, with query parameters such as host=/socket/dir or
/// sslmode=); `options` are further libpq keywords (user, password, ...) that override
/// the URI's.
arrow::Result<std::unique_ptr<SqlDatabase>> OpenPostgresDatabase(
    const std::string& uri, const std::map<std::string, std::string>& options);

}  // namespace floe
