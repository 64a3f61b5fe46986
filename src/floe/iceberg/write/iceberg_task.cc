#include "floe/iceberg/write/iceberg_task.h"

#include <cstdio>
#include <utility>

#include "floe/iceberg/manifest/manifest.h"
#include "floe/iceberg/write/metrics_config.h"
#include "floe/iceberg/write/row_sorter.h"

namespace floe::iceberg {
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

const std::vector<Value>& TupleOf(const std::any& partition) {
  return std::any_cast<const std::vector<Value>&>(partition);
}

}  // namespace

arrow::Result<std::shared_ptr<const IcebergWriteFormat>> IcebergWriteFormat::Make(
    std::shared_ptr<const WritePlan> plan, std::shared_ptr<FileIO> io,
    arrow::MemoryPool* pool) {
  std::shared_ptr<IcebergWriteFormat> format(new IcebergWriteFormat());
  ARROW_ASSIGN_OR_RAISE(
      format->context_,
      DataWriterContext::Make(std::move(io), plan->schema, plan->parquet,
                              std::make_shared<const MetricsConfig>(MetricsConfig::Make(
                                  *plan->schema, plan->properties, *plan->sort_order)),
                              plan->sort_order->order_id, pool));
  format->locations_ =
      std::make_shared<const LocationProvider>(plan->table_location, plan->properties);
  ARROW_ASSIGN_OR_RAISE(format->partitioner_,
                        Partitioner::Make(plan->schema, plan->spec));
  format->plan_ = std::move(plan);
  return std::shared_ptr<const IcebergWriteFormat>(std::move(format));
}

arrow::Result<std::vector<PartitionRows>> IcebergWriteFormat::Split(
    const std::shared_ptr<arrow::RecordBatch>& batch, PartitionShare share) const {
  return partitioner_->Split(batch, share);
}

arrow::Result<std::vector<std::vector<PartitionRows>>> IcebergWriteFormat::SplitShares(
    const std::shared_ptr<arrow::RecordBatch>& batch, int count,
    const PartitionOwner& owner) const {
  return partitioner_->SplitShares(batch, count, owner);
}

std::string IcebergWriteFormat::FileLocation(const std::any& partition, int partition_id,
                                             int64_t attempt_id, int64_t count) const {
  char name[512];
  std::snprintf(name, sizeof(name), "%05d-%lld-%s-%05lld.parquet", partition_id,
                static_cast<long long>(attempt_id), plan_->operation_id.c_str(),
                static_cast<long long>(count));
  const std::string path =
      partitioner_->unpartitioned() ? "" : partitioner_->PathOf(TupleOf(partition));
  return locations_->NewDataLocation(path, name);
}

arrow::Status IcebergWriteFormat::NotClustered(const std::any& partition) const {
  return arrow::Status::Invalid(kNotClusteredMessage, "partition '",
                                partitioner_->PathOf(TupleOf(partition)), "' in spec ",
                                SpecText(*plan_->spec));
}

arrow::Result<std::unique_ptr<RowHolder>> IcebergWriteFormat::MakeRowHolder(
    arrow::MemoryPool* pool, Env* env) const {
  ARROW_ASSIGN_OR_RAISE(auto sorter,
                        RowSorter::Make(plan_->schema, plan_->spec, plan_->sort_order,
                                        plan_->task_sort_run_bytes, pool, env));
  return std::unique_ptr<RowHolder>(std::move(sorter));
}

arrow::Result<std::string> IcebergWriteFormat::EncodeFiles(
    const std::vector<TaskFile>& files) const {
  ManifestWriteOptions options;
  options.format_version = 2;
  options.schema = plan_->schema;
  options.spec = plan_->spec;
  ARROW_ASSIGN_OR_RAISE(auto writer, ManifestWriter::Make(options));
  for (const auto& file : files) {
    ManifestEntry entry;
    entry.status = EntryStatus::kAdded;
    ARROW_ASSIGN_OR_RAISE(entry.data_file, ToDataFile(*context_, file.file));
    entry.data_file.partition = TupleOf(file.partition);
    ARROW_RETURN_NOT_OK(writer->Add(entry));
  }
  ARROW_ASSIGN_OR_RAISE(auto encoded, writer->Finish());
  return std::move(encoded.bytes);
}

arrow::Result<std::unique_ptr<WriteTask>> MakeWriteTask(
    std::shared_ptr<const WritePlan> plan, std::shared_ptr<FileIO> io, int partition_id,
    int64_t attempt_id, arrow::MemoryPool* pool, Env* env) {
  ARROW_ASSIGN_OR_RAISE(auto format,
                        IcebergWriteFormat::Make(std::move(plan), std::move(io), pool));
  return WriteTask::Make(std::move(format), partition_id, attempt_id, env);
}

}  // namespace floe::iceberg
