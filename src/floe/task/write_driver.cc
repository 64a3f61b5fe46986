#include "floe/task/write_driver.h"

#include <algorithm>
#include <thread>

#include "floe/task/batch_queue_internal.h"
#include "floe/task/partition_dealer_internal.h"
#include "floe/util/cancel.h"
#include "floe/util/error.h"
#include "floe/util/first_error_internal.h"

namespace floe {
namespace {

// One run: the tasks' queues, the dealer and the first error.
class DriverRun {
 public:
  DriverRun(const std::vector<WriteTask*>& tasks, const WriteDriverOptions& options,
            const WriteDriverHooks& hooks)
      : tasks_(tasks),
        options_(options),
        hooks_(hooks),
        threaded_(tasks.size() > 1),
        share_(threaded_ && options.share_partitions) {
    const int count = static_cast<int>(tasks.size());
    if (share_) dealer_ = std::make_unique<PartitionDealer>(count);
    // A task's queue holds the rows the reading thread split for it (slices of an input
    // batch and the indices of the rows to gather): a short queue bounds what waits.
    for (int i = 0; i < (share_ ? count : 1); ++i) {
      queues_.push_back(std::make_unique<BatchQueue>(
          share_ ? size_t{2} : static_cast<size_t>(count) * 2));
    }
  }

  arrow::Status Run(arrow::RecordBatchReader& input) {
    if (threaded_) {
      const bool grow = !share_ && options_.rows_per_task > 0;
      StartTasks(grow ? 1 : tasks_.size());
    }
    if (auto fed = Feed(input); !fed.ok()) Fail(fed);
    for (auto& queue : queues_) queue->Close();
    if (error_.ok() && hooks_.input_done) hooks_.input_done();
    if (threaded_) {
      // Tasks that were not taking rows take none now: they finish at once.
      for (size_t i = workers_.size(); i < tasks_.size(); ++i) {
        workers_.push_back(
            StartOperationThread([this, i] { TaskDone(static_cast<int>(i)); }));
      }
      for (auto& worker : workers_) worker.join();
    } else {
      TaskDone(0);
    }
    return error_.status();
  }

 private:
  void Fail(const arrow::Status& status) {
    if (!error_.Record(status)) return;
    for (auto& queue : queues_) queue->Cancel();
    if (hooks_.cancel) hooks_.cancel();
  }

  // Starts the tasks' threads up to task `count`.
  void StartTasks(size_t count) {
    for (size_t i = workers_.size(); i < count; ++i) {
      BatchQueue* queue = queues_[share_ ? i : 0].get();
      workers_.push_back(StartOperationThread(
          [this, i, queue] { RunTask(static_cast<int>(i), queue); }));
    }
  }

  // Reads the input to its end (or the first error, or a cancelled queue: a task failed,
  // and its error is the one reported).
  arrow::Status Feed(arrow::RecordBatchReader& input) {
    while (true) {
      std::shared_ptr<arrow::RecordBatch> batch;
      ARROW_RETURN_NOT_OK(WithContext(input.ReadNext(&batch), "reading the input"));
      if (!batch) return arrow::Status::OK();
      ARROW_RETURN_NOT_OK(CheckCancelled(options_.what));
      if (options_.skip_empty_batches && batch->num_rows() == 0) continue;
      ARROW_ASSIGN_OR_RAISE(auto conformed, hooks_.conform(batch));
      if (hooks_.check) ARROW_RETURN_NOT_OK(hooks_.check(*conformed));
      if (!threaded_) {
        ARROW_RETURN_NOT_OK(tasks_[0]->Write(conformed));
      } else {
        const int64_t rows = conformed->num_rows();
        const int64_t step = options_.slice_rows > 0 ? options_.slice_rows : rows;
        for (int64_t offset = 0; offset < rows || offset == 0; offset += step) {
          auto slice = step >= rows ? conformed : conformed->Slice(offset, step);
          const int64_t slice_rows = slice->num_rows();
          if (!Push(std::move(slice))) return arrow::Status::OK();
          Grow(slice_rows);
          if (step >= rows) break;
        }
      }
      if (hooks_.fed) hooks_.fed(conformed->num_rows());
    }
  }

  // Starts the next tasks (rows_per_task) now that `rows` more rows were handed on.
  void Grow(int64_t rows) {
    fed_rows_ += rows;
    if (share_ || options_.rows_per_task <= 0) return;
    size_t running = workers_.size();
    while (running < tasks_.size() &&
           fed_rows_ > options_.rows_per_task * static_cast<int64_t>(running)) {
      ++running;
    }
    StartTasks(running);
  }

  // False when a queue was cancelled.
  bool Push(std::shared_ptr<arrow::RecordBatch> batch) {
    if (!share_) return queues_[0]->Push(TaskWork{std::move(batch), {}});
    auto shares = tasks_[0]->SplitShares(batch, static_cast<int>(queues_.size()),
                                         dealer_->AsOwner());
    if (!shares.ok()) {
      Fail(shares.status());
      return false;
    }
    for (size_t i = 0; i < queues_.size(); ++i) {
      auto& groups = (*shares)[i];
      if (groups.empty()) continue;
      if (!queues_[i]->Push(TaskWork{nullptr, std::move(groups)})) return false;
    }
    return true;
  }

  void RunTask(int index, BatchQueue* queue) {
    WriteTask* task = tasks_[static_cast<size_t>(index)];
    while (auto work = queue->Pop()) {
      const int64_t rows = work->rows();
      auto status = work->batch ? task->Write(work->batch)
                                : task->WriteGroups(std::move(work->groups));
      if (!status.ok()) return Fail(status);
      if (dealer_) dealer_->Written(index, rows);
    }
    TaskDone(index);
  }

  void TaskDone(int index) {
    if (!error_.ok() || !hooks_.task_done) return;
    if (auto done = hooks_.task_done(index); !done.ok()) Fail(done);
  }

  const std::vector<WriteTask*>& tasks_;
  const WriteDriverOptions& options_;
  const WriteDriverHooks& hooks_;
  const bool threaded_;
  const bool share_;
  std::unique_ptr<PartitionDealer> dealer_;
  std::vector<std::unique_ptr<BatchQueue>> queues_;
  std::vector<std::thread> workers_;
  int64_t fed_rows_ = 0;  // rows handed to the tasks so far
  FirstError error_;
};

}  // namespace

int MachineCores() {
  const unsigned cores = std::thread::hardware_concurrency();
  return cores == 0 ? 1 : static_cast<int>(cores);
}

int DefaultWriteTasks(int64_t memory_limit, int cores) {
  int64_t tasks = std::clamp(cores, 1, kMaxWriteTasks);
  if (memory_limit > 0) {
    tasks = std::min(tasks, memory_limit / kMinDefaultTaskMemory);
  }
  return static_cast<int>(std::max<int64_t>(1, tasks));
}

arrow::Status DriveWriteTasks(const std::vector<WriteTask*>& tasks,
                              arrow::RecordBatchReader& input,
                              const WriteDriverOptions& options,
                              const WriteDriverHooks& hooks) {
  if (tasks.empty()) return arrow::Status::Invalid("a write needs at least one task");
  return DriverRun(tasks, options, hooks).Run(input);
}

}  // namespace floe
