// WriteJob: runs a write's tasks in this process. It reads the input once, shares its
// batches among the tasks as the plan's distribution says, hands each task's TaskCommit
// message to the committer as soon as the task finishes, reports progress, and owns the
// cleanup of a job that fails.
//
// The write path, split so that its parts can run in different places (threads here;
// Python workers, Spark executors, another process later):
//
//   1. plan:   WritePlan::Make(metadata, options, plan options) on the driver, after the
//              gate (CheckWrite) accepted the write. Immutable; WritePlan::Serialize
//              gives the text that travels to the tasks.
//   2. tasks:  MakeWriteTask(plan, io, partition id, attempt id) wherever the rows are;
//              Write each batch, then Finish gives the TaskCommit message (the files
//              written and every location opened), or the task's destructor deletes them.
//              Acknowledge once the committer holds the message.
//   3. commit: one Committer on the driver, for one SnapshotProducer (FastAppend,
//              OverwriteFiles): Add every message as it arrives (it then owns the files),
//              then Commit exactly once, or Abort, which deletes every file of every
//              message added.
//
// WriteJob is that path for tasks on this process's threads; Table::Append and friends
// use it. Drivers elsewhere call the three parts themselves.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "arrow/record_batch.h"
#include "floe/iceberg/commit/committer.h"
#include "floe/iceberg/write/write_plan.h"
#include "floe/io/file_io.h"
#include "floe/util/env.h"

namespace floe::iceberg {

/// Progress of a running write, reported after each input batch and, on a sorted table
/// (whose tasks hold their rows back until the input ends), as the tasks write out their
/// sorted rows.
struct WriteProgress {
  int64_t rows = 0;     ///< Input rows read.
  int64_t batches = 0;  ///< Input batches read.
  /// The input is all read: a sorted table's tasks are sorting and writing its rows.
  bool input_done = false;
  /// Rows a sorted table's tasks have written out in sort order so far (all `rows` once
  /// they are done).
  int64_t rows_sorted = 0;
};

struct WriteJobOptions {
  /// Tasks, each on its own thread (1: the calling thread writes). Make the plan with the
  /// same number (WritePlanOptions::tasks), so that its budgets are the tasks' shares.
  int threads = 1;
  /// Tasks after the first take rows only once the input has more than this many rows
  /// for each task already taking them (WriteDriverOptions::rows_per_task), and an
  /// unpartitioned sorted table's rows are split into no more key ranges than leave
  /// each this many rows: a small input is written as by one task. 0: every task from the
  /// start. Set for a write whose task count is the default (DefaultWriteTasks).
  int64_t rows_per_task = 0;
  /// Bytes the tasks may allocate together (0: no limit), as the plan was made for
  /// (WritePlanOptions::memory_limit). Past it a task fails with an error saying so.
  int64_t memory_limit = 0;
  /// Called with the progress so far, from one thread at a time.
  std::function<void(const WriteProgress&)> progress;
  /// Sees every batch, conformed to the plan's schema, before it is written; an error
  /// fails the job.
  std::function<arrow::Status(const arrow::RecordBatch&)> check_rows;
  /// The tasks' machine (their temporary directory for sorted runs).
  Env* env = Env::Default();
};

/// What a job that succeeded read; its files are the committer's (Committer::files()).
struct WriteJobResult {
  int64_t rows = 0;
  int64_t batches = 0;
};

/// Runs once. Not thread-safe itself; its tasks run on threads of their own.
class WriteJob {
 public:
  /// A job writing rows of table `table_name` (for messages) with `plan` through `io`,
  /// handing each finished task's message to `committer` (not owned; it must outlive the
  /// job).
  WriteJob(std::shared_ptr<const WritePlan> plan, std::shared_ptr<FileIO> io,
           Committer* committer, std::string table_name, WriteJobOptions options);

  /// Reads `input` to its end (streamed, never loaded whole), matching its columns to the
  /// plan's schema by name and casting them safely (a mismatch fails before any file
  /// exists), and writes it with the tasks. On success every task's message is the
  /// committer's and the caller commits. On failure or cancellation the committer is
  /// aborted, so every file the job wrote is deleted and nothing can be committed, and
  /// the first error is returned (Cancelled saying so after a cancellation request).
  arrow::Result<WriteJobResult> Run(arrow::RecordBatchReader& input);

  /// The error a cancelled write of this job's table gives: nothing was committed and its
  /// files were deleted. For a caller that notices cancellation after Run.
  arrow::Status CancelledError() const;

 private:
  std::shared_ptr<const WritePlan> plan_;
  std::shared_ptr<FileIO> io_;
  Committer* committer_;
  std::string table_name_;
  WriteJobOptions options_;
};

}  // namespace floe::iceberg
