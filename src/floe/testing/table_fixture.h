// A table in a fresh SQLite catalog for the tests of the layers below table/ (commits,
// scan planning), with data files described by hand: planning and committing read only
// manifests, so the files themselves need not exist.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "arrow/result.h"
#include "floe/iceberg/catalog/catalog.h"
#include "floe/iceberg/commit/snapshot_producer.h"
#include "floe/iceberg/manifest/data_file.h"

namespace floe::testing {

/// A SQLite catalog at `<directory>/catalog.db` whose warehouse is
/// `<directory>/warehouse`, holding the namespace `db`.
arrow::Result<std::shared_ptr<iceberg::Catalog>> OpenTestCatalog(
    const std::string& directory);

class TableFixture {
 public:
  /// A table `db.t` with columns `schema` (schema_ddl syntax) partitioned by
  /// `partition_by` (empty: unpartitioned), in a catalog whose database and warehouse are
  /// below `directory`.
  static arrow::Result<std::unique_ptr<TableFixture>> Make(
      const std::string& directory, const std::string& schema,
      const std::string& partition_by, const iceberg::PropertyMap& properties = {});

  /// A data file of the table's default spec at `<location>/data/<name>` (created empty,
  /// as a commit finds every file it adds) holding
  /// `records` rows, in the partition whose values are `partition` (of the spec's
  /// result types), with lower and upper bounds `min` and `max` for the long column
  /// `id` when it has one.
  iceberg::DataFile File(const std::string& name, std::vector<Value> partition,
                         int64_t records, int64_t min_id = 0, int64_t max_id = 0) const;

  /// Commits `files` as an append (a merge append, as floe's writes commit) on top of
  /// the catalog's current state, and returns that state.
  arrow::Result<iceberg::TableState> Append(const std::vector<iceberg::DataFile>& files);
  /// Commits the removal of the data files at `paths` (an overwrite adding none).
  arrow::Result<iceberg::TableState> Remove(const std::vector<std::string>& paths);
  /// The table's current state in the catalog.
  arrow::Result<iceberg::TableState> Load() const;
  /// The paths of the live data files of the current snapshot, sorted.
  arrow::Result<std::vector<std::string>> LiveFiles() const;

  iceberg::CommitTarget target() const { return {catalog_, id_, io_}; }
  const std::shared_ptr<iceberg::Catalog>& catalog() const { return catalog_; }
  const iceberg::TableIdentifier& id() const { return id_; }
  const std::shared_ptr<FileIO>& io() const { return io_; }

 private:
  std::shared_ptr<iceberg::Catalog> catalog_;
  iceberg::TableIdentifier id_{{"db"}, "t"};
  std::shared_ptr<FileIO> io_;
  iceberg::TableState created_;
};

}  // namespace floe::testing
