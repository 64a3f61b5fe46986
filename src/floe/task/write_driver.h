// The threaded write driver, once for both table formats (Iceberg's WriteJob, Delta's
// write): one thread reads the input, conforms each batch to the table's columns and
// hands it to the write tasks; the tasks write on threads of their own. Format-neutral:
// the format decides what a task is (WriteFormat) and what happens when one finishes.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "arrow/record_batch.h"
#include "arrow/status.h"
#include "floe/task/write_task.h"

namespace floe {

/// The most tasks one write runs.
inline constexpr int kMaxWriteTasks = 256;
/// A default write's tasks leave each other at least this much of its memory limit.
inline constexpr int64_t kMinDefaultTaskMemory = int64_t{64} << 20;
/// A default write starts another task only once the input read so far has this many rows
/// for each task running (WriteDriverOptions::rows_per_task).
inline constexpr int64_t kDefaultTaskRows = int64_t{128} << 10;

/// The machine's cores (std::thread::hardware_concurrency; 1 when it cannot tell).
int MachineCores();

/// The tasks a write runs when its caller does not say how many (threads 0): one per
/// core, at most kMaxWriteTasks, and, under a memory limit (`memory_limit` > 0), no more
/// than leave each task kMinDefaultTaskMemory of it; at least 1.
int DefaultWriteTasks(int64_t memory_limit, int cores = MachineCores());

/// How the tasks share the input.
struct WriteDriverOptions {
  /// Each partition to one task (PartitionDealer), so that a partition's files come from
  /// one task, as under Spark's hash distribution: the reading thread splits each batch
  /// by partition once and hands every task the rows of its partitions, in a queue of its
  /// own. Otherwise the tasks take whole batches from one queue, each writing whichever
  /// rows it gets. Only with more than one task.
  bool share_partitions = false;
  /// With more than one task, batches longer than this go in zero-copy slices of at most
  /// this many rows, so every task has rows to write and the split of one slice overlaps
  /// the writing of the last; 0 hands batches whole.
  int64_t slice_rows = 0;
  /// With more than one task and share_partitions off: the tasks after the first take
  /// rows one at a time, each once the input read so far has more than this many rows for
  /// each task taking rows, so that a small input is written by one task, as a one-task
  /// write writes it (0: every task takes rows from the start). A task that never took
  /// rows still finishes (task_done) once the input ends.
  int64_t rows_per_task = 0;
  /// Input batches with no rows are dropped before they are conformed.
  bool skip_empty_batches = false;
  /// Names the work in the Cancelled error ("writing table db.t").
  std::string what;
};

/// What the format does at each step; only `conform` is required. Every hook returning a
/// Status fails the whole write with it.
struct WriteDriverHooks {
  /// The input batch as the table's columns (one schema object shared by every batch,
  /// its fingerprints computed before the driver starts).
  std::function<arrow::Result<std::shared_ptr<arrow::RecordBatch>>(
      const std::shared_ptr<arrow::RecordBatch>&)>
      conform;
  /// Checks a conformed batch before it is written (an overwrite's row filter).
  std::function<arrow::Status(const arrow::RecordBatch&)> check;
  /// After an input batch was handed on (or written), on the reading thread: its
  /// conformed rows.
  std::function<void(int64_t rows)> fed;
  /// After the input was read to its end without error, before the tasks are waited for.
  std::function<void()> input_done;
  /// After task `index` wrote every row it was handed, on its thread (the reading thread
  /// for a single task); not called once the write failed.
  std::function<arrow::Status(int index)> task_done;
  /// After the first error, once: stops what else waits on the tasks (a sorted range).
  std::function<void()> cancel;
};

/// Writes `input` with `tasks` (more than one: each on a thread of its own; one: on the
/// calling thread) and returns the first error, OK when every row was written. The tasks
/// are left unfinished unless `task_done` finishes them; on an error the caller destroys
/// them, deleting their files. Cancellation (CheckCancelled) is checked before each
/// batch.
arrow::Status DriveWriteTasks(const std::vector<WriteTask*>& tasks,
                              arrow::RecordBatchReader& input,
                              const WriteDriverOptions& options,
                              const WriteDriverHooks& hooks);

}  // namespace floe
