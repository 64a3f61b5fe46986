// Reading a Delta table's rows at one version: the snapshot's live files read with floe's
// Parquet reader (columns matched by name, reshaped to the table's schema, columns a file
// lacks as nulls), partition columns filled from each file's partition values.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "arrow/record_batch.h"
#include "floe/delta/filter.h"
#include "floe/delta/log.h"
#include "floe/io/file_io.h"
#include "floe/parquet/file_reader.h"

namespace floe::delta {

struct DeltaScanOptions {
  /// Top-level columns to read, in this order (default: every column, in schema order).
  std::vector<std::string> columns;
  /// Only the rows this filter (the `--where` syntax, expr/parser.h) is true for. Files
  /// whose partition values or add.stats show that no row can match are not opened.
  std::string filter;
  SnapshotOptions snapshot;
  ParquetReadOptions parquet;
};

struct DeltaScanStats {
  int64_t files_planned = 0;  ///< After data skipping.
  int64_t files_skipped = 0;  ///< By partition values and add.stats.
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
  /// The same over a snapshot already loaded (options.snapshot is not used).
  static arrow::Result<std::unique_ptr<DeltaScan>> Make(std::shared_ptr<FileIO> io,
                                                        Snapshot snapshot,
                                                        const DeltaScanOptions& options);

  const Snapshot& snapshot() const { return snapshot_; }
  /// The table's schema (every column, partition columns where the schema puts them).
  const std::shared_ptr<arrow::Schema>& table_schema() const { return table_schema_; }
  /// The columns the batches hold.
  const std::shared_ptr<arrow::Schema>& schema() const { return schema_; }
  const DeltaScanStats& stats() const { return *stats_; }

  /// The rows, file by file in path order. Errors name the data file at fault (missing,
  /// corrupt, a column stored with another type).
  arrow::Result<std::unique_ptr<arrow::RecordBatchReader>> ToRecordBatchReader() const;
  /// The files the scan reads: the snapshot's, less those the filter skips.
  const std::vector<const AddFile*>& files() const { return files_; }
  /// Every row of `files` (of this scan's snapshot), unfiltered, in the scan's columns
  /// followed by the filter's.
  arrow::Result<std::unique_ptr<arrow::RecordBatchReader>> ReadFiles(
      std::vector<const AddFile*> files) const;
  /// The bound filter (nullptr without one).
  const DeltaFilter* filter() const { return filter_.get(); }

 private:
  DeltaScan() = default;
  std::shared_ptr<FileIO> io_;
  Snapshot snapshot_;
  std::shared_ptr<arrow::Schema> table_schema_;
  std::shared_ptr<arrow::Schema> schema_;
  /// schema_'s columns, then the filter's that schema_ lacks.
  std::shared_ptr<arrow::Schema> read_schema_;
  int output_columns_ = 0;
  std::vector<bool> is_partition_;  // per column of read_schema_
  std::shared_ptr<DeltaFilter> filter_;
  std::vector<const AddFile*> files_;
  ParquetReadOptions parquet_;
  std::shared_ptr<DeltaScanStats> stats_ = std::make_shared<DeltaScanStats>();
};

}  // namespace floe::delta
