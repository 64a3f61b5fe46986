// Reading one Parquet data file into a projection of the table schema, matching columns by
// field id (never by name or position).
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include "arrow/record_batch.h"
#include "floe/io/file_io.h"
#include "floe/manifest/data_file.h"
#include "floe/spec/partition_spec.h"
#include "floe/spec/schema.h"

namespace floe {

/// Counters for what a scan read (shared by the readers of one scan; thread-safe to update).
struct ScanStats {
  std::atomic<int64_t> files_planned{0};
  std::atomic<int64_t> files_read{0};
  std::atomic<int64_t> bytes_read{0};
  std::atomic<int64_t> requests{0};
  std::atomic<int64_t> rows{0};
};

/// Opens `file` and returns its rows as batches of `projection` (a subset of the table schema,
/// by field id). Columns the file lacks read as nulls, or as the file's identity-partition
/// value when the column is an identity partition source of `spec`; promoted types (int to
/// long, float to double, wider decimals) are cast. A file that cannot be read gives an error
/// naming it.
arrow::Result<std::shared_ptr<arrow::RecordBatchReader>> ReadDataFile(
    std::shared_ptr<FileIO> io, const DataFile& file, const Schema& projection,
    const PartitionSpec& spec, std::shared_ptr<ScanStats> stats);

}  // namespace floe
