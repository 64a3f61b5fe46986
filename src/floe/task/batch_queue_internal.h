// Work from the thread that reads a write's input to the threads that run its write
// tasks: whole batches, or rows the reading thread already split by partition for one
// task's share (WriteTask::SplitShares). Format-neutral: Iceberg's WriteJob and Delta's
// write share it.
#pragma once

#include <cstddef>
#include <deque>
#include <memory>
#include <optional>
#include <vector>

#include "arrow/record_batch.h"
#include "floe/task/write_format.h"
#include "floe/util/mutex.h"

namespace floe {

/// What a task is handed: a batch, or rows the reading thread already split by
/// partition (the groups the task's share owns).
struct TaskWork {
  std::shared_ptr<arrow::RecordBatch> batch;
  std::vector<PartitionRows> groups;

  int64_t rows() const {
    int64_t total = batch ? batch->num_rows() : 0;
    for (const auto& group : groups) total += group.num_rows();
    return total;
  }
};

/// A bounded queue of work from the reading thread to the task threads.
class BatchQueue {
 public:
  explicit BatchQueue(size_t capacity) : capacity_(capacity) {}

  // False when the queue was cancelled.
  bool Push(TaskWork work) {
    MutexLock lock(&mutex_);
    while (queue_.size() >= capacity_ && !cancelled_) space_.Wait(&mutex_);
    if (cancelled_) return false;
    queue_.push_back(std::move(work));
    ready_.Signal();
    return true;
  }
  // Nothing once closed and drained, or cancelled.
  std::optional<TaskWork> Pop() {
    MutexLock lock(&mutex_);
    while (queue_.empty() && !closed_ && !cancelled_) ready_.Wait(&mutex_);
    if (cancelled_ || queue_.empty()) return std::nullopt;
    TaskWork work = std::move(queue_.front());
    queue_.pop_front();
    space_.Signal();
    return work;
  }
  void Close() {
    MutexLock lock(&mutex_);
    closed_ = true;
    ready_.SignalAll();
  }
  void Cancel() {
    MutexLock lock(&mutex_);
    cancelled_ = true;
    ready_.SignalAll();
    space_.SignalAll();
  }

 private:
  const size_t capacity_;
  Mutex mutex_;
  CondVar ready_;  // work queued, or the queue closed or cancelled
  CondVar space_;  // room in the queue, or the queue cancelled
  std::deque<TaskWork> queue_ FLOE_GUARDED_BY(mutex_);
  bool closed_ FLOE_GUARDED_BY(mutex_) = false;
  bool cancelled_ FLOE_GUARDED_BY(mutex_) = false;
};

}  // namespace floe
