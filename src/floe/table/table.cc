#include "floe/table/table.h"

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "arrow/type.h"
#include "floe/commit/committer.h"
#include "floe/io/location_provider.h"
#include "floe/table/file_ownership.h"
#include "floe/util/cancel.h"
#include "floe/util/error.h"
#include "floe/util/test_hooks.h"
#include "floe/write/batch_conformer.h"
#include "floe/write/limited_memory_pool.h"
#include "floe/write/sorted_ranges.h"
#include "floe/write/write_task.h"

namespace floe {

Table::Table(std::shared_ptr<Catalog> catalog, TableIdentifier id, TableState state,
             std::shared_ptr<FileIO> io)
    : catalog_(std::move(catalog)),
      id_(std::move(id)),
      state_(std::move(state)),
      io_(std::move(io)) {}

arrow::Result<std::shared_ptr<Table>> Table::Load(std::shared_ptr<Catalog> catalog,
                                                  const TableIdentifier& id) {
  ARROW_ASSIGN_OR_RAISE(auto state, catalog->LoadTable(id));
  ARROW_ASSIGN_OR_RAISE(auto io, catalog->TableIO(id, state));
  return std::make_shared<Table>(std::move(catalog), id, std::move(state), std::move(io));
}

arrow::Result<std::shared_ptr<Table>> Table::Create(std::shared_ptr<Catalog> catalog,
                                                    const TableIdentifier& id,
                                                    const CreateTableOptions& options) {
  if (!options.schema)
    return MakeError(ErrorKind::kInvalidInput, "a new table needs a schema");
  std::string location = options.location;
  if (location.empty()) {
    ARROW_ASSIGN_OR_RAISE(location, catalog->DefaultTableLocation(id));
  }
  auto spec = options.spec ? options.spec : PartitionSpec::Unpartitioned();
  auto order = options.sort_order ? options.sort_order : SortOrder::Unsorted();
  ARROW_ASSIGN_OR_RAISE(auto metadata,
                        NewTableMetadata(*options.schema, *spec, *order, location,
                                         options.properties, catalog->env()));
  // Nothing may already be where the new table's files go, nor overlap another table's.
  ARROW_RETURN_NOT_OK(CheckNewTableLocation(catalog, id, *metadata));
  ARROW_ASSIGN_OR_RAISE(auto state, catalog->CreateTable(id, *metadata));
  ARROW_ASSIGN_OR_RAISE(auto io, catalog->TableIO(id, state));
  return std::make_shared<Table>(std::move(catalog), id, std::move(state), std::move(io));
}

arrow::Status Table::Refresh() {
  ARROW_ASSIGN_OR_RAISE(state_, catalog_->LoadTable(id_));
  return arrow::Status::OK();
}

GateResult Table::ExplainWrite(const PropertyMap& options) const {
  return CheckWrite(*state_.metadata, options);
}

arrow::Result<std::unique_ptr<TableScan>> Table::NewScan(ScanOptions options) const {
  return TableScan::Make(io(), state_.metadata, std::move(options));
}

namespace {

// A bounded queue of batches from the reading thread to the task threads.
class BatchQueue {
 public:
  explicit BatchQueue(size_t capacity) : capacity_(capacity) {}

