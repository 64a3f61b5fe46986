// Table: the public face that ties the catalog, the gate, write tasks, the committer and scans
// together.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "arrow/record_batch.h"
#include "floe/catalog/catalog.h"
#include "floe/commit/snapshot_producer.h"
#include "floe/gate/gate.h"
#include "floe/scan/table_scan.h"
#include "floe/write/write_plan.h"

namespace floe {

/// What a new table looks like. The spec and sort order refer to `schema`'s field ids; ids are
/// reassigned as for any new table.
struct CreateTableOptions {
  SchemaPtr schema;
  PartitionSpecPtr spec;  ///< Unpartitioned when null.
  SortOrderPtr sort_order;  ///< Unsorted when null.
  PropertyMap properties;  ///< "format-version" selects 1, 2 (default) or 3.
  std::string location;    ///< The catalog's default location when empty.
};

/// Progress of a running append, reported after each input batch.
struct AppendProgress {
  int64_t rows = 0;
  int64_t batches = 0;
};

struct AppendOptions {
  /// Per-write options overlaid on the table's properties (as iceberg-java's write options).
  PropertyMap options;
  /// Write tasks run in parallel, each on its own thread.
  int threads = 1;
  /// The input arrives grouped by partition (then the clustered writer may be used).
  bool input_clustered = false;
  /// Bytes the write tasks may allocate together (0: no limit). Past it a task fails with an
  /// error saying so; half of it is the tasks' budget for buffered row groups.
  int64_t memory_limit = 0;
  std::function<void(const AppendProgress&)> progress;
};

struct AppendResult {
  CommitReport commit;
  int64_t rows = 0;
  int64_t data_files = 0;
};

/// A loaded table. Not thread-safe; load one per thread.
class Table {
 public:
  static arrow::Result<std::shared_ptr<Table>> Load(std::shared_ptr<Catalog> catalog,
                                                    const TableIdentifier& id);
  static arrow::Result<std::shared_ptr<Table>> Create(std::shared_ptr<Catalog> catalog,
                                                      const TableIdentifier& id,
                                                      const CreateTableOptions& options);

  const TableIdentifier& id() const { return id_; }
  const TableState& state() const { return state_; }
  const TableMetadataPtr& metadata() const { return state_.metadata; }
  std::shared_ptr<FileIO> io() const { return catalog_->io(); }
  /// Reloads the current metadata from the catalog.
  arrow::Status Refresh();

  /// The gate's answer for a write with `options` overlaid on the table's properties.
  GateResult ExplainWrite(const PropertyMap& options) const;

  /// Appends every batch of `input` (streamed, never loaded whole) as one snapshot: the gate
  /// runs first and a decline fails before any file exists; input columns are matched by name
  /// and cast safely; tasks write data files; one commit swaps the table's pointer, retrying
  /// lost races. On failure every file written is deleted (except after CommitStateUnknown)
  /// and the table is unchanged.
  arrow::Result<AppendResult> Append(arrow::RecordBatchReader& input, const AppendOptions& options);

  arrow::Result<std::unique_ptr<TableScan>> NewScan(ScanOptions options) const;

  Table(std::shared_ptr<Catalog> catalog, TableIdentifier id, TableState state);

 private:
  std::shared_ptr<Catalog> catalog_;
  TableIdentifier id_;
  TableState state_;
};

}  // namespace floe
