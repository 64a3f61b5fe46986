// Work from the thread that reads a write's input to the threads that run its write
// tasks: whole batches, or rows the reading thread already split by partition for one
// task's share (WriteTask::SplitShares). Format-neutral: Iceberg's WriteJob and Delta's
// write share it.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "arrow/record_batch.h"
#include "floe/task/write_format.h"

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
    std::unique_lock<std::mutex> lock(mutex_);
    space_.wait(lock, [&] { return queue_.size() < capacity_ || cancelled_; });
    if (cancelled_) return false;
    queue_.push_back(std::move(work));
    ready_.notify_one();
    return true;
  }
  // Nothing once closed and drained, or cancelled.
  std::optional<TaskWork> Pop() {
    std::unique_lock<std::mutex> lock(mutex_);
    ready_.wait(lock, [&] { return !queue_.empty() || closed_ || cancelled_; });
    if (cancelled_ || queue_.empty()) return std::nullopt;
    TaskWork work = std::move(queue_.front());
    queue_.pop_front();
    space_.notify_one();
    return work;
  }
  void Close() {
    std::lock_guard<std::mutex> lock(mutex_);
    closed_ = true;
    ready_.notify_all();
  }
  void Cancel() {
    std::lock_guard<std::mutex> lock(mutex_);
    cancelled_ = true;
    ready_.notify_all();
    space_.notify_all();
  }

 private:
  size_t capacity_;
  std::mutex mutex_;
  std::condition_variable ready_;
  std::condition_variable space_;
  std::deque<TaskWork> queue_;
  bool closed_ = false;
  bool cancelled_ = false;
};

}  // namespace floe
