// A write task: turns record batches into data files for one slice of a write's input and
// hands them over as one TaskCommit message. Format-neutral: the table format's
// WriteFormat says how rows are partitioned and sorted, where files go and what the
// message reports (MakeWriteTask in write/iceberg_task.h makes an Iceberg write's task).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "arrow/type_fwd.h"
#include "floe/task/rolling_file_writer.h"
#include "floe/task/write_format.h"
#include "floe/util/env.h"

namespace floe {

/// Owns every file it writes until the receiver acknowledges its message: destroyed (or
/// failed) before Acknowledge(), it deletes every location its writers were handed
/// (abort-on-drop). Not thread-safe; one task per thread.
class WriteTask {
 public:
  /// `partition_id` and `attempt_id` must be non-negative and unique per task attempt of
  /// the write: they are part of every file name. A task refuses to run without them.
  /// The task allocates from `pool` (the format's Parquet context's) and spills held rows
  /// below `env`'s temporary directory.
  static arrow::Result<std::unique_ptr<WriteTask>> Make(
      std::shared_ptr<const WriteFormat> format, int partition_id, int64_t attempt_id,
      Env* env = Env::Default());
  ~WriteTask();
  WriteTask(const WriteTask&) = delete;
  WriteTask& operator=(const WriteTask&) = delete;

  /// Writes a batch with the format's Arrow schema (for Iceberg, see ConformBatch). On a
  /// sorted table the task holds its rows (the format's RowHolder, spilling sorted runs)
  /// until Finish and writes them in the write ordering, as Spark sorts each task's rows
  /// before writing. In clustered mode, rows of a partition whose file was already closed
  /// give the format's error (WriteFormat::NotClustered).
  /// When the open files' buffered row groups together pass the task's buffer budget, the
  /// largest are written out early (also a single open file's, when the budget is below a
  /// row group), so a task's memory stays bounded whatever the input size. A memory pool
  /// that refuses an allocation fails the task with an error naming the budget and what
  /// to change.
  arrow::Status Write(const std::shared_ptr<arrow::RecordBatch>& batch);
  /// `batch` (with the format's Arrow schema) split by partition for `count` tasks that
  /// share the partitions out (WriteFormat::SplitShares): for a caller that computes the
  /// partitions once and hands each task the groups its share owns (WriteGroups).
  /// Thread-safe (the format is).
  arrow::Result<std::vector<std::vector<PartitionRows>>> SplitShares(
      const std::shared_ptr<arrow::RecordBatch>& batch, int count,
      const PartitionOwner& owner = nullptr) const;
  /// Writes rows already split by partition (one output of SplitShares), as
  /// Write writes a batch's: every group is written, whatever the task's share.
  arrow::Status WriteGroups(std::vector<PartitionRows> groups);
  /// From now on the task writes only the rows of the partitions `share` owns and leaves
  /// the others' to their tasks (a write whose tasks share the partitions out, each
  /// given every batch).
  void TakeShare(PartitionShare share) { share_ = share; }
  /// Holds the task's rows in `holder` instead of its own RowHolder: on a sorted table
  /// whose rows the write's tasks split by key (a range distribution, see
  /// SortedRanges::Part), Finish then writes the task's key range, gathered from every
  /// task's rows. Call before the first Write.
  void HoldRowsIn(std::shared_ptr<RowHolder> holder) { holder_ = std::move(holder); }
  /// On a sorted table, `callback` is told the row count of each slice of sorted rows
  /// Finish writes out (from the thread that calls Finish).
  void OnSortedRows(std::function<void(int64_t rows)> callback) {
    on_sorted_rows_ = std::move(callback);
  }
  /// Closes every file and returns the encoded TaskCommit message (data files sorted by
  /// path). The task still owns the files until Acknowledge().
  arrow::Result<std::string> Finish();
  /// The receiver took the message: the task stops owning its files.
  void Acknowledge() { acknowledged_ = true; }
  /// Deletes every file the task was handed a location for (best effort, logged); returns
  /// how many deletions failed. Called by the destructor when not acknowledged.
  int DeleteWrittenFiles();

  /// Every location handed to this task's writers so far.
  std::vector<std::string> locations() const { return factory_->locations(); }
  /// Rows written (of the task's partitions when it has a share).
  int64_t rows_written() const { return rows_written_; }

 private:
  WriteTask() = default;
  arrow::Result<RollingFileWriter*> WriterFor(const PartitionRows& group);
  arrow::Status WriteGroupsNow(const std::vector<PartitionRows>& groups);
  arrow::Status WriteRows(const std::shared_ptr<arrow::RecordBatch>& batch,
                          PartitionShare share);
  void AbortWriters();
  arrow::Status KeepWithinBudget();
  arrow::Status ExplainOutOfMemory(const arrow::Status& status) const;

  std::shared_ptr<const WriteFormat> format_;
  std::unique_ptr<OutputFileFactory> factory_;
  std::shared_ptr<RowHolder> holder_;  // null unless the table is sorted
  std::function<void(int64_t)> on_sorted_rows_;
  // Fanout: one open writer per partition key. Clustered and unpartitioned: at most one.
  std::map<std::string, std::unique_ptr<RollingFileWriter>> open_;
  std::set<std::string> closed_keys_;
  std::vector<TaskFile> completed_;
  PartitionShare share_;
  int64_t rows_written_ = 0;
  bool finished_ = false;
  bool acknowledged_ = false;
};

}  // namespace floe
