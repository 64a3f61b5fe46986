#include "floe/write/write_task.h"

#include <algorithm>
#include <utility>

#include "arrow/record_batch.h"
#include "arrow/type.h"
#include "floe/manifest/manifest.h"
#include "floe/spec/arrow_schema.h"
#include "floe/util/cancel.h"
#include "floe/util/error.h"
#include "floe/write/task_commit.h"

namespace floe {
namespace {

// iceberg-java's ClusteredWriter message, so applications that match on it keep working.
constexpr char kNotClusteredMessage[] =
    "Incoming records violate the writer assumption that records are clustered by spec "
    "and by "
    "partition within each spec. Either cluster the incoming records or switch to fanout "
    "writers.\nEncountered records that belong to already closed files:\n";

// PartitionSpec.toString(): "[\n  1000: name: transform(source)\n]".
std::string SpecText(const PartitionSpec& spec) {
  std::string text = "[";
  for (const auto& field : spec.fields()) {
    text += "\n  " + std::to_string(field.field_id) + ": " + field.name + ": " +
            field.transform.ToString() + "(" + std::to_string(field.source_id) + ")";
  }
  if (!spec.fields().empty()) text += "\n";
  return text + "]";
}

}  // namespace

arrow::Result<std::unique_ptr<WriteTask>> WriteTask::Make(
    std::shared_ptr<const WritePlan> plan, std::shared_ptr<FileIO> io, int partition_id,
    int64_t attempt_id, arrow::MemoryPool* pool, Env* env) {
  if (partition_id < 0 || attempt_id < 0) {
    return arrow::Status::Invalid(
        "a write task needs its own non-negative partition id and attempt id (they name "
        "its files)");
  }
  std::unique_ptr<WriteTask> task(new WriteTask());
  ARROW_ASSIGN_OR_RAISE(
      task->context_,
      DataWriterContext::Make(std::move(io), plan->schema, plan->parquet,
                              std::make_shared<const MetricsConfig>(MetricsConfig::Make(
                                  *plan->schema, plan->properties, *plan->sort_order)),
                              plan->sort_order->order_id, pool));
  auto locations =
      std::make_shared<const LocationProvider>(plan->table_location, plan->properties);
  task->factory_ = std::make_unique<OutputFileFactory>(std::move(locations), partition_id,
                                                       attempt_id, plan->operation_id);
  ARROW_ASSIGN_OR_RAISE(task->partitioner_, Partitioner::Make(plan->schema, plan->spec));
  ARROW_ASSIGN_OR_RAISE(task->sorter_,
                        RowSorter::Make(plan->schema, plan->spec, plan->sort_order,
                                        plan->task_sort_run_bytes, pool, env));
  task->buffer_budget_ = plan->task_buffer_budget_bytes;
  task->plan_ = std::move(plan);
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
    if (!DeleteBestEffort(*context_->parquet->io, location, "",
                          "of a failed write task")) {
      ++failures;
    }
  }
  return failures;
}

arrow::Result<RollingDataWriter*> WriteTask::WriterFor(const Partitioner::Group& group) {
  auto found = open_.find(group.key);
  if (found != open_.end()) return found->second.get();
  if (plan_->mode == WriterMode::kClustered) {
    // A new partition closes the previous one; coming back to a closed one is an error.
    for (auto& [key, writer] : open_) {
      ARROW_ASSIGN_OR_RAISE(auto files, writer->Close());
      for (auto& file : files) completed_.push_back(std::move(file));
      closed_keys_.insert(key);
    }
    open_.clear();
    if (closed_keys_.count(group.key)) {
      return arrow::Status::Invalid(kNotClusteredMessage, "partition '",
                                    partitioner_->PathOf(group.partition), "' in spec ",
                                    SpecText(*plan_->spec));
    }
  }
  std::string path =
      partitioner_->unpartitioned() ? "" : partitioner_->PathOf(group.partition);
  ARROW_ASSIGN_OR_RAISE(auto writer, RollingDataWriter::Make(
                                         context_, factory_.get(), std::move(path),
                                         group.partition, plan_->target_file_size_bytes));
  RollingDataWriter* raw = writer.get();
  open_.emplace(group.key, std::move(writer));
  return raw;
}

