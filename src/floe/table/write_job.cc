#include "floe/table/write_job.h"

#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "arrow/type.h"
#include "floe/task/batch_queue.h"
#include "floe/task/limited_memory_pool.h"
#include "floe/task/partition_dealer.h"
#include "floe/util/cancel.h"
#include "floe/util/error.h"
#include "floe/util/test_hooks.h"
#include "floe/write/batch_conformer.h"
#include "floe/write/iceberg_task.h"
#include "floe/write/sorted_ranges.h"

namespace floe {
namespace {

// One run of a job: its tasks, their queues and the first error.
class JobRun {
 public:
  JobRun(const WritePlan& plan, Committer* committer, const WriteJobOptions& options)
      : plan_(plan), committer_(committer), options_(options) {}

  // The tasks and how they share the rows; nothing is written yet.
  arrow::Status Start(const std::shared_ptr<const WritePlan>& plan,
                      const std::shared_ptr<FileIO>& io) {
    const int threads = std::max(1, options_.threads);
    arrow::MemoryPool* pool = arrow::default_memory_pool();
    if (options_.memory_limit > 0) {
      limited_ = std::make_shared<LimitedMemoryPool>(pool, options_.memory_limit);
      pool = limited_.get();
    }
    for (int i = 0; i < threads; ++i) {
      ARROW_ASSIGN_OR_RAISE(auto task, MakeWriteTask(plan, io, i, i, pool, options_.env));
      tasks_.push_back(std::move(task));
    }
    // Tasks that share the partitions out each get the rows of their partitions in a
    // queue of their own, so each partition's files come from one task, as under Spark's
    // hash distribution: the reading thread splits each batch by partition once and
    // hands every group to the task the dealer gave its partition. Otherwise the tasks
    // take the batches from one queue, each writing whichever rows it gets.
    share_partitions_ = threads > 1 && plan_.distribution == Distribution::kByPartition;
    if (share_partitions_) dealer_ = std::make_unique<PartitionDealer>(threads);
    for (int i = 0; i < (share_partitions_ ? threads : 1); ++i) {
      // A task's queue holds the rows the reading thread split for it (slices of an
      // input batch and the indices of the rows to gather): a short queue bounds what
      // waits.
      queues_.push_back(std::make_unique<BatchQueue>(
          share_partitions_ ? size_t{2} : static_cast<size_t>(threads) * 2));
    }
    // Tasks that split an unpartitioned sorted table's rows by key each sort what they
    // are given, then write one key range gathered from every task's rows.
    if (threads > 1 && plan_.distribution == Distribution::kBySortKey) {
      ARROW_ASSIGN_OR_RAISE(
          ranges_,
          SortedRanges::Make(plan_.schema, plan_.spec, plan_.sort_order,
                             plan_.task_sort_run_bytes, threads, pool, options_.env));
      for (int i = 0; i < threads; ++i) tasks_[i]->HoldRowsIn(ranges_->Part(i));
    }
    if (plan_.sorts_rows()) {
      for (auto& task : tasks_) {
        task->OnSortedRows(
            [this](int64_t rows) { Report([&] { progress_.rows_sorted += rows; }); });
      }
    }
    return arrow::Status::OK();
  }

  // Reads the input to its end, feeding the tasks; then waits for them.
  void Feed(arrow::RecordBatchReader& input, BatchConformer& conformer,
            const std::string& table_name) {
    const bool threaded = tasks_.size() > 1;
    std::vector<std::thread> workers;
    if (threaded) {
      for (size_t i = 0; i < tasks_.size(); ++i) {
        BatchQueue* queue = queues_[share_partitions_ ? i : 0].get();
        workers.push_back(StartOperationThread(
            [this, i, queue] { RunTask(static_cast<int>(i), queue); }));
      }
    }
    while (true) {
      std::shared_ptr<arrow::RecordBatch> batch;
      auto status = input.ReadNext(&batch);
      if (!status.ok()) {
        Fail(WithContext(status, "reading the input"));
        break;
      }
      if (!batch) break;
      if (auto cancelled = CheckCancelled("writing table " + table_name);
          !cancelled.ok()) {
        Fail(cancelled);
        break;
      }
      auto conformed = conformer.Conform(*batch);
      if (!conformed.ok()) {
        Fail(conformed.status());
        break;
      }
      if (options_.check_rows) {
        auto checked = options_.check_rows(**conformed);
        if (!checked.ok()) {
          Fail(checked);
          break;
        }
      }
      if (threaded && share_partitions_) {
        if (!PushShares(*conformed)) break;
      } else if (threaded) {
        if (!queues_[0]->Push(TaskWork{*conformed, {}})) break;
      } else {
        auto written = tasks_[0]->Write(*conformed);
        if (!written.ok()) {
          Fail(written);
          break;
        }
        if (progress_.batches == 0) TestPausePoint("write");
      }
      Report([&] {
        progress_.rows += batch->num_rows();
        progress_.batches += 1;
      });
    }
    for (auto& queue : queues_) queue->Close();
    if (plan_.sorts_rows() && !Failed()) Report([&] { progress_.input_done = true; });
    if (threaded) {
      for (auto& worker : workers) worker.join();
    } else if (!Failed()) {
      RunTask(0, queues_[0].get());
    }
  }

