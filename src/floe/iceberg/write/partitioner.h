// Splits record batches into the partitions a partition spec puts their rows in.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "arrow/type_fwd.h"
#include "floe/iceberg/spec/partition_spec.h"
#include "floe/task/write_format.h"  // PartitionShare
#include "floe/types/value.h"

namespace floe::iceberg {

/// The values at `path` (see StructPathTo in spec/schema.h) of `batch`; a null struct
/// makes its fields' values null.
arrow::Result<std::shared_ptr<arrow::Array>> ColumnAtPath(const arrow::RecordBatch& batch,
                                                          const std::vector<int>& path);

/// Immutable after Make; Split is thread-safe.
class Partitioner {
 public:
  /// Resolves each partition field's source column (top-level or inside structs) in
  /// `schema`. A source inside a list or map, or missing, gives InvalidInput.
  static arrow::Result<std::unique_ptr<Partitioner>> Make(SchemaPtr schema,
                                                          PartitionSpecPtr spec);

  /// Groups the rows of `batch` (in the schema's Arrow form) by partition, groups ordered
  /// by their first row, keeping only the partitions `share` owns. An unpartitioned spec
  /// gives one group holding the whole batch. Each group's `partition` holds its tuple, a
  /// std::vector<Value> (the task layer's PartitionRows, as IcebergWriteFormat hands on).
  arrow::Result<std::vector<PartitionRows>> Split(
      const std::shared_ptr<arrow::RecordBatch>& batch, PartitionShare share = {}) const;

  /// Split for `count` tasks sharing the partitions out, the keys computed once: output
  /// i holds the groups task i owns, as `owner` chooses (null: PartitionShare{i,
  /// count}'s); rows not contiguous are left for the task to gather (GatherGroups).
  arrow::Result<std::vector<std::vector<PartitionRows>>> SplitShares(
      const std::shared_ptr<arrow::RecordBatch>& batch, int count,
      const PartitionOwner& owner = nullptr) const;

  /// The partition path of a tuple (PartitionSpec.partitionToPath).
  std::string PathOf(const std::vector<Value>& partition) const;
  const std::shared_ptr<const StructType>& partition_type() const {
    return partition_type_;
  }
  bool unpartitioned() const { return spec_->IsUnpartitioned(); }

 private:
  Partitioner() = default;
  /// SplitShares; with `only`, the one output holds that share's groups.
  arrow::Result<std::vector<std::vector<PartitionRows>>> SplitShares(
      const std::shared_ptr<arrow::RecordBatch>& batch, int count,
      std::optional<int> only, const PartitionOwner& owner) const;

  SchemaPtr schema_;
  PartitionSpecPtr spec_;
  std::shared_ptr<const StructType> partition_type_;
  std::vector<std::vector<int>> source_paths_;
  std::vector<TypePtr> source_types_;
};

}  // namespace floe::iceberg
