// The SQL catalog's database over PostgreSQL, through libpq.
#include <algorithm>

#include <libpq-fe.h>

#include "floe/sql/sql_database.h"
#include "floe/util/error.h"
#include "floe/util/log.h"
#include "floe/util/mutex.h"
#include "floe/util/number_text.h"
#include "floe/util/secrets.h"

namespace floe {
namespace {

// SQLSTATEs (PostgreSQL appendix A) that mean "another client got there first".
constexpr std::string_view kUniqueViolation = "23505";
constexpr std::string_view kSerializationFailure = "40001";
constexpr std::string_view kDeadlockDetected = "40P01";
constexpr std::string_view kLockNotAvailable = "55P03";

// The catalog's statements use '?' placeholders; PostgreSQL numbers them ($1, $2, ...).
// Question marks inside quoted literals and identifiers are text.
std::string NumberPlaceholders(std::string_view sql) {
  std::string out;
  out.reserve(sql.size() + 16);
  int next = 1;
  char quote = 0;
  for (char c : sql) {
    if (quote) {
      if (c == quote) quote = 0;
      out.push_back(c);
    } else if (c == '\'' || c == '"') {
      quote = c;
      out.push_back(c);
    } else if (c == '?') {
      out += "$" + std::to_string(next++);
    } else {
      out.push_back(c);
    }
  }
  return out;
}

// libpq's messages end in a newline and may span lines; one line reads better in errors.
std::string OneLine(const char* text) {
  std::string message = text ? text : "";
  std::string line;
  for (char c : message) {
    if (c == '\n' || c == '\t') c = ' ';
    if (c == ' ' && (line.empty() || line.back() == ' ')) continue;
    line.push_back(c);
  }
  while (!line.empty() && line.back() == ' ') line.pop_back();
  return line;
}

class PostgresDatabase final : public SqlDatabase {
 public:
  PostgresDatabase(PGconn* connection, std::vector<std::string> secrets)
      : connection_(connection), secrets_(std::move(secrets)) {}
  ~PostgresDatabase() override { PQfinish(connection_); }

  // The server decides how long a statement waits for a lock (lock_timeout).
  arrow::Result<int64_t> ExecuteWithLockWait(std::string_view sql,
                                             const std::vector<SqlValue>& params,
                                             int64_t /*lock_wait_ms*/) override {
    MutexLock lock(&mutex_);
    ARROW_ASSIGN_OR_RAISE(auto result, Run(sql, params));
    const char* changed = PQcmdTuples(result.get());
    if (changed == nullptr || *changed == '\0') return int64_t{0};
    if (auto count = ParseDigits(changed)) return *count;
    return MakeError(ErrorKind::kInvalidMetadata,
                     "PostgreSQL answered with a malformed row count");
  }

  std::vector<std::string> Files() const override { return {}; }

  arrow::Result<std::vector<SqlRow>> Query(std::string_view sql,
                                           const std::vector<SqlValue>& params) override {
    MutexLock lock(&mutex_);
    ARROW_ASSIGN_OR_RAISE(auto result, Run(sql, params));
    std::vector<SqlRow> rows;
    const int count = PQntuples(result.get());
    const int columns = PQnfields(result.get());
    rows.reserve(static_cast<size_t>(count));
    for (int r = 0; r < count; ++r) {
      SqlRow row;
      for (int c = 0; c < columns; ++c) {
        if (PQgetisnull(result.get(), r, c)) {
          row.emplace_back(std::nullopt);
        } else {
          row.emplace_back(
              std::string(PQgetvalue(result.get(), r, c),
                          static_cast<size_t>(PQgetlength(result.get(), r, c))));
        }
      }
      rows.push_back(std::move(row));
    }
    return rows;
  }

 private:
  using Result = std::unique_ptr<PGresult, decltype(&PQclear)>;

