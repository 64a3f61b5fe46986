// Reading a Delta table's rows at one version: the snapshot's live files read with floe's
// Parquet reader (columns matched by name, reshaped to the table's schema, columns a file
// lacks as nulls), partition columns filled from each file's partition values.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "arrow/record_batch.h"
#include "floe/delta/log.h"
#include "floe/io/file_io.h"
#include "floe/parquet/file_reader.h"

namespace floe::delta {

struct DeltaScanOptions {
  /// Top-level columns to read, in this order (default: every column, in schema order).
  std::vector<std::string> columns;
  SnapshotOptions snapshot;
  ParquetReadOptions parquet;
};

struct DeltaScanStats {
  int64_t files_planned = 0;
  int64_t files_read = 0;
  int64_t rows = 0;
};

class DeltaScan {
 public:
  /// Loads the snapshot, checks that floe reads it exactly (CheckReadable) and binds the
  /// columns: an unknown column gives InvalidInput naming it and the table.
  static arrow::Result<std::unique_ptr<DeltaScan>> Make(
      std::shared_ptr<FileIO> io, const std::string& table_root,
      const DeltaScanOptions& options = {});

  const Snapshot& snapshot() const { return snapshot_; }
  /// The table's schema (every column, partition columns where the schema puts them).
  const std::shared_ptr<arrow::Schema>& table_schema() const { return table_schema_; }
  /// The columns the batches hold.
  const std::shared_ptr<arrow::Schema>& schema() const { return schema_; }
  const DeltaScanStats& stats() const { return *stats_; }

  /// The rows, file by file in path order. Errors name the data file at fault (missing,
  /// corrupt, a column stored with another type).
  arrow::Result<std::unique_ptr<arrow::RecordBatchReader>> ToRecordBatchReader() const;

 private:
  DeltaScan() = default;
  std::shared_ptr<FileIO> io_;
  Snapshot snapshot_;
  std::shared_ptr<arrow::Schema> table_schema_;
  std::shared_ptr<arrow::Schema> schema_;
  std::vector<bool> is_partition_;  // per column of schema_
  ParquetReadOptions parquet_;
  std::shared_ptr<DeltaScanStats> stats_ = std::make_shared<DeltaScanStats>();
};

}  // namespace floe::delta
