// What a table format tells the format-neutral write machinery (WriteTask, its rolling,
// fanout and clustered writers, its row holding and memory budget): which partition each
// row goes to, what each file is named and where it goes, how rows are sorted before
// writing, and what the task reports for the files it wrote. Iceberg implements it
// (write/iceberg_task.h); Delta is next.
#pragma once

#include <any>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "arrow/array/array_base.h"
#include "arrow/memory_pool.h"
#include "arrow/record_batch.h"
#include "floe/parquet/file_writer.h"
#include "floe/util/env.h"

namespace floe {

/// The partitions one of `count` tasks owns, when a write's tasks share the partitions
/// out: those whose key hashes to `index`. The default share owns every partition.
struct PartitionShare {
  int index = 0;
  int count = 1;
  bool Owns(std::string_view key) const;
  /// The index of the share, of `count`, that owns the partition `key`.
  static int OwnerOf(std::string_view key, int count);
};

/// Chooses which of the tasks sharing a write's partitions owns a partition, from its key
/// and its rows in the batch being split (PartitionDealer); null: the share its key
/// hashes to (PartitionShare::OwnerOf), as tasks that split on their own agree on.
using PartitionOwner = std::function<int(const std::string& key, int64_t rows)>;

/// How a task's open files follow the partitions of its rows.
enum class WriterMode {
  kUnpartitioned,  ///< One file at a time.
  kClustered,      ///< One partition's file at a time; a closed partition cannot reopen.
  kFanout,         ///< A file per partition, all open at once.
};

std::string_view WriterModeName(WriterMode mode);

/// The rows of one partition, in input order.
struct PartitionRows {
  /// Identifies the partition: equal partitions, equal keys. A PartitionShare hashes it.
  std::string key;
  /// The format's own description of the partition (Iceberg: its tuple of values),
  /// handed back to the format with the files written for it.
  std::any partition;
  /// The rows; when `take` is set, the rows of `rows` at those indices, gathered by
  /// Gathered() on the thread that writes them (so a reading thread that splits batches
  /// for several tasks does not copy every row itself, and a task holds a copy of one
  /// group at a time, not of its whole share).
  std::shared_ptr<arrow::RecordBatch> rows;
  std::shared_ptr<arrow::Array> take;

  /// The group's rows, gathered when `take` is set.
  arrow::Result<std::shared_ptr<arrow::RecordBatch>> Gathered() const;
  int64_t num_rows() const { return take ? take->length() : rows->num_rows(); }
};

/// A file a task wrote, with the partition its rows belong to.
struct TaskFile {
  WrittenParquetFile file;
  std::any partition;
};

/// Rows a task holds back until it finishes (a sort by the table's write ordering,
/// spilling as it goes), then hands out in order.
class RowHolder {
 public:
  virtual ~RowHolder() = default;
  virtual arrow::Status Add(std::shared_ptr<arrow::RecordBatch> batch) = 0;
  /// Hands every row held to `sink` in order, in batches of at most `slice_rows` rows.
  virtual arrow::Status Drain(
      int64_t slice_rows,
      const std::function<arrow::Status(const std::shared_ptr<arrow::RecordBatch>&)>&
          sink) = 0;
};

/// One write's format side, shared by all its tasks. Immutable; thread-safe.
class WriteFormat {
 public:
  virtual ~WriteFormat() = default;

  /// The Parquet side of every file: storage, Arrow schema (batches must have it),
  /// settings, allocation.
  virtual const std::shared_ptr<const ParquetWriteContext>& parquet() const = 0;
  /// The schema of the batches a task is given: the files' (parquet()'s) unless the
  /// format keeps some columns out of its files (Delta's partition columns), which Split
  /// drops.
  virtual const std::shared_ptr<arrow::Schema>& input_schema() const {
    return parquet()->arrow_schema;
  }
  virtual WriterMode mode() const = 0;
  /// Files roll over once they reach this many bytes (on the 1000-row grid).
  virtual int64_t target_file_size() const = 0;
  /// The bytes a task's open files may buffer together before the largest row groups
  /// are written out early (0: no budget).
  virtual int64_t buffer_budget() const = 0;
  /// What a user may change when a task with open files runs out of memory: the
  /// settings this format's writes honour.
  virtual std::string MemoryAdvice() const {
    return "raise --memory-limit, write fewer partitions per task (more tasks, or input "
           "grouped by partition with --input-clustered), or lower "
           "write.parquet.row-group-size-bytes";
  }

  /// Groups `batch`'s rows by partition, groups ordered by their first row, keeping only
  /// the partitions `share` owns; an unpartitioned table gives one group of every row.
  virtual arrow::Result<std::vector<PartitionRows>> Split(
      const std::shared_ptr<arrow::RecordBatch>& batch, PartitionShare share) const = 0;
  /// Split for `count` tasks sharing the partitions out: output i holds the groups task
  /// i owns, as `owner` chooses (null: PartitionShare{i, count}'s). The default splits
  /// once per share (or once, for `owner`); a format that can compute the partitions
  /// once overrides it.
  virtual arrow::Result<std::vector<std::vector<PartitionRows>>> SplitShares(
      const std::shared_ptr<arrow::RecordBatch>& batch, int count,
      const PartitionOwner& owner) const;
  /// The location of a task's `count`-th file (from 1) in `partition`: unique per task
  /// attempt, since `partition_id` and `attempt_id` are unique per attempt.
  virtual std::string FileLocation(const std::any& partition, int partition_id,
                                   int64_t attempt_id, int64_t count) const = 0;
  /// The error for rows of a partition whose file a clustered task already closed.
  virtual arrow::Status NotClustered(const std::any& partition) const = 0;
  /// What holds a task's rows until it finishes: null when rows are written as they
  /// come. Allocates from `pool`, spills below `env`'s temporary directory.
  virtual arrow::Result<std::unique_ptr<RowHolder>> MakeRowHolder(arrow::MemoryPool* pool,
                                                                  Env* env) const = 0;
  /// The task's report of the files it wrote (sorted by location), in the format's
  /// encoding: what the committer reads out of the TaskCommit.
  virtual arrow::Result<std::string> EncodeFiles(
      const std::vector<TaskFile>& files) const = 0;
};

}  // namespace floe
