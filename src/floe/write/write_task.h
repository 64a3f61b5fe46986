// A write task: turns record batches into data files for one slice of a write's input and
// hands them over as one TaskCommit message.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "arrow/memory_pool.h"
#include "arrow/type_fwd.h"
#include "floe/io/file_io.h"
#include "floe/util/env.h"
#include "floe/write/partitioner.h"
#include "floe/write/rolling_writer.h"
#include "floe/write/row_sorter.h"
#include "floe/write/sorted_ranges.h"
#include "floe/write/write_plan.h"

namespace floe {

/// Owns every file it writes until the receiver acknowledges its message: destroyed (or
/// failed) before Acknowledge(), it deletes every location its writers were handed
/// (abort-on-drop). Not thread-safe; one task per thread.
class WriteTask {
 public:
  /// `partition_id` and `attempt_id` must be non-negative and unique per task attempt of
  /// the write: they are part of every file name. A task refuses to run without them.
  /// The task allocates from `pool` and spills sorted rows below `env`'s temporary
  /// directory.
  static arrow::Result<std::unique_ptr<WriteTask>> Make(
      std::shared_ptr<const WritePlan> plan, std::shared_ptr<FileIO> io, int partition_id,
      int64_t attempt_id, arrow::MemoryPool* pool = arrow::default_memory_pool(),
      Env* env = Env::Default());
  ~WriteTask();
  WriteTask(const WriteTask&) = delete;
  WriteTask& operator=(const WriteTask&) = delete;

  /// Writes a batch with the plan's schema in Arrow form (see ConformBatch). On a sorted
  /// table the task holds its rows (spilling sorted runs past the plan's run size) until
  /// Finish and writes them in the write ordering (see RowSorter), as Spark sorts each
  /// task's rows before writing. In clustered
  /// mode, rows of a partition whose file was already closed give iceberg-java's error.
  /// When the open files' buffered row groups together pass the task's buffer budget, the
  /// largest are written out early (also a single open file's, when the budget is below a
  /// row group), so a task's memory stays bounded whatever the input size. A memory pool
  /// that refuses an allocation fails the task with an error naming the budget and what
  /// to change.
  arrow::Status Write(const std::shared_ptr<arrow::RecordBatch>& batch);
  /// From now on the task writes only the rows of the partitions `share` owns and leaves
  /// the others' to their tasks (a write whose tasks share the partitions out, each
  /// given every batch).
  void TakeShare(PartitionShare share) { share_ = share; }
  /// On a sorted table whose rows the write's tasks split by key (a range distribution,
  /// see SortedRanges): the task adds its rows to part `part` of `ranges`, and Finish
  /// writes that part's key range, gathered from every task's rows, once every task has
  /// reached Finish. Call before the first Write.
  void SortInRange(std::shared_ptr<SortedRanges> ranges, int part) {
    ranges_ = std::move(ranges);
    range_part_ = part;
    sorter_.reset();
  }
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
  arrow::Result<RollingDataWriter*> WriterFor(const Partitioner::Group& group);
  arrow::Status WriteRows(const std::shared_ptr<arrow::RecordBatch>& batch,
                          PartitionShare share);
  void AbortWriters();
  arrow::Status KeepWithinBudget();
  arrow::Status ExplainOutOfMemory(const arrow::Status& status) const;

  std::shared_ptr<const WritePlan> plan_;
  std::shared_ptr<const DataWriterContext> context_;
  std::unique_ptr<OutputFileFactory> factory_;
  std::unique_ptr<Partitioner> partitioner_;
  std::unique_ptr<RowSorter> sorter_;     // null unless the table is sorted
  std::shared_ptr<SortedRanges> ranges_;  // instead of sorter_, under a range split
  int range_part_ = 0;
  std::function<void(int64_t)> on_sorted_rows_;
  // Fanout: one open writer per partition key. Clustered and unpartitioned: at most one.
  std::map<std::string, std::unique_ptr<RollingDataWriter>> open_;
  std::set<std::string> closed_keys_;
  std::vector<DataFile> completed_;
  int64_t buffer_budget_ = 0;
  PartitionShare share_;
  int64_t rows_written_ = 0;
  bool finished_ = false;
  bool acknowledged_ = false;
};

}  // namespace floe
