#include "floe/task/write_task.h"

#include <algorithm>
#include <utility>

#include "arrow/record_batch.h"
#include "arrow/type.h"
#include "floe/task/row_groups_internal.h"
#include "floe/task/task_commit.h"
#include "floe/util/cancel.h"
#include "floe/util/error.h"

namespace floe {

arrow::Result<std::unique_ptr<WriteTask>> WriteTask::Make(
    std::shared_ptr<const WriteFormat> format, int partition_id, int64_t attempt_id,
    Env* env) {
  if (partition_id < 0 || attempt_id < 0) {
    return arrow::Status::Invalid(
        "a write task needs its own non-negative partition id and attempt id (they name "
        "its files)");
  }
  std::unique_ptr<WriteTask> task(new WriteTask());
  task->format_ = std::move(format);
  task->factory_ =
      std::make_unique<OutputFileFactory>(task->format_, partition_id, attempt_id);
  ARROW_ASSIGN_OR_RAISE(
      task->holder_, task->format_->MakeRowHolder(task->format_->parquet()->pool, env));
  return task;
}

WriteTask::~WriteTask() {
  if (!acknowledged_) {
    AbortWriters();
    DeleteWrittenFiles();
  }
}

void WriteTask::AbortWriters() {
  for (auto& [key, writer] : open_) writer->Abort();
  open_.clear();
}

int WriteTask::DeleteWrittenFiles() {
  int failures = 0;
  if (!factory_) return failures;  // Make failed before any location could be handed out
  for (const auto& location : factory_->locations()) {
    if (!DeleteBestEffort(*format_->parquet()->io, location, "",
                          "of a failed write task")) {
      ++failures;
    }
  }
  return failures;
}

arrow::Result<RollingFileWriter*> WriteTask::WriterFor(const PartitionRows& group) {
  auto found = open_.find(group.key);
  if (found != open_.end()) return found->second.get();
  if (format_->mode() == WriterMode::kClustered) {
    // A new partition closes the previous one; coming back to a closed one is an error.
    for (auto& [key, writer] : open_) {
      ARROW_ASSIGN_OR_RAISE(auto files, writer->Close());
      for (auto& file : files) completed_.push_back(std::move(file));
      closed_keys_.insert(key);
    }
    open_.clear();
    if (closed_keys_.count(group.key)) return format_->NotClustered(group.partition);
  }
  ARROW_ASSIGN_OR_RAISE(
      auto writer, RollingFileWriter::Make(format_->parquet(), factory_.get(),
                                           group.partition, format_->target_file_size()));
  RollingFileWriter* raw = writer.get();
  open_.emplace(group.key, std::move(writer));
  return raw;
}

arrow::Status WriteTask::Write(const std::shared_ptr<arrow::RecordBatch>& batch) {
  if (finished_) return arrow::Status::Invalid("write task already finished");
  if (!batch->schema()->Equals(*format_->input_schema(),
                               /*check_metadata=*/false)) {
    return arrow::Status::Invalid("batch schema ", batch->schema()->ToString(),
                                  " does not match the write schema");
  }
  if (holder_) {
    // Held (or spilled in sorted runs) until Finish.
    auto held = [&]() -> arrow::Status {
      if (share_.count <= 1) return holder_->Add(batch);
      ARROW_ASSIGN_OR_RAISE(auto groups, format_->Split(batch, share_));
      ARROW_RETURN_NOT_OK(GatherGroups(groups));
      for (auto& group : groups) ARROW_RETURN_NOT_OK(holder_->Add(std::move(group.rows)));
      return arrow::Status::OK();
    }();
    return ExplainOutOfMemory(held);
  }
  auto status = WriteRows(batch, share_);
  if (!status.ok()) return ExplainOutOfMemory(status);
  return arrow::Status::OK();
}

arrow::Result<std::vector<std::vector<PartitionRows>>> WriteTask::SplitShares(
    const std::shared_ptr<arrow::RecordBatch>& batch, int count,
    const PartitionOwner& owner) const {
  return format_->SplitShares(batch, count, owner);
}

arrow::Status WriteTask::WriteGroups(std::vector<PartitionRows> groups) {
  if (finished_) return arrow::Status::Invalid("write task already finished");
  for (const auto& group : groups) {
    if (!group.rows->schema()->Equals(*format_->parquet()->arrow_schema,
                                      /*check_metadata=*/false)) {
      return arrow::Status::Invalid("rows of schema ", group.rows->schema()->ToString(),
                                    " do not match the write schema");
    }
  }
  auto status = [&]() -> arrow::Status {
    // Rows the reading thread left to gather are gathered here, on the task's thread.
    ARROW_RETURN_NOT_OK(GatherGroups(groups));
    if (!holder_) return WriteGroupsNow(groups);
    // Held (or spilled in sorted runs) until Finish, as Write holds a batch's.
    for (auto& group : groups) ARROW_RETURN_NOT_OK(holder_->Add(std::move(group.rows)));
    return arrow::Status::OK();
  }();
  return ExplainOutOfMemory(status);
}

arrow::Status WriteTask::WriteGroupsNow(const std::vector<PartitionRows>& groups) {
  for (const auto& group : groups) {
    ARROW_ASSIGN_OR_RAISE(RollingFileWriter * writer, WriterFor(group));
    ARROW_ASSIGN_OR_RAISE(auto rows, group.Gathered());  // gathered already, as a rule
    ARROW_RETURN_NOT_OK(writer->Write(*rows));
    rows_written_ += rows->num_rows();
  }
  return KeepWithinBudget();
}

arrow::Status WriteTask::WriteRows(const std::shared_ptr<arrow::RecordBatch>& batch,
                                   PartitionShare share) {
  ARROW_ASSIGN_OR_RAISE(auto groups, format_->Split(batch, share));
  ARROW_RETURN_NOT_OK(GatherGroups(groups));
  return WriteGroupsNow(groups);
}

arrow::Status WriteTask::KeepWithinBudget() {
  const int64_t budget = format_->buffer_budget();
  if (budget <= 0 || open_.empty()) return arrow::Status::OK();
  int64_t total = 0;
  std::vector<std::pair<int64_t, RollingFileWriter*>> sizes;
  for (auto& [key, writer] : open_) {
    int64_t bytes = writer->BufferedBytes();
    total += bytes;
    sizes.emplace_back(bytes, writer.get());
  }
  if (total <= budget) return arrow::Status::OK();
  // Write out the largest row groups until three quarters of the budget remain in use.
  std::sort(sizes.begin(), sizes.end(),
            [](const auto& a, const auto& b) { return a.first > b.first; });
  for (const auto& [bytes, writer] : sizes) {
    if (total <= budget / 4 * 3) break;
    ARROW_RETURN_NOT_OK(writer->FlushRowGroup());
    total -= bytes - writer->BufferedBytes();
  }
  return arrow::Status::OK();
}

arrow::Status WriteTask::ExplainOutOfMemory(const arrow::Status& status) const {
  if (!status.IsOutOfMemory()) return status;
  if (holder_) {
    return arrow::Status::OutOfMemory(
        "write task ran out of memory sorting its rows by the table's sort order (",
        status.message(), "): raise --memory-limit");
  }
  return arrow::Status::OutOfMemory("write task ran out of memory with ", open_.size(),
                                    " open data file", open_.size() == 1 ? "" : "s", " (",
                                    status.message(), "): ", format_->MemoryAdvice());
}

arrow::Result<std::string> WriteTask::Finish() {
  if (finished_) return arrow::Status::Invalid("write task already finished");
  finished_ = true;
  if (holder_) {
    // The rows were held back; they go to the writers now, sorted, in slices as large
    // as the batches an unsorted write is given.
    constexpr int64_t kSliceRows = 64 * 1024;
    auto write = [&](const std::shared_ptr<arrow::RecordBatch>& sorted) {
      // Writing out a large sort takes a while: a signal stops it between slices.
      ARROW_RETURN_NOT_OK(CheckCancelled("writing sorted rows"));
      ARROW_RETURN_NOT_OK(WriteRows(sorted, PartitionShare{}));
      if (on_sorted_rows_) on_sorted_rows_(sorted->num_rows());
      return arrow::Status::OK();
    };
    auto drained = holder_->Drain(kSliceRows, write);
    if (!drained.ok()) return ExplainOutOfMemory(drained);
  }
  for (auto& [key, writer] : open_) {
    auto files = writer->Close();
    if (!files.ok()) return ExplainOutOfMemory(files.status());
    for (auto& file : *files) completed_.push_back(std::move(file));
  }
  open_.clear();
  // Output order must not depend on map iteration: files sorted by path.
  std::sort(completed_.begin(), completed_.end(),
            [](const TaskFile& a, const TaskFile& b) {
              return a.file.location < b.file.location;
            });
  TaskCommit message;
  message.locations = factory_->locations();
  if (!completed_.empty()) {
    ARROW_ASSIGN_OR_RAISE(message.files, format_->EncodeFiles(completed_));
  }
  return EncodeTaskCommit(message);
}

}  // namespace floe
