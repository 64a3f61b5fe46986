// The commit coordinator of catalog-managed Delta tables: what ratifies a staged commit
// as a version (only after the version before it, at most once per version), keeps the
// ratified commits until they are published, and answers which those are. The SQL one
// keeps Delta tables and their commits in floe's SQL catalog database, beside the
// Iceberg catalog's tables, so one `--catalog` serves both formats. The interface is
// what a Unity Catalog client (its Delta commits API) would implement too.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "arrow/result.h"
#include "floe/sql/sql_database.h"

namespace floe::delta {

/// One ratified commit, as the coordinator records it (Unity Catalog's commit fields).
struct RatifiedCommit {
  int64_t version = -1;
  std::string file_name;  ///< The staged file's name in `_delta_log/_staged_commits/`.
  int64_t file_size = 0;
  int64_t file_modification_ms = 0;
  int64_t commit_timestamp_ms = 0;  ///< The in-commit timestamp.
};

/// What the coordinator knows of one table's log.
struct CoordinatedLog {
  int64_t latest_published_version = 0;
  int64_t latest_ratified_version = 0;
  /// The ratified commits above latest_published_version, ascending.
  std::vector<RatifiedCommit> unpublished;
};

/// A ratification's answer: the version is ours, or another commit has it.
enum class RatifyOutcome { kRatified, kConflict };

/// A catalog-managed Delta table, as its catalog registers it.
struct RegisteredDeltaTable {
  std::string catalog_name;
  std::string table_namespace;  ///< Dotted, as the Iceberg tables keep it.
  std::string table_name;
  std::string table_id;  ///< The table's metaData.id.
  std::string location;
};

class CommitCoordinator {
 public:
  virtual ~CommitCoordinator() = default;
  /// Ratifies `commit` as its version of table `table_id`: kRatified when it is the
  /// version after the latest ratified one and nobody else has it, kConflict otherwise
  /// (never an error). An outcome the coordinator cannot know is CommitStateUnknown.
  virtual arrow::Result<RatifyOutcome> Ratify(const std::string& table_id,
                                              const RatifiedCommit& commit) = 0;
  virtual arrow::Result<CoordinatedLog> GetLog(const std::string& table_id) = 0;
  /// Records that every version up to `version` is published (`_delta_log/<v>.json`
  /// durable); a lower or equal value than the recorded one changes nothing.
  virtual arrow::Status MarkPublished(const std::string& table_id, int64_t version) = 0;
  /// Registers a table whose version 0 is published. AlreadyExists naming it when the
  /// name (or the id) is taken.
  virtual arrow::Status RegisterTable(const RegisteredDeltaTable& table) = 0;
};

/// The coordinator over floe's SQL catalog database (SQLite or PostgreSQL): tables
/// floe_delta_tables (one row per table, with its latest published version) and
/// floe_delta_commits (one row per ratified version above 0; kept after publication).
/// Ratification is one conditional INSERT: the row goes in only when the table's latest
/// ratified version is the one before it, and the (table, version) key refuses a
/// second. A failed statement whose outcome is unknown is resolved by reading the
/// version's row back: our file name there means ours.
class SqlCommitCoordinator final : public CommitCoordinator {
 public:
  /// With `create_tables`, creates the coordinator's tables when absent (not in a
  /// read-only database). Without, a database that lacks them holds no Delta table: a
  /// catalog that only ever held Iceberg tables is left as iceberg-java and pyiceberg
  /// made it.
  static arrow::Result<std::shared_ptr<SqlCommitCoordinator>> Make(
      std::shared_ptr<SqlDatabase> database, bool create_tables = true);

  arrow::Result<RatifyOutcome> Ratify(const std::string& table_id,
                                      const RatifiedCommit& commit) override;
  arrow::Result<CoordinatedLog> GetLog(const std::string& table_id) override;
  arrow::Status MarkPublished(const std::string& table_id, int64_t version) override;

  arrow::Status RegisterTable(const RegisteredDeltaTable& table) override;
  /// The table of that name, or nullopt.
  arrow::Result<std::optional<RegisteredDeltaTable>> LookupTable(
      const std::string& catalog_name, const std::string& table_namespace,
      const std::string& table_name);
  /// Renames a table: AlreadyExists when `to` is taken, NoSuchTable when `from` is not
  /// registered.
  arrow::Status RenameTable(const std::string& catalog_name,
                            const std::string& from_namespace,
                            const std::string& from_name, const std::string& to_namespace,
                            const std::string& to_name);
  /// Forgets a table and its ratified commits (publish them first: an unpublished one is
  /// lost with its row). NoSuchTable when it is not registered.
  arrow::Status DropTable(const RegisteredDeltaTable& table);
  /// The Delta tables of one namespace, by name.
  arrow::Result<std::vector<RegisteredDeltaTable>> ListTables(
      const std::string& catalog_name, const std::string& table_namespace);

 private:
  explicit SqlCommitCoordinator(std::shared_ptr<SqlDatabase> database);
  arrow::Status Initialize(bool create_tables);
  arrow::Result<std::optional<std::string>> RatifiedFileName(const std::string& table_id,
                                                             int64_t version);

  std::shared_ptr<SqlDatabase> database_;
  bool tables_ready_ = false;
};

}  // namespace floe::delta
