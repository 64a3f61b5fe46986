#include "floe/iceberg/table/write_job.h"

#include <functional>
#include <vector>

#include "arrow/type.h"
#include "floe/iceberg/write/batch_conformer.h"
#include "floe/iceberg/write/iceberg_task.h"
#include "floe/iceberg/write/sorted_ranges_internal.h"
#include "floe/task/limited_memory_pool.h"
#include "floe/task/write_driver.h"
#include "floe/util/error.h"
#include "floe/util/mutex.h"
#include "floe/util/test_hooks_internal.h"

namespace floe::iceberg {
namespace {

// One run of a job: its tasks, how they share the rows, and the progress so far.
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
    // Tasks that split an unpartitioned sorted table's rows by key each sort what they
    // are given, then write one key range gathered from every task's rows.
    if (threads > 1 && plan_.distribution == Distribution::kBySortKey) {
      ARROW_ASSIGN_OR_RAISE(ranges_,
                            SortedRanges::Make(plan_.schema, plan_.spec, plan_.sort_order,
                                               plan_.task_sort_run_bytes, threads, pool,
                                               options_.env, options_.rows_per_task));
      for (int i = 0; i < threads; ++i) tasks_[i]->HoldRowsIn(ranges_->Part(i));
    }
    if (plan_.sorts_rows()) {
      for (auto& task : tasks_) {
        task->OnSortedRows([this](int64_t rows) {
          Report([&](WriteProgress& progress) { progress.rows_sorted += rows; });
        });
      }
    }
    return arrow::Status::OK();
  }

  // Reads the input to its end, feeding the tasks (DriveWriteTasks); each task hands its
  // message to the committer as soon as it finishes. The first error, with the tasks'
  // unfinished files deleted.
  arrow::Status Feed(arrow::RecordBatchReader& input, BatchConformer& conformer,
                     const std::string& table_name) {
    std::vector<WriteTask*> tasks;
    for (auto& task : tasks_) tasks.push_back(task.get());
    WriteDriverOptions options;
    options.share_partitions = plan_.distribution == Distribution::kByPartition;
    // Big batches in slices, so that every task has rows to write.
    options.slice_rows = kDefaultTaskRows;
    options.rows_per_task = options_.rows_per_task;
    options.what = "writing table " + table_name;
    WriteDriverHooks hooks;
    hooks.conform = [&](const std::shared_ptr<arrow::RecordBatch>& batch) {
      return conformer.Conform(*batch);
    };
    hooks.check = options_.check_rows;
    bool first_batch = true;
    hooks.fed = [&](int64_t rows) {
      if (first_batch && tasks.size() == 1) TestPausePoint("write");
      first_batch = false;
      Report([&](WriteProgress& progress) {
        progress.rows += rows;
        progress.batches += 1;
      });
    };
    if (plan_.sorts_rows()) {
      hooks.input_done = [&] {
        Report([](WriteProgress& progress) { progress.input_done = true; });
      };
    }
    hooks.task_done = [&](int index) -> arrow::Status {
      WriteTask* task = tasks[static_cast<size_t>(index)];
      ARROW_ASSIGN_OR_RAISE(auto message, task->Finish());
      ARROW_RETURN_NOT_OK(committer_->Add(message));
      task->Acknowledge();
      return arrow::Status::OK();
    };
    // Tasks waiting for the others' rows give up.
    if (ranges_) hooks.cancel = [&] { ranges_->Cancel(); };
    arrow::Status status = DriveWriteTasks(tasks, input, options, hooks);
    if (status.ok()) return status;
    // Files of finished tasks go with the committer, the others with their tasks'
    // guards.
    committer_->Abort();
    tasks_.clear();
    return status;
  }

  WriteProgress progress() FLOE_EXCLUDES(progress_mutex_) {
    MutexLock lock(&progress_mutex_);
    return progress_;
  }

 private:
  // Progress goes out from the reading thread while it reads the input, then from the
  // tasks' threads as they write out sorted rows.
  void Report(const std::function<void(WriteProgress&)>& update)
      FLOE_EXCLUDES(progress_mutex_) {
    MutexLock lock(&progress_mutex_);
    update(progress_);
    if (options_.progress) options_.progress(progress_);
  }

  const WritePlan& plan_;
  Committer* committer_;
  const WriteJobOptions& options_;
  std::shared_ptr<LimitedMemoryPool> limited_;
  std::vector<std::unique_ptr<WriteTask>> tasks_;
  std::shared_ptr<SortedRanges> ranges_;
  Mutex progress_mutex_;
  WriteProgress progress_ FLOE_GUARDED_BY(progress_mutex_);
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
  auto conformer = MakeBatchConformer(*input.schema(), *plan_->schema, table_name_);
  if (!conformer.ok()) return failed(conformer.status());
  // Arrow computes a schema's fingerprints lazily and caches them; compute them here,
  // before the conformed batches (which share this schema) reach the task threads.
  (void)(*conformer)->target()->fingerprint();
  (void)(*conformer)->target()->metadata_fingerprint();
  JobRun run(*plan_, committer_, options_);
  if (auto started = run.Start(plan_, io_); !started.ok()) return failed(started);
  auto finished = run.Feed(input, **conformer, table_name_);
  if (!finished.ok()) {
    return KindOf(finished) == ErrorKind::kCancelled ? CancelledError() : finished;
  }
  WriteJobResult result;
  const WriteProgress progress = run.progress();
  result.rows = progress.rows;
  result.batches = progress.batches;
  return result;
}

}  // namespace floe::iceberg