  arrow::Result<Result> Run(std::string_view sql, const std::vector<SqlValue>& params)
      FLOE_REQUIRES(mutex_) {
    // A connection dropped earlier is re-established before the statement, never during
    // one: whether a statement that lost its connection ran is for the caller to decide.
    if (PQstatus(connection_) != CONNECTION_OK) PQreset(connection_);
    std::string text = NumberPlaceholders(sql);
    std::vector<const char*> values;
    values.reserve(params.size());
    for (const auto& param : params) values.push_back(param ? param->c_str() : nullptr);
    Result result(PQexecParams(connection_, text.c_str(), static_cast<int>(values.size()),
                               /*paramTypes=*/nullptr, values.data(), /*lengths=*/nullptr,
                               /*formats=*/nullptr, /*resultFormat=*/0),
                  &PQclear);
    ExecStatusType status = result ? PQresultStatus(result.get()) : PGRES_FATAL_ERROR;
    if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) return result;
    std::string message =
        "PostgreSQL: " + RedactSecrets(OneLine(result ? PQresultErrorMessage(result.get())
                                                      : PQerrorMessage(connection_)),
                                       secrets_);
    const char* state =
        result ? PQresultErrorField(result.get(), PG_DIAG_SQLSTATE) : nullptr;
    std::string_view sqlstate = state ? state : "";
    if (sqlstate == kUniqueViolation)
      return MakeError(ErrorKind::kAlreadyExists, message);
    if (sqlstate == kSerializationFailure || sqlstate == kDeadlockDetected ||
        sqlstate == kLockNotAvailable) {
      return MakeError(ErrorKind::kCommitFailed, message);
    }
    return arrow::Status::IOError(message);
  }

  Mutex mutex_;
  PGconn* connection_ FLOE_GUARDED_BY(mutex_);
  const std::vector<std::string> secrets_;  // of the connection URI, never in messages
};

}  // namespace

arrow::Result<std::unique_ptr<SqlDatabase>> OpenPostgresDatabase(
    const std::string& uri, const std::map<std::string, std::string>& options) {
  // libpq takes the URI itself; user and password may come separately (iceberg-java's
  // jdbc.user and jdbc.password catalog properties) and then override the URI's.
  std::vector<const char*> keys = {"dbname"};
  std::vector<const char*> values = {uri.c_str()};
  for (const auto& [key, value] : options) {
    keys.push_back(key.c_str());
    values.push_back(value.c_str());
  }
  keys.push_back(nullptr);
  values.push_back(nullptr);
  PGconn* connection = PQconnectdbParams(keys.data(), values.data(), /*expand_dbname=*/1);
  if (connection == nullptr) {
    return arrow::Status::IOError(
        "cannot connect to the PostgreSQL catalog: out of memory");
  }
  if (PQstatus(connection) != CONNECTION_OK) {
    // libpq quotes what it could not parse, the whole URI included: nothing secret may
    // pass through.
    std::vector<std::string> secrets = SecretsOfUri(uri);
    for (const char* key : {"password", "sslpassword"}) {
      if (auto found = options.find(key); found != options.end())
        secrets.push_back(found->second);
    }
    std::sort(
        secrets.begin(), secrets.end(),
        [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
    std::string message = RedactSecrets(OneLine(PQerrorMessage(connection)), secrets);
    PQfinish(connection);
    return arrow::Status::IOError("cannot connect to the PostgreSQL catalog: ", message);
  }
  // The server's notices ("relation ... already exists, skipping" for every CREATE TABLE
  // IF NOT EXISTS) are floe's debug log, not lines on the user's terminal.
  PQsetNoticeProcessor(
      connection,
      [](void*, const char* message) {
        Log(LogLevel::kDebug, "PostgreSQL: " + OneLine(message));
      },
      nullptr);
  return std::unique_ptr<SqlDatabase>(
      new PostgresDatabase(connection, SecretsOfUri(uri)));
}

}  // namespace floe
