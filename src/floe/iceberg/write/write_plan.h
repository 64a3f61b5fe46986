// A WritePlan: everything a write task needs, fixed at plan time and serialisable, so
// tasks can run anywhere (threads here; other processes or engines' executors later).
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "arrow/result.h"
#include "floe/iceberg/spec/table_metadata.h"
#include "floe/iceberg/write/parquet_settings.h"
#include "floe/task/write_format.h"  // WriterMode
#include "floe/util/env.h"

namespace floe::iceberg {

/// How a write's rows are shared among its tasks, as Spark's requested distribution
/// shares them among its write tasks (write.distribution-mode, or Spark's default for the
/// table when unset: range for a sorted table, hash for a partitioned one, none
/// otherwise).
enum class Distribution {
  /// Each task writes whichever rows it is given.
  kNone,
  /// Each partition's rows go to one task (hash or range on a partitioned table).
  kByPartition,
  /// An unpartitioned sorted table's rows are split by sort key, each task writing one
  /// key range (SortedRanges): range, or unset.
  kBySortKey,
};

std::string_view DistributionName(Distribution distribution);

/// What a plan is made for, besides the table and the write's options.
struct WritePlanOptions {
  /// The input arrives grouped by partition (then the clustered writer is used unless
  /// write.spark.fanout.enabled is true); a sorted table's rows always reach the writer
  /// grouped (see WritePlan::task_sort_run_bytes).
  bool input_clustered = false;
  /// The tasks that will run at once, sharing `memory_limit` (at least 1).
  int tasks = 1;
  /// Bytes the tasks may allocate together (0: no limit): half is their budget for
  /// buffered row groups, a quarter the size of a sorted run before it spills.
  int64_t memory_limit = 0;
  /// Draws the operation id (a table's commits use its catalog's Env).
  Env* env = Env::Default();
  /// An overwrite by filter: the filter (`--where` syntax) whose rows the write
  /// replaces; every row the tasks write must match it (WritePlan::row_filter).
  std::string row_filter;
  /// A rewrite of existing rows on a format-v3 table (a copy-on-write delete, a
  /// compaction): the rows carry their `_row_id` and `_last_updated_sequence_number`
  /// (spec/metadata_columns.h), and the files keep them as two more columns, as
  /// iceberg-java's writers do (WritePlan::schema then ends with those two fields).
  bool row_lineage = false;
};

/// Immutable; share as std::shared_ptr<const WritePlan>.
struct WritePlan {
  int format_version = 2;
  std::string table_location;
  /// The table's current schema; for a rewrite that keeps row lineage
  /// (WritePlanOptions::row_lineage), followed by `_row_id` and
  /// `_last_updated_sequence_number`.
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
  /// The table's current snapshot when the plan was made (none for an empty table): the
  /// committer validates an overwrite against the commits since, wherever it runs.
  std::optional<int64_t> base_snapshot_id;
  /// For an overwrite by filter, the filter (`--where` syntax) whose rows it replaces:
  /// whoever drives the tasks checks that every row they write matches it
  /// (CheckRowsMatchFilter in table/table.h; the Python binding's WriteTask does), and
  /// the committer of WriteOperation::kOverwriteByFilter deletes the files it matches.
  /// Empty otherwise.
  std::string row_filter;
  /// The bytes of rows a task's open files may buffer together before the largest row
  /// groups are written out early (0: no budget), so a fanout task's memory stays bounded
  /// however long its input. Make sets it to write.parquet.row-group-size-bytes: all
  /// open files share one row group's worth. Each open file also holds its encoders (tens
  /// of KiB per column) outside this budget. See WriteTask::Write.
  int64_t task_buffer_budget_bytes = 0;
  /// How the tasks share the rows; a job running one task ignores it.
  Distribution distribution = Distribution::kNone;
  /// On a sorted table each task sorts its rows by the table's write ordering before
  /// writing them (RowSorter), as Spark sorts a task's rows; they then arrive grouped by
  /// partition, so Make picks the clustered writer for a partitioned one. A task holds up
  /// to this many bytes of rows before it spills them as a sorted run to a local
  /// temporary file (0: RowSorter's default; Make derives it from
  /// WritePlanOptions::memory_limit).
  int64_t task_sort_run_bytes = 0;
  bool sorts_rows() const { return sort_order != nullptr && !sort_order->IsUnsorted(); }

  /// Builds a plan for the table's current schema, default spec and sort order. `options`
  /// overlay the table properties. Invalid property values give InvalidInput naming the
  /// property, never its value. The plan is complete when made: nothing changes it after.
  static arrow::Result<std::shared_ptr<const WritePlan>> Make(
      const TableMetadata& metadata, const PropertyMap& options,
      const WritePlanOptions& plan_options = {});

  /// The distribution for a table with `spec` and `sort_order` under these effective
  /// properties; an invalid write.distribution-mode gives InvalidInput naming the
  /// property.
  static arrow::Result<Distribution> DistributionFor(const PartitionSpec& spec,
                                                     const SortOrder& sort_order,
                                                     const PropertyMap& properties);

  /// This plan with an operation id of its own, derived from this plan's and `part`
  /// (the same in every process, so a driver and its executors derive the same one):
  /// for one plan serving several commits, such as a streaming query's micro-batches,
  /// so that each commit finds the files of its own tasks by its own id.
  std::shared_ptr<const WritePlan> Derive(std::string_view part) const;

  /// The plan as text (JSON), to send to tasks in other threads, processes or engines'
  /// executors; Deserialize gives an equal plan back.
  std::string Serialize() const;
  static arrow::Result<std::shared_ptr<const WritePlan>> Deserialize(
      std::string_view text);
};

}  // namespace floe::iceberg
