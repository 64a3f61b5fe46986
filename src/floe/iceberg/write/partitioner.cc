#include "floe/iceberg/write/partitioner.h"

#include <algorithm>
#include <functional>
#include <string_view>
#include <unordered_map>

#include "arrow/array.h"
#include "arrow/array/builder_primitive.h"
#include "arrow/compute/api.h"
#include "arrow/record_batch.h"
#include "floe/iceberg/transform/partition_path.h"
#include "floe/iceberg/transform/transform_kernels.h"
#include "floe/task/row_groups_internal.h"
#include "floe/types/arrow_value.h"
#include "floe/util/error.h"

namespace floe::iceberg {

arrow::Result<std::shared_ptr<arrow::Array>> ColumnAtPath(const arrow::RecordBatch& batch,
                                                          const std::vector<int>& path) {
  std::shared_ptr<arrow::Array> column = batch.column(path[0]);
  for (size_t depth = 1; depth < path.size(); ++depth) {
    ARROW_ASSIGN_OR_RAISE(
        column,
        static_cast<const arrow::StructArray&>(*column).GetFlattenedField(path[depth]));
  }
  return column;
}

arrow::Result<std::unique_ptr<Partitioner>> Partitioner::Make(SchemaPtr schema,
                                                              PartitionSpecPtr spec) {
  std::unique_ptr<Partitioner> partitioner(new Partitioner());
  ARROW_ASSIGN_OR_RAISE(partitioner->partition_type_, spec->PartitionType(*schema));
  for (const auto& field : spec->fields()) {
    ARROW_ASSIGN_OR_RAISE(
        auto path,
        StructPathTo(*schema, field.source_id, "partition field '" + field.name + "'"));
    partitioner->source_paths_.push_back(std::move(path));
    partitioner->source_types_.push_back(schema->FindField(field.source_id)->type);
  }
  partitioner->schema_ = std::move(schema);
  partitioner->spec_ = std::move(spec);
  return partitioner;
}

std::string Partitioner::PathOf(const std::vector<Value>& partition) const {
  return PartitionToPath(*spec_, *partition_type_, partition);
}

arrow::Result<std::vector<PartitionRows>> Partitioner::Split(
    const std::shared_ptr<arrow::RecordBatch>& batch, PartitionShare share) const {
  const int count = std::max(share.count, 1);
  ARROW_ASSIGN_OR_RAISE(
      auto shares,
      SplitShares(batch, count,
                  count > 1 ? std::optional<int>(share.index) : std::nullopt, nullptr));
  return std::move(shares.front());
}

arrow::Result<std::vector<std::vector<PartitionRows>>> Partitioner::SplitShares(
    const std::shared_ptr<arrow::RecordBatch>& batch, int count,
    const PartitionOwner& owner) const {
  return SplitShares(batch, std::max(count, 1), std::nullopt, owner);
}

arrow::Result<std::vector<std::vector<PartitionRows>>> Partitioner::SplitShares(
    const std::shared_ptr<arrow::RecordBatch>& batch, int count, std::optional<int> only,
    const PartitionOwner& owner) const {
  const size_t outputs = only ? 1 : static_cast<size_t>(count);
  std::vector<std::vector<PartitionRows>> result(outputs);
  if (spec_->fields().empty()) {
    // One group of every row: Split gives it whatever the share, SplitShares to the
    // share its (empty) key hashes to.
    PartitionRows all{"", std::vector<Value>{}, batch};
    const int index = only    ? 0
                      : owner ? owner(all.key, batch->num_rows())
                              : PartitionShare::OwnerOf(all.key, count);
    result[static_cast<size_t>(index)].push_back(std::move(all));
    return result;
  }
  // Transformed partition columns.
  std::vector<std::shared_ptr<arrow::Array>> values;
  for (size_t i = 0; i < spec_->fields().size(); ++i) {
    ARROW_ASSIGN_OR_RAISE(auto source, ColumnAtPath(*batch, source_paths_[i]));
    ARROW_ASSIGN_OR_RAISE(auto transformed, ApplyTransform(spec_->fields()[i].transform,
                                                           *source_types_[i], source));
    values.push_back(std::move(transformed));
  }
  ARROW_ASSIGN_OR_RAISE(auto codes, ValueCodes(values, batch->num_rows()));
  return GroupRowsByKey(
      batch, count, only,
      [&](int64_t row, std::string* key) {
        for (const auto& column : values) AppendValueKey(*column, row, key);
      },
      [&](int64_t row) -> arrow::Result<std::any> {
        std::vector<Value> tuple;
        for (size_t i = 0; i < values.size(); ++i) {
          ARROW_ASSIGN_OR_RAISE(
              Value value,
              ValueFromArrow(*values[i], row, *partition_type_->fields()[i].type));
          tuple.push_back(std::move(value));
        }
        return std::any(std::move(tuple));
      },
      owner, codes ? &*codes : nullptr);
}

}  // namespace floe::iceberg
