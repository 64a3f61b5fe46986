#include "floe/delta/catalog/coordinator.h"

#include <charconv>
#include <utility>

#include "floe/util/error.h"
#include "floe/util/log.h"
#include "floe/util/number_text.h"

namespace floe::delta {
namespace {

constexpr char kCreateTables[] =
    "CREATE TABLE IF NOT EXISTS floe_delta_tables ("
    "catalog_name VARCHAR(255) NOT NULL, "
    "table_namespace VARCHAR(255) NOT NULL, "
    "table_name VARCHAR(255) NOT NULL, "
    "table_id VARCHAR(64) NOT NULL UNIQUE, "
    "location VARCHAR(1000) NOT NULL, "
    "latest_published_version BIGINT NOT NULL, "
    "PRIMARY KEY (catalog_name, table_namespace, table_name))";
constexpr char kCreateCommits[] =
    "CREATE TABLE IF NOT EXISTS floe_delta_commits ("
    "table_id VARCHAR(64) NOT NULL, "
    "version BIGINT NOT NULL, "
    "file_name VARCHAR(1000) NOT NULL, "
    "file_size BIGINT NOT NULL, "
    "file_modification_ms BIGINT NOT NULL, "
    "commit_timestamp_ms BIGINT NOT NULL, "
    "PRIMARY KEY (table_id, version))";

// Ratification: the row goes in only when the table exists and its latest ratified
// version (0 for a new table: version 0 is registered, not ratified) is the one before.
// Under PostgreSQL's READ COMMITTED an insert cannot see another's uncommitted row, so a
// version after one still in flight is refused (no gap), and the key refuses a second
// row for one version.
constexpr char kRatify[] =
    "INSERT INTO floe_delta_commits (table_id, version, file_name, file_size, "
    "file_modification_ms, commit_timestamp_ms) "
    "SELECT ?, CAST(? AS BIGINT), ?, CAST(? AS BIGINT), CAST(? AS BIGINT), "
    "CAST(? AS BIGINT) "
    "WHERE EXISTS (SELECT 1 FROM floe_delta_tables WHERE table_id = ?) "
    "AND COALESCE((SELECT MAX(version) FROM floe_delta_commits WHERE table_id = ?), 0) "
    "= CAST(? AS BIGINT)";

arrow::Result<int64_t> ToLong(const SqlValue& value, const char* what) {
  if (value) {
    if (auto parsed = ParseJavaLong(*value)) return *parsed;
  }
  return MakeError(ErrorKind::kInvalidMetadata,
                   std::string("the Delta commit coordinator holds a malformed ") + what);
}

RegisteredDeltaTable TableOf(const SqlRow& row) {
  return {row[0].value_or(""), row[1].value_or(""), row[2].value_or(""),
          row[3].value_or(""), row[4].value_or("")};
}

}  // namespace

SqlCommitCoordinator::SqlCommitCoordinator(std::shared_ptr<SqlDatabase> database)
    : database_(std::move(database)) {}

arrow::Result<std::shared_ptr<SqlCommitCoordinator>> SqlCommitCoordinator::Make(
    std::shared_ptr<SqlDatabase> database, bool create_tables) {
  std::shared_ptr<SqlCommitCoordinator> coordinator(
      new SqlCommitCoordinator(std::move(database)));
  ARROW_RETURN_NOT_OK(coordinator->Initialize(create_tables));
  return coordinator;
}

arrow::Status SqlCommitCoordinator::Initialize(bool create_tables) {
  if (!create_tables || !database_->CheckWritable().ok()) {
    // The tables are there or no Delta table is; any other failure is the database's.
    tables_ready_ = true;
    for (const char* table : {"floe_delta_tables", "floe_delta_commits"}) {
      auto found =
          database_->Query(std::string("SELECT 1 FROM ") + table + " LIMIT 0", {});
      if (found.ok()) continue;
      const std::string& message = found.status().message();
      if (message.find("no such table") == std::string::npos &&   // SQLite
          message.find("does not exist") == std::string::npos) {  // PostgreSQL
        return WithContext(found.status(),
                           "reading the Delta commit coordinator's tables");
      }
      tables_ready_ = false;
    }
    return arrow::Status::OK();
  }
  // Two processes may create the tables at once; PostgreSQL can report that as a
  // unique violation on its own catalog even with IF NOT EXISTS.
  for (int attempt = 0;; ++attempt) {
    auto created = database_->Execute(kCreateTables, {});
    if (created.ok()) created = database_->Execute(kCreateCommits, {});
    if (created.ok()) break;
    if (attempt >= 2 || KindOf(created.status()) != ErrorKind::kAlreadyExists) {
      return WithContext(created.status(),
                         "creating the Delta commit coordinator's tables");
    }
  }
  tables_ready_ = true;
  return arrow::Status::OK();
}

arrow::Result<std::optional<std::string>> SqlCommitCoordinator::RatifiedFileName(
    const std::string& table_id, int64_t version) {
  ARROW_ASSIGN_OR_RAISE(auto rows,
                        database_->Query("SELECT file_name FROM floe_delta_commits WHERE "
                                         "table_id = ? AND version = CAST(? AS BIGINT)",
                                         {table_id, std::to_string(version)}));
  if (rows.empty() || rows[0].empty() || !rows[0][0]) return std::nullopt;
  return *rows[0][0];
}

arrow::Result<RatifyOutcome> SqlCommitCoordinator::Ratify(const std::string& table_id,
                                                          const RatifiedCommit& commit) {
  if (commit.version < 1) {
    return MakeError(ErrorKind::kInvalidInput,
                     "version " + std::to_string(commit.version) +
                         " cannot be ratified: version 0 is registered with the table");
  }
  const std::vector<SqlValue> params = {table_id,
                                        std::to_string(commit.version),
                                        commit.file_name,
                                        std::to_string(commit.file_size),
                                        std::to_string(commit.file_modification_ms),
                                        std::to_string(commit.commit_timestamp_ms),
                                        table_id,
                                        table_id,
                                        std::to_string(commit.version - 1)};
  auto inserted = database_->Execute(kRatify, params);
  if (inserted.ok()) {
    return *inserted == 1 ? RatifyOutcome::kRatified : RatifyOutcome::kConflict;
  }
  if (KindOf(inserted.status()) == ErrorKind::kAlreadyExists)
    return RatifyOutcome::kConflict;
  // The statement failed: the version's row says what happened.
  auto ratified = RatifiedFileName(table_id, commit.version);
  if (ratified.ok()) {
    if (*ratified) {
      return **ratified == commit.file_name ? RatifyOutcome::kRatified
                                            : RatifyOutcome::kConflict;
    }
    // Nobody has the version. Where a failure is known to have changed nothing, it is
    // as if another writer had been first (the writer re-reads and tries again);
    // elsewhere the statement may still land.
    if (database_->FailuresCanBeChecked()) {
      if (KindOf(inserted.status()) == ErrorKind::kCommitFailed)
        return RatifyOutcome::kConflict;  // lock contention beyond the wait
      return inserted.status();
    }
  }
  return MakeError(ErrorKind::kCommitStateUnknown,
                   "ratifying version " + std::to_string(commit.version) +
                       " of Delta table " + table_id +
                       " may or may not have happened: " + inserted.status().message());
}

arrow::Result<CoordinatedLog> SqlCommitCoordinator::GetLog(const std::string& table_id) {
  if (!tables_ready_) {
    return MakeError(ErrorKind::kNoSuchTable,
                     "the catalog has no catalog-managed Delta table " + table_id);
  }
  ARROW_ASSIGN_OR_RAISE(auto tables,
                        database_->Query("SELECT latest_published_version FROM "
                                         "floe_delta_tables WHERE table_id = ?",
                                         {table_id}));
  if (tables.empty()) {
    return MakeError(ErrorKind::kNoSuchTable,
                     "the catalog has no catalog-managed Delta table " + table_id);
  }
  CoordinatedLog log;
  ARROW_ASSIGN_OR_RAISE(log.latest_published_version,
                        ToLong(tables[0][0], "latest published version"));
  ARROW_ASSIGN_OR_RAISE(
      auto rows,
      database_->Query("SELECT version, file_name, file_size, file_modification_ms, "
                       "commit_timestamp_ms FROM floe_delta_commits WHERE table_id = ? "
                       "AND version > CAST(? AS BIGINT) ORDER BY version",
                       {table_id, std::to_string(log.latest_published_version)}));
  log.latest_ratified_version = log.latest_published_version;
  for (const auto& row : rows) {
    RatifiedCommit commit;
    ARROW_ASSIGN_OR_RAISE(commit.version, ToLong(row[0], "commit version"));
    commit.file_name = row[1].value_or("");
    ARROW_ASSIGN_OR_RAISE(commit.file_size, ToLong(row[2], "commit file size"));
    ARROW_ASSIGN_OR_RAISE(commit.file_modification_ms,
                          ToLong(row[3], "commit modification time"));
    ARROW_ASSIGN_OR_RAISE(commit.commit_timestamp_ms, ToLong(row[4], "commit timestamp"));
    if (commit.version != log.latest_ratified_version + 1) {
      return MakeError(ErrorKind::kInvalidMetadata,
                       "the Delta commit coordinator's commits of table " + table_id +
                           " have a gap before version " +
                           std::to_string(commit.version));
    }
    log.latest_ratified_version = commit.version;
    log.unpublished.push_back(std::move(commit));
  }
  return log;
}

arrow::Status SqlCommitCoordinator::MarkPublished(const std::string& table_id,
                                                  int64_t version) {
  const std::string text = std::to_string(version);
  return database_
      ->Execute(
          "UPDATE floe_delta_tables SET latest_published_version = CAST(? AS "
          "BIGINT) WHERE table_id = ? AND latest_published_version < CAST(? AS "
          "BIGINT)",
          {text, table_id, text})
      .status();
}

arrow::Status SqlCommitCoordinator::RegisterTable(const RegisteredDeltaTable& table) {
  auto inserted = database_->Execute(
      "INSERT INTO floe_delta_tables (catalog_name, table_namespace, table_name, "
      "table_id, location, latest_published_version) VALUES (?, ?, ?, ?, ?, 0)",
      {table.catalog_name, table.table_namespace, table.table_name, table.table_id,
       table.location});
  if (KindOf(inserted.status()) == ErrorKind::kAlreadyExists) {
    return MakeError(ErrorKind::kAlreadyExists,
                     "table " + table.table_namespace + "." + table.table_name +
                         " already exists in catalog " + table.catalog_name);
  }
  return inserted.status();
}

arrow::Result<std::optional<RegisteredDeltaTable>> SqlCommitCoordinator::LookupTable(
    const std::string& catalog_name, const std::string& table_namespace,
    const std::string& table_name) {
  if (!tables_ready_) return std::nullopt;
  ARROW_ASSIGN_OR_RAISE(
      auto rows,
      database_->Query("SELECT catalog_name, table_namespace, table_name, table_id, "
                       "location FROM floe_delta_tables WHERE catalog_name = ? AND "
                       "table_namespace = ? AND table_name = ?",
                       {catalog_name, table_namespace, table_name}));
  if (rows.empty()) return std::nullopt;
  return TableOf(rows[0]);
}

arrow::Status SqlCommitCoordinator::RenameTable(const std::string& catalog_name,
                                                const std::string& from_namespace,
                                                const std::string& from_name,
                                                const std::string& to_namespace,
                                                const std::string& to_name) {
  auto updated = database_->Execute(
      "UPDATE floe_delta_tables SET table_namespace = ?, table_name = ? WHERE "
      "catalog_name = ? AND table_namespace = ? AND table_name = ?",
      {to_namespace, to_name, catalog_name, from_namespace, from_name});
  if (KindOf(updated.status()) == ErrorKind::kAlreadyExists) {
    return MakeError(ErrorKind::kAlreadyExists, "table " + to_namespace + "." + to_name +
                                                    " already exists in catalog " +
                                                    catalog_name);
  }
  ARROW_RETURN_NOT_OK(updated.status());
  if (*updated == 0) {
    return MakeError(ErrorKind::kNoSuchTable, "catalog " + catalog_name +
                                                  " has no Delta table " +
                                                  from_namespace + "." + from_name);
  }
  return arrow::Status::OK();
}

arrow::Status SqlCommitCoordinator::DropTable(const RegisteredDeltaTable& table) {
  // The table row first: once it is gone no ratification can succeed (its insert needs
  // the row), so the commit rows deleted next cannot gain a newcomer.
  ARROW_ASSIGN_OR_RAISE(
      int64_t dropped,
      database_->Execute("DELETE FROM floe_delta_tables WHERE table_id = ?",
                         {table.table_id}));
  if (dropped == 0) {
    return MakeError(ErrorKind::kNoSuchTable,
                     "catalog " + table.catalog_name + " has no Delta table " +
                         table.table_namespace + "." + table.table_name);
  }
  return database_
      ->Execute("DELETE FROM floe_delta_commits WHERE table_id = ?", {table.table_id})
      .status();
}

arrow::Result<std::vector<RegisteredDeltaTable>> SqlCommitCoordinator::ListTables(
    const std::string& catalog_name, const std::string& table_namespace) {
  std::vector<RegisteredDeltaTable> tables;
  if (!tables_ready_) return tables;
  ARROW_ASSIGN_OR_RAISE(
      auto rows, database_->Query("SELECT catalog_name, table_namespace, table_name, "
                                  "table_id, location FROM floe_delta_tables WHERE "
                                  "catalog_name = ? AND table_namespace = ? ORDER BY "
                                  "table_name",
                                  {catalog_name, table_namespace}));
  for (const auto& row : rows) tables.push_back(TableOf(row));
  return tables;
}

}  // namespace floe::delta