  // False when the queue was cancelled.
  bool Push(std::shared_ptr<arrow::RecordBatch> batch) {
    std::unique_lock<std::mutex> lock(mutex_);
    space_.wait(lock, [&] { return queue_.size() < capacity_ || cancelled_; });
    if (cancelled_) return false;
    queue_.push_back(std::move(batch));
    ready_.notify_one();
    return true;
  }
  // nullptr once closed and drained, or cancelled.
  std::shared_ptr<arrow::RecordBatch> Pop() {
    std::unique_lock<std::mutex> lock(mutex_);
    ready_.wait(lock, [&] { return !queue_.empty() || closed_ || cancelled_; });
    if (cancelled_ || queue_.empty()) return nullptr;
    auto batch = std::move(queue_.front());
    queue_.pop_front();
    space_.notify_one();
    return batch;
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
  std::deque<std::shared_ptr<arrow::RecordBatch>> queue_;
  bool closed_ = false;
  bool cancelled_ = false;
};

}  // namespace

arrow::Status Table::Declined(const GateResult& gate, std::string_view what) const {
  if (gate.supported()) return arrow::Status::OK();
  return MakeError(ErrorKind::kNotSupported, "floe declines to " + std::string(what) +
                                                 " table " + id_.ToString() + ": " +
                                                 gate.ToString());
}

arrow::Status Table::CheckGate(const PropertyMap& options) const {
  // Nothing can be committed to a read-only catalog: say so before any file is written.
  ARROW_RETURN_NOT_OK(
      WithContext(catalog_->CheckWritable(), "cannot write table " + id_.ToString()));
  return Declined(CheckWrite(*state_.metadata, options), "write");
}

arrow::Result<AppendResult> Table::Append(arrow::RecordBatchReader& input,
                                          const AppendOptions& options) {
  ARROW_RETURN_NOT_OK(CheckGate(options.options));
  if (!options.replace_partitions) return Write(input, options, std::nullopt, nullptr);
  // A dynamic overwrite: the new files replace the partitions they fall in.
  OverwriteRequest request;
  request.replace_partitions = true;
  if (auto current = state_.metadata->CurrentSnapshot())
    request.read_snapshot_id = current->snapshot_id;
  std::string level = properties::kIsolationLevelOption.Get(options.options);
  ARROW_ASSIGN_OR_RAISE(request.isolation, ParseIsolationLevel(level, "isolation-level"));
  return Write(input, options, std::move(request), nullptr);
}

arrow::Result<AppendResult> Table::Write(arrow::RecordBatchReader& input,
                                         const AppendOptions& options,
                                         std::optional<OverwriteRequest> overwrite,
                                         const RowCheck& check_rows) {
  // Plan time: the gate ran; now everything the tasks need. Nothing is written yet.
  ARROW_ASSIGN_OR_RAISE(
      auto conformer,
      BatchConformer::Make(*input.schema(), state_.metadata->CurrentSchema(),
                           id_.ToString()));
  ARROW_ASSIGN_OR_RAISE(auto planned, WritePlan::Make(*state_.metadata, options.options,
                                                      options.input_clustered));
  // Arrow computes a schema's fingerprints lazily and caches them; compute them here,
  // before the conformed batches (which share this schema) reach the task threads.
  (void)conformer->target()->fingerprint();
  (void)conformer->target()->metadata_fingerprint();
  const int threads = std::max(1, options.threads);
  std::shared_ptr<LimitedMemoryPool> limited;
  arrow::MemoryPool* pool = arrow::default_memory_pool();
  if (options.memory_limit > 0) {
    limited = std::make_shared<LimitedMemoryPool>(pool, options.memory_limit);
    pool = limited.get();
    auto budgeted = std::make_shared<WritePlan>(*planned);
    budgeted->task_buffer_budget_bytes = options.memory_limit / 2 / threads;
    // Sorting a run needs about twice the run (the rows and their sorted copy), while
    // no file is open; merging needs a batch of every run next to the open files.
    budgeted->task_sort_run_bytes = options.memory_limit / 4 / threads;
    planned = std::move(budgeted);
  }
  std::shared_ptr<const WritePlan> plan = planned;
  Committer committer(
      commit_target(), state_,
      LocationProvider(plan->table_location, plan->properties).data_location());
  const bool dynamic_overwrite = overwrite && overwrite->replace_partitions;
  if (overwrite) committer.SetOverwrite(std::move(*overwrite));

  std::vector<std::unique_ptr<WriteTask>> tasks;
  for (int i = 0; i < threads; ++i) {
    ARROW_ASSIGN_OR_RAISE(auto task, WriteTask::Make(plan, io(), i, i, pool));
    tasks.push_back(std::move(task));
  }

  // Tasks that share the partitions out (the plan's distribution) each read every batch
  // from a queue of their own and keep their partitions' rows, so each partition's files
  // come from one task, as under Spark's hash distribution. Otherwise the tasks take the
  // batches from one queue, each writing whichever rows it gets.
  const bool share_partitions = threads > 1 && plan->distribute_by_partition;
  std::vector<std::unique_ptr<BatchQueue>> queues;
  for (int i = 0; i < (share_partitions ? threads : 1); ++i) {
    queues.push_back(std::make_unique<BatchQueue>(static_cast<size_t>(threads) * 2));
    if (share_partitions) tasks[i]->TakeShare(PartitionShare{i, threads});
  }
  // Tasks that split an unpartitioned sorted table's rows by key each sort what they
  // are given, then write one key range gathered from every task's rows.
  std::shared_ptr<SortedRanges> ranges;
  if (threads > 1 && plan->distribute_by_range) {
    ARROW_ASSIGN_OR_RAISE(ranges,
                          SortedRanges::Make(plan->schema, plan->spec, plan->sort_order,
                                             plan->task_sort_run_bytes, threads, pool));
    for (int i = 0; i < threads; ++i) tasks[i]->SortInRange(ranges, i);
  }
  std::mutex error_mutex;
  arrow::Status first_error;
  auto fail = [&](const arrow::Status& status) {
    std::lock_guard<std::mutex> lock(error_mutex);
    if (first_error.ok()) first_error = status;
    for (auto& queue : queues) queue->Cancel();
    if (ranges) ranges->Cancel();  // tasks waiting for the others' rows give up
  };
  // Each task hands its message to the committer as soon as it finishes.
  auto run_task = [&](WriteTask* task, BatchQueue* queue) {
    while (auto batch = queue->Pop()) {
      auto status = task->Write(batch);
      if (!status.ok()) {
        fail(status);
        return;
      }
    }
    {
      std::lock_guard<std::mutex> lock(error_mutex);
      if (!first_error.ok()) return;
    }
    auto message = task->Finish();
    if (!message.ok()) {
      fail(message.status());
      return;
    }
    auto added = committer.Add(*message);
    if (!added.ok()) {
      fail(added);
      return;
    }
    task->Acknowledge();
  };

  std::vector<std::thread> workers;
  if (threads > 1) {
    for (size_t i = 0; i < tasks.size(); ++i) {
      workers.emplace_back(run_task, tasks[i].get(),
                           queues[share_partitions ? i : 0].get());
    }
  }
  // Progress goes out from this thread while it reads the input, then from the tasks'
  // threads as they write out sorted rows.
  std::mutex progress_mutex;
  AppendProgress progress;
  auto report = [&](const std::function<void()>& update) {
    std::lock_guard<std::mutex> lock(progress_mutex);
    update();
    if (options.progress) options.progress(progress);
  };
  if (plan->sorts_rows()) {
    for (auto& task : tasks) {
      task->OnSortedRows(
          [&](int64_t rows) { report([&] { progress.rows_sorted += rows; }); });
    }
  }
  while (true) {
    std::shared_ptr<arrow::RecordBatch> batch;
    auto status = input.ReadNext(&batch);
    if (!status.ok()) {
      fail(WithContext(status, "reading the input"));
      break;
    }
    if (!batch) break;
    if (auto cancelled = CheckCancelled("writing table " + id_.ToString());
        !cancelled.ok()) {
      fail(cancelled);
      break;
    }
    auto conformed = conformer->Conform(*batch);
    if (!conformed.ok()) {
      fail(conformed.status());
      break;
    }
    if (check_rows) {
      auto checked = check_rows(**conformed);
      if (!checked.ok()) {
        fail(checked);
        break;
      }
    }
    if (threads > 1) {
      bool pushed = true;
      for (auto& queue : queues) pushed = pushed && queue->Push(*conformed);
      if (!pushed) break;
    } else {
      auto written = tasks[0]->Write(*conformed);
      if (!written.ok()) {
        fail(written);
        break;
      }
      if (progress.batches == 0) TestPausePoint("write");
    }
    report([&] {
      progress.rows += batch->num_rows();
      progress.batches += 1;
    });
  }
  for (auto& queue : queues) queue->Close();
  if (plan->sorts_rows()) {
    bool failed = false;
    {
      std::lock_guard<std::mutex> lock(error_mutex);
      failed = !first_error.ok();
    }
    if (!failed) report([&] { progress.input_done = true; });
  }
  if (threads > 1) {
    for (auto& worker : workers) worker.join();
  } else if (first_error.ok()) {
    run_task(tasks[0].get(), queues[0].get());
  }
  auto cancelled = [&] {
    return MakeError(ErrorKind::kCancelled,
                     "writing table " + id_.ToString() +
                         " was cancelled; nothing was committed and the files it wrote "
                         "were deleted");
  };
  if (!first_error.ok()) {
    // The job failed: files of finished tasks go with the committer, the others with
    // their tasks' guards.
    committer.Abort();
    tasks.clear();
    return KindOf(first_error) == ErrorKind::kCancelled ? cancelled() : first_error;
  }
  TestPausePoint("commit");
  // The last moment a signal can stop the write: the commit either happens or not.
  if (CancelRequested()) {
    committer.Abort();
    return cancelled();
  }
  AppendResult result;
  result.rows = progress.rows;  // the tasks are done: nothing else touches it
  result.data_files = committer.files();
  if (dynamic_overwrite && result.data_files == 0) {
    // iceberg-java's Spark writer: "Dynamic overwrite is empty, skipping commit".
    committer.Abort();
    result.committed = false;
    return result;
  }
  ARROW_ASSIGN_OR_RAISE(result.commit, committer.Commit());
  state_ = result.commit.state;
  return result;
}

}  // namespace floe
