// Scans: plan the data files of a snapshot and read them into Arrow with a projection.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "arrow/record_batch.h"
#include "floe/io/file_io.h"
#include "floe/manifest/data_file.h"
#include "floe/scan/data_file_reader.h"
#include "floe/spec/table_metadata.h"

namespace floe {

struct ScanOptions {
  /// Column names to read (full dotted names of top-level columns); empty reads all.
  std::vector<std::string> columns;
  /// Read this snapshot instead of the current one.
  std::optional<int64_t> snapshot_id;
  /// Read the snapshot current at this time (milliseconds since the epoch).
  std::optional<int64_t> as_of_ms;
};

/// One data file to read.
struct FileScanTask {
  DataFile file;
  PartitionSpecPtr spec;
};

/// Not thread-safe.
class TableScan {
 public:
  /// Resolves the snapshot and the projection: the schema is the one current when the snapshot
  /// was written. An unknown snapshot, time or column gives InvalidInput naming it.
  static arrow::Result<std::unique_ptr<TableScan>> Make(std::shared_ptr<FileIO> io,
                                                        TableMetadataPtr metadata,
                                                        ScanOptions options);

  /// The snapshot read (null for a table without snapshots).
  const SnapshotPtr& snapshot() const { return snapshot_; }
  const SchemaPtr& projection() const { return projection_; }
  const std::shared_ptr<ScanStats>& stats() const { return stats_; }

  /// The live data files of the snapshot, in manifest order. Delete files are not applied yet:
  /// a snapshot with live delete files gives NotSupported rather than wrong rows.
  arrow::Result<std::vector<FileScanTask>> PlanFiles();
  /// The rows of every planned file, file after file.
  arrow::Result<std::shared_ptr<arrow::RecordBatchReader>> ToRecordBatchReader();

 private:
  TableScan() = default;

  std::shared_ptr<FileIO> io_;
  TableMetadataPtr metadata_;
  SnapshotPtr snapshot_;
  SchemaPtr projection_;
  std::shared_ptr<ScanStats> stats_ = std::make_shared<ScanStats>();
};

}  // namespace floe
