// A WritePlan: everything a write task needs, fixed at plan time and serialisable, so
// tasks can run anywhere (threads here; other processes or engines' executors later).
#pragma once

#include <memory>
#include <string>

#include "arrow/result.h"
#include "floe/spec/table_metadata.h"
#include "floe/write/parquet_settings.h"

namespace floe {

enum class WriterMode { kUnpartitioned, kClustered, kFanout };

std::string_view WriterModeName(WriterMode mode);

/// Immutable; share as std::shared_ptr<const WritePlan>.
struct WritePlan {
  int format_version = 2;
  std::string table_location;
  SchemaPtr schema;
  PartitionSpecPtr spec;
  SortOrderPtr sort_order;
  /// Table properties overlaid with the write's options.
  PropertyMap properties;
  ParquetSettings parquet;
  WriterMode mode = WriterMode::kUnpartitioned;
  int64_t target_file_size_bytes = 536870912;
  /// Embedded in every data file name, so files of different writes never collide.
  std::string operation_id;
  /// The bytes of rows a task's open files may buffer together before the largest row
  /// groups are written out early (0: no budget), so a fanout task's memory stays bounded
  /// however long its input. Make sets it to write.parquet.row-group-size-bytes: all
  /// open files share one row group's worth. Each open file also holds its encoders (tens
  /// of KiB per column) outside this budget. See WriteTask::Write.
  int64_t task_buffer_budget_bytes = 0;
  /// Whether the write's tasks share the partitions out (each partition's rows go to one
  /// task), as Spark's hash and range distributions put each partition in one task:
  /// write.distribution-mode, or Spark's default for the table when unset (range for a
  /// sorted table, hash for a partitioned one, none otherwise). Without it (and without
  /// distribute_by_range) each task writes whichever rows it is given.
  bool distribute_by_partition = false;
  /// Whether the write's tasks split the rows by sort key, so each task writes one key
  /// range (SortedRanges), as Spark's range distribution does for an unpartitioned
  /// sorted table: write.distribution-mode range, or unset.
  bool distribute_by_range = false;
  /// On a sorted table each task sorts its rows by the table's write ordering before
  /// writing them (RowSorter), as Spark sorts a task's rows; they then arrive grouped by
  /// partition, so Make picks the clustered writer for a partitioned one. A task holds up
  /// to this many bytes of rows before it spills them as a sorted run to a local
  /// temporary file (0: RowSorter's default; Table::Write derives it from
  /// --memory-limit).
  int64_t task_sort_run_bytes = 0;
  bool sorts_rows() const { return sort_order != nullptr && !sort_order->IsUnsorted(); }

  /// Builds a plan for the table's current schema, default spec and sort order. `options`
  /// overlay the table properties. Invalid property values give InvalidInput naming the
  /// property. `input_clustered` says the input arrives grouped by partition (then the
  /// clustered writer is used unless write.spark.fanout.enabled is true); a sorted
  /// table's rows always reach the writer grouped (see task_sort_run_bytes).
  static arrow::Result<std::shared_ptr<const WritePlan>> Make(
      const TableMetadata& metadata, const PropertyMap& options, bool input_clustered);

  /// distribute_by_partition for a table with `spec` and these effective properties; an
  /// invalid write.distribution-mode gives InvalidInput naming the property.
  static arrow::Result<bool> DistributesByPartition(const PartitionSpec& spec,
                                                    const PropertyMap& properties);

  std::string Serialize() const;
  static arrow::Result<std::shared_ptr<const WritePlan>> Deserialize(
      std::string_view text);
};

}  // namespace floe
