#include <filesystem>

#include <sqlite3.h>

#include "floe/sql/sql_database.h"
#include "floe/util/cancel.h"
#include "floe/util/error.h"
#include "floe/util/log.h"
#include "floe/util/mutex.h"

namespace floe {
namespace {

// While another process holds the lock, say so after a second, then this often.
constexpr int64_t kLockReportAfterMs = 1000;
constexpr int64_t kLockReportEveryMs = 5000;

class SqliteDatabase final : public SqlDatabase {
 public:
  SqliteDatabase(sqlite3* db, std::string path, bool read_only, std::string read_only_why,
                 Env* env)
      : env_(env),
        db_(db),
        path_(std::move(path)),
        read_only_(read_only),
        read_only_why_(std::move(read_only_why)) {
    sqlite3_busy_handler(db_, &SqliteDatabase::OnBusy, this);
  }
  ~SqliteDatabase() override { sqlite3_close_v2(db_); }

  arrow::Result<int64_t> ExecuteWithLockWait(std::string_view sql,
                                             const std::vector<SqlValue>& params,
                                             int64_t lock_wait_ms) override {
    MutexLock lock(&mutex_);
    lock_wait_ms_ = lock_wait_ms;
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
    MutexLock lock(&mutex_);
    lock_wait_ms_ = kDefaultLockWaitMs;
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

  std::vector<std::string> Files() const override {
    if (path_.empty()) return {};
    return {path_, path_ + "-journal", path_ + "-wal", path_ + "-shm"};
  }

  arrow::Status CheckWritable() const override {
    if (!read_only_) return arrow::Status::OK();
    return MakeError(ErrorKind::kInvalidInput,
                     "the SQLite catalog " + Name() + " is read-only (" + read_only_why_ +
                         "), so nothing can be committed to it");
  }

  // A statement SQLite reports as failed has been rolled back by the time sqlite3_step
  // returns (or is rolled back from its journal by the next reader), so reading again
  // tells what happened.
  bool FailuresCanBeChecked() const override { return true; }

 private:
  std::string Name() const { return path_.empty() ? "in memory" : path_; }

  // SQLite calls it only inside sqlite3_step, which runs with mutex_ held.
  static int OnBusy(void* self, int count) FLOE_NO_THREAD_SAFETY_ANALYSIS {
    return static_cast<SqliteDatabase*>(self)->WaitForLock(count);
  }

  // SQLite's busy handler: called while another connection holds a lock this statement
  // needs; returning 0 gives up (SQLITE_BUSY). `count` is 0 at the start of each wait.
  int WaitForLock(int count) FLOE_REQUIRES(mutex_) {
    const int64_t now = env_->MonotonicMicros();
    if (count == 0) {
      wait_started_us_ = now;
      last_report_ms_ = kLockReportAfterMs - kLockReportEveryMs;
    }
    const int64_t waited = (now - wait_started_us_) / 1000;
    waited_ms_ = waited;
    if (CancelRequested() || waited >= lock_wait_ms_) return 0;
    if (waited - last_report_ms_ >= kLockReportEveryMs) {
      last_report_ms_ = waited;
      Log(LogLevel::kWarning, "waiting for the SQLite catalog " + Name() +
                                  ": another process holds its lock (" +
                                  std::to_string(waited / 1000) +
                                  " s so far; giving up after " +
                                  std::to_string(lock_wait_ms_ / 1000) + " s)");
    }
    // Short sleeps first (most locks are held for milliseconds), then 50 ms steps.
    env_->SleepForMicros(1000 * (count < 10 ? 1 + count : 50));
    return 1;
  }

  arrow::Result<sqlite3_stmt*> Prepare(std::string_view sql,
                                       const std::vector<SqlValue>& params)
      FLOE_REQUIRES(mutex_) {
    waited_ms_ = 0;
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

  arrow::Status Failure(int result) FLOE_REQUIRES(mutex_) {
    int primary = result & 0xFF;
    if (primary == SQLITE_BUSY || primary == SQLITE_LOCKED) {
      std::string why = CancelRequested()
                            ? "cancelled while waiting"
                            : "gave up after " + std::to_string(waited_ms_ / 1000) + " s";
      return MakeError(
          ErrorKind::kCommitFailed,
          "the SQLite catalog " + Name() + " is locked by another process (" + why + ")");
    }
    std::string message = "SQLite catalog " + Name() + ": " + sqlite3_errmsg(db_);
    if (primary == SQLITE_CONSTRAINT)
      return MakeError(ErrorKind::kAlreadyExists, message);
    if (primary == SQLITE_READONLY && read_only_) message += " (" + read_only_why_ + ")";
    return arrow::Status::IOError(message);
  }

  Env* env_;
  sqlite3* db_ FLOE_GUARDED_BY(mutex_);
  const std::string path_;  // absolute; empty in memory
  const bool read_only_;
  const std::string read_only_why_;
  Mutex mutex_;
  // Of the statement running.
  int64_t lock_wait_ms_ FLOE_GUARDED_BY(mutex_) = kDefaultLockWaitMs;
  int64_t wait_started_us_ FLOE_GUARDED_BY(mutex_) = 0;
  int64_t last_report_ms_ FLOE_GUARDED_BY(mutex_) = 0;
  int64_t waited_ms_ FLOE_GUARDED_BY(mutex_) = 0;
};

}  // namespace

arrow::Result<std::unique_ptr<SqlDatabase>> OpenSqliteDatabase(
    const std::string& path, const SqliteOpenOptions& options, Env* env) {
  const bool memory = path == ":memory:";
  std::string absolute;
  if (!memory) {
    std::error_code error;
    absolute = std::filesystem::absolute(path, error).lexically_normal().string();
    if (error) {
      return MakeError(
          ErrorKind::kInvalidInput,
          "SQLite catalog path '" + path + "' is not usable: " + error.message());
    }
    auto status = std::filesystem::status(absolute, error);
    if (status.type() != std::filesystem::file_type::not_found &&
        status.type() != std::filesystem::file_type::regular) {
      return MakeError(ErrorKind::kInvalidInput,
                       "the SQLite catalog " + absolute + " is not a regular file");
    }
    if (options.mode != SqliteOpenOptions::Mode::kReadWriteCreate &&
        status.type() == std::filesystem::file_type::not_found) {
      return MakeError(ErrorKind::kNotFound,
                       "the SQLite catalog " + absolute +
                           " does not exist (only a command that writes creates it; "
                           "mode=ro and mode=rw never do)");
    }
  }
  int flags = SQLITE_OPEN_FULLMUTEX;
  switch (options.mode) {
    case SqliteOpenOptions::Mode::kReadOnly:
      flags |= SQLITE_OPEN_READONLY;
      break;
    case SqliteOpenOptions::Mode::kReadWrite:
      flags |= SQLITE_OPEN_READWRITE;
      break;
    case SqliteOpenOptions::Mode::kReadWriteCreate:
      flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
      break;
  }
  sqlite3* db = nullptr;
  int result =
      sqlite3_open_v2(memory ? path.c_str() : absolute.c_str(), &db, flags, nullptr);
  if (result != SQLITE_OK) {
    std::string message = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close_v2(db);
    return arrow::Status::IOError("cannot open SQLite catalog database ",
                                  memory ? path : absolute, ": ", message);
  }
  // SQLite silently opens a file it may not write read-only; say why when a write is
  // attempted, and refuse writes before any data file is written.
  bool read_only = sqlite3_db_readonly(db, "main") == 1;
  std::string why = options.mode == SqliteOpenOptions::Mode::kReadOnly
                        ? "opened with mode=ro"
                        : "this user may not write the file";
  return std::unique_ptr<SqlDatabase>(
      new SqliteDatabase(db, memory ? std::string() : absolute, read_only, why, env));
}

}  // namespace floe
