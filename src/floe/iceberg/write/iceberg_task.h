// Iceberg's side of a write task (task/write_task.h): a WritePlan as the WriteFormat the
// format-neutral task machinery runs on. Rows are partitioned by the plan's spec
// (Partitioner), sorted by its write ordering (RowSorter), written as iceberg-java
// writes Parquet data files (DataWriterContext), named as iceberg-java's
// OutputFileFactory names them, and reported as DataFiles with iceberg-java's metrics in
// a v2 data manifest.
#pragma once

#include <memory>

#include "arrow/memory_pool.h"
#include "floe/iceberg/spec/location_provider.h"
#include "floe/iceberg/write/data_file_writer.h"
#include "floe/iceberg/write/partitioner.h"
#include "floe/iceberg/write/write_plan.h"
#include "floe/io/file_io.h"
#include "floe/task/write_format.h"
#include "floe/task/write_task.h"
#include "floe/util/env.h"

namespace floe::iceberg {

/// An Iceberg write's WriteFormat. A partition is described by its std::vector<Value>
/// (the partition tuple of the plan's spec).
class IcebergWriteFormat final : public WriteFormat {
 public:
  /// Fails (InvalidInput naming the field) when a partition or sort field's source
  /// cannot be resolved in the plan's schema.
  static arrow::Result<std::shared_ptr<const IcebergWriteFormat>> Make(
      std::shared_ptr<const WritePlan> plan, std::shared_ptr<FileIO> io,
      arrow::MemoryPool* pool = arrow::default_memory_pool());

  const std::shared_ptr<const ParquetWriteContext>& parquet() const override {
    return context_->parquet;
  }
  WriterMode mode() const override { return plan_->mode; }
  int64_t target_file_size() const override { return plan_->target_file_size_bytes; }
  int64_t buffer_budget() const override { return plan_->task_buffer_budget_bytes; }
  arrow::Result<std::vector<PartitionRows>> Split(
      const std::shared_ptr<arrow::RecordBatch>& batch,
      PartitionShare share) const override;
  arrow::Result<std::vector<std::vector<PartitionRows>>> SplitShares(
      const std::shared_ptr<arrow::RecordBatch>& batch, int count,
      const PartitionOwner& owner) const override;
  /// iceberg-java's OutputFileFactory name, "%05d-%d-%s-%05d.parquet" of partition id,
  /// attempt id, operation id and count, in the partition's path below the data
  /// location (LocationProvider).
  std::string FileLocation(const std::any& partition, int partition_id,
                           int64_t attempt_id, int64_t count) const override;
  /// iceberg-java's ClusteredWriter message, naming the partition and the spec.
  arrow::Status NotClustered(const std::any& partition) const override;
  arrow::Result<std::unique_ptr<RowHolder>> MakeRowHolder(arrow::MemoryPool* pool,
                                                          Env* env) const override;
  /// The files as DataFiles (metrics by the plan's MetricsConfig) in a v2 data manifest.
  arrow::Result<std::string> EncodeFiles(
      const std::vector<TaskFile>& files) const override;

 private:
  IcebergWriteFormat() = default;
  std::shared_ptr<const WritePlan> plan_;
  std::shared_ptr<const DataWriterContext> context_;
  std::unique_ptr<Partitioner> partitioner_;
  std::shared_ptr<const LocationProvider> locations_;
};

/// A write task for `plan` (see WriteTask::Make for the ids): its files through `io`,
/// allocated from `pool`, sorted rows spilled below `env`'s temporary directory.
arrow::Result<std::unique_ptr<WriteTask>> MakeWriteTask(
    std::shared_ptr<const WritePlan> plan, std::shared_ptr<FileIO> io, int partition_id,
    int64_t attempt_id, arrow::MemoryPool* pool = arrow::default_memory_pool(),
    Env* env = Env::Default());

}  // namespace floe::iceberg