  // After Feed: the first error, with the tasks' unfinished files deleted.
  arrow::Status Finish() {
    if (first_error_.ok()) return arrow::Status::OK();
    // Files of finished tasks go with the committer, the others with their tasks'
    // guards.
    committer_->Abort();
    tasks_.clear();
    return first_error_;
  }

  const WriteProgress& progress() const { return progress_; }

 private:
  void Fail(const arrow::Status& status) {
    std::lock_guard<std::mutex> lock(error_mutex_);
    if (first_error_.ok()) first_error_ = status;
    for (auto& queue : queues_) queue->Cancel();
    if (ranges_) ranges_->Cancel();  // tasks waiting for the others' rows give up
  }

  bool Failed() {
    std::lock_guard<std::mutex> lock(error_mutex_);
    return !first_error_.ok();
  }

  // Progress goes out from the reading thread while it reads the input, then from the
  // tasks' threads as they write out sorted rows.
  void Report(const std::function<void()>& update) {
    std::lock_guard<std::mutex> lock(progress_mutex_);
    update();
    if (options_.progress) options_.progress(progress_);
  }

  // Splits `batch` by partition once and hands each task the groups of the partitions
  // the dealer gave it (the partition keys computed once, not by every task for every
  // row). False after a failure or a cancelled queue.
  bool PushShares(const std::shared_ptr<arrow::RecordBatch>& batch) {
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

  // Each task hands its message to the committer as soon as it finishes.
  void RunTask(int index, BatchQueue* queue) {
    WriteTask* task = tasks_[static_cast<size_t>(index)].get();
    while (auto work = queue->Pop()) {
      const int64_t rows = work->rows();
      auto status = work->batch ? task->Write(work->batch)
                                : task->WriteGroups(std::move(work->groups));
      if (!status.ok()) {
        Fail(status);
        return;
      }
      if (dealer_) dealer_->Written(index, rows);
    }
    if (Failed()) return;
    auto message = task->Finish();
    if (!message.ok()) {
      Fail(message.status());
      return;
    }
    auto added = committer_->Add(*message);
    if (!added.ok()) {
      Fail(added);
      return;
    }
    task->Acknowledge();
  }

  const WritePlan& plan_;
  Committer* committer_;
  const WriteJobOptions& options_;
  std::shared_ptr<LimitedMemoryPool> limited_;
  std::vector<std::unique_ptr<WriteTask>> tasks_;
  std::vector<std::unique_ptr<BatchQueue>> queues_;
  std::shared_ptr<SortedRanges> ranges_;
  bool share_partitions_ = false;
  std::unique_ptr<PartitionDealer> dealer_;
  std::mutex error_mutex_;
  arrow::Status first_error_;
  std::mutex progress_mutex_;
  WriteProgress progress_;
};

}  // namespace

WriteJob::WriteJob(std::shared_ptr<const WritePlan> plan, std::shared_ptr<FileIO> io,
                   Committer* committer, std::string table_name, WriteJobOptions options)
    : plan_(std::move(plan)),
      io_(std::move(io)),
      committer_(committer),
      table_name_(std::move(table_name)),
      options_(std::move(options)) {}

arrow::Status WriteJob::CancelledError() const {
  return MakeError(
      ErrorKind::kCancelled,
      "writing table " + table_name_ +
          " was cancelled; nothing was committed and the files it wrote were "
          "deleted");
}

arrow::Result<WriteJobResult> WriteJob::Run(arrow::RecordBatchReader& input) {
  auto failed = [&](const arrow::Status& status) {
    committer_->Abort();
    return status;
  };
  auto conformer = BatchConformer::Make(*input.schema(), plan_->schema, table_name_);
  if (!conformer.ok()) return failed(conformer.status());
  // Arrow computes a schema's fingerprints lazily and caches them; compute them here,
  // before the conformed batches (which share this schema) reach the task threads.
  (void)(*conformer)->target()->fingerprint();
  (void)(*conformer)->target()->metadata_fingerprint();
  JobRun run(*plan_, committer_, options_);
  if (auto started = run.Start(plan_, io_); !started.ok()) return failed(started);
  run.Feed(input, **conformer, table_name_);
  auto finished = run.Finish();
  if (!finished.ok()) {
    return KindOf(finished) == ErrorKind::kCancelled ? CancelledError() : finished;
  }
  WriteJobResult result;
  result.rows = run.progress().rows;  // the tasks are done: nothing else touches it
  result.batches = run.progress().batches;
  return result;
}

}  // namespace floe
