#include <mutex>

#include <sqlite3.h>

#include "floe/catalog/sql_database.h"
#include "floe/util/error.h"

namespace floe {
namespace {

// Concurrent writers (several processes appending to one table) wait this long for the
// lock.
constexpr int kBusyTimeoutMs = 120000;

class SqliteDatabase final : public SqlDatabase {
 public:
  explicit SqliteDatabase(sqlite3* db) : db_(db) {}
  ~SqliteDatabase() override { sqlite3_close_v2(db_); }

  arrow::Result<int64_t> Execute(std::string_view sql,
                                 const std::vector<SqlValue>& params) override {
    std::lock_guard<std::mutex> lock(mutex_);
    ARROW_ASSIGN_OR_RAISE(sqlite3_stmt * statement, Prepare(sql, params));
    int result;
    while ((result = sqlite3_step(statement)) == SQLITE_ROW) {
    }
    sqlite3_finalize(statement);
    if (result != SQLITE_DONE) return Failure(result);
    return static_cast<int64_t>(sqlite3_changes(db_));
  }

  arrow::Result<std::vector<SqlRow>> Query(std::string_view sql,
                                           const std::vector<SqlValue>& params) override {
    std::lock_guard<std::mutex> lock(mutex_);
    ARROW_ASSIGN_OR_RAISE(sqlite3_stmt * statement, Prepare(sql, params));
    std::vector<SqlRow> rows;
    int result;
    while ((result = sqlite3_step(statement)) == SQLITE_ROW) {
      SqlRow row;
      int columns = sqlite3_column_count(statement);
      for (int i = 0; i < columns; ++i) {
        if (sqlite3_column_type(statement, i) == SQLITE_NULL) {
          row.emplace_back(std::nullopt);
        } else {
          const auto* text =
              reinterpret_cast<const char*>(sqlite3_column_text(statement, i));
          row.emplace_back(
              std::string(text, static_cast<size_t>(sqlite3_column_bytes(statement, i))));
        }
      }
      rows.push_back(std::move(row));
    }
    sqlite3_finalize(statement);
    if (result != SQLITE_DONE) return Failure(result);
    return rows;
  }

 private:
  arrow::Result<sqlite3_stmt*> Prepare(std::string_view sql,
                                       const std::vector<SqlValue>& params) {
    sqlite3_stmt* statement = nullptr;
    int result = sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()),
                                    &statement, nullptr);
    if (result != SQLITE_OK) {
      sqlite3_finalize(statement);
      return Failure(result);
    }
    for (size_t i = 0; i < params.size(); ++i) {
      int index = static_cast<int>(i) + 1;
      result = params[i] ? sqlite3_bind_text(statement, index, params[i]->data(),
                                             static_cast<int>(params[i]->size()),
                                             SQLITE_TRANSIENT)
                         : sqlite3_bind_null(statement, index);
      if (result != SQLITE_OK) {
        sqlite3_finalize(statement);
        return Failure(result);
      }
    }
    return statement;
  }

  arrow::Status Failure(int result) {
    std::string message = std::string("SQLite: ") + sqlite3_errmsg(db_);
    int primary = result & 0xFF;
    if (primary == SQLITE_CONSTRAINT)
      return MakeError(ErrorKind::kAlreadyExists, message);
    if (primary == SQLITE_BUSY || primary == SQLITE_LOCKED) {
      return MakeError(ErrorKind::kCommitFailed, message);
    }
    return arrow::Status::IOError(message);
  }

  sqlite3* db_;
  std::mutex mutex_;
};

}  // namespace

arrow::Result<std::unique_ptr<SqlDatabase>> OpenSqliteDatabase(const std::string& path) {
  sqlite3* db = nullptr;
  int result = sqlite3_open_v2(
      path.c_str(), &db,
      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX, nullptr);
  if (result != SQLITE_OK) {
    std::string message = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close_v2(db);
    return arrow::Status::IOError("cannot open SQLite catalog database ", path, ": ",
                                  message);
  }
  sqlite3_busy_timeout(db, kBusyTimeoutMs);
  return std::unique_ptr<SqlDatabase>(new SqliteDatabase(db));
}

}  // namespace floe