arrow::Status WriteTask::Write(const std::shared_ptr<arrow::RecordBatch>& batch) {
  if (finished_) return arrow::Status::Invalid("write task already finished");
  if (!batch->schema()->Equals(*context_->parquet->arrow_schema,
                               /*check_metadata=*/false)) {
    return arrow::Status::Invalid("batch schema ", batch->schema()->ToString(),
                                  " does not match the write schema");
  }
  RowSorter* sorter = ranges_ ? &ranges_->sorter(range_part_) : sorter_.get();
  if (sorter) {
    // Held (or spilled in sorted runs) until Finish.
    auto held = [&]() -> arrow::Status {
      if (share_.count <= 1) return sorter->Add(batch);
      ARROW_ASSIGN_OR_RAISE(auto groups, partitioner_->Split(batch, share_));
      for (auto& group : groups) ARROW_RETURN_NOT_OK(sorter->Add(std::move(group.rows)));
      return arrow::Status::OK();
    }();
    return ExplainOutOfMemory(held);
  }
  auto status = WriteRows(batch, share_);
  if (!status.ok()) return ExplainOutOfMemory(status);
  return arrow::Status::OK();
}

arrow::Status WriteTask::WriteRows(const std::shared_ptr<arrow::RecordBatch>& batch,
                                   PartitionShare share) {
  ARROW_ASSIGN_OR_RAISE(auto groups, partitioner_->Split(batch, share));
  for (const auto& group : groups) {
    ARROW_ASSIGN_OR_RAISE(RollingDataWriter * writer, WriterFor(group));
    ARROW_RETURN_NOT_OK(writer->Write(*group.rows));
    rows_written_ += group.rows->num_rows();
  }
  return KeepWithinBudget();
}

arrow::Status WriteTask::KeepWithinBudget() {
  if (buffer_budget_ <= 0 || open_.empty()) return arrow::Status::OK();
  int64_t total = 0;
  std::vector<std::pair<int64_t, RollingDataWriter*>> sizes;
  for (auto& [key, writer] : open_) {
    int64_t bytes = writer->BufferedBytes();
    total += bytes;
    sizes.emplace_back(bytes, writer.get());
  }
  if (total <= buffer_budget_) return arrow::Status::OK();
  // Write out the largest row groups until three quarters of the budget remain in use.
  std::sort(sizes.begin(), sizes.end(),
            [](const auto& a, const auto& b) { return a.first > b.first; });
  for (const auto& [bytes, writer] : sizes) {
    if (total <= buffer_budget_ / 4 * 3) break;
    ARROW_RETURN_NOT_OK(writer->FlushRowGroup());
    total -= bytes - writer->BufferedBytes();
  }
  return arrow::Status::OK();
}

arrow::Status WriteTask::ExplainOutOfMemory(const arrow::Status& status) const {
  if (!status.IsOutOfMemory()) return status;
  if (sorter_ || ranges_) {
    return arrow::Status::OutOfMemory(
        "write task ran out of memory sorting its rows by the table's sort order (",
        status.message(), "): raise --memory-limit");
  }
  return arrow::Status::OutOfMemory(
      "write task ran out of memory with ", open_.size(), " open data file",
      open_.size() == 1 ? "" : "s", " (", status.message(),
      "): raise --memory-limit, write fewer partitions per task (more tasks, or input "
      "grouped by "
      "partition with --input-clustered), or lower write.parquet.row-group-size-bytes");
}

arrow::Result<std::string> WriteTask::Finish() {
  if (finished_) return arrow::Status::Invalid("write task already finished");
  finished_ = true;
  if (sorter_ || ranges_) {
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
    auto drained = ranges_ ? ranges_->Drain(range_part_, kSliceRows, write)
                           : sorter_->Drain(kSliceRows, write);
    if (!drained.ok()) return ExplainOutOfMemory(drained);
  }
  for (auto& [key, writer] : open_) {
    auto files = writer->Close();
    if (!files.ok()) return ExplainOutOfMemory(files.status());
    for (auto& file : *files) completed_.push_back(std::move(file));
  }
  open_.clear();
  // Output order must not depend on map iteration: files sorted by path.
  std::sort(
      completed_.begin(), completed_.end(),
      [](const DataFile& a, const DataFile& b) { return a.file_path < b.file_path; });
  TaskCommit message;
  message.locations = factory_->locations();
  if (!completed_.empty()) {
    ManifestWriteOptions options;
    options.format_version = 2;
    options.schema = plan_->schema;
    options.spec = plan_->spec;
    ARROW_ASSIGN_OR_RAISE(auto writer, ManifestWriter::Make(options));
    for (const auto& file : completed_) {
      ManifestEntry entry;
      entry.status = EntryStatus::kAdded;
      entry.data_file = file;
      ARROW_RETURN_NOT_OK(writer->Add(entry));
    }
    ARROW_ASSIGN_OR_RAISE(auto encoded, writer->Finish());
    message.manifest = std::move(encoded.bytes);
  }
  return EncodeTaskCommit(message);
}

}  // namespace floe
