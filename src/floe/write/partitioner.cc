#include "floe/write/partitioner.h"

#include <algorithm>
#include <functional>
#include <string_view>
#include <unordered_map>

#include "arrow/array.h"
#include "arrow/array/builder_primitive.h"
#include "arrow/compute/api.h"
#include "arrow/record_batch.h"
#include "floe/spec/arrow_value.h"
#include "floe/transform/partition_path.h"
#include "floe/transform/transform_kernels.h"
#include "floe/util/error.h"

namespace floe {

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
                  count > 1 ? std::optional<int>(share.index) : std::nullopt));
  return std::move(shares.front());
}

arrow::Result<std::vector<std::vector<PartitionRows>>> Partitioner::SplitShares(
    const std::shared_ptr<arrow::RecordBatch>& batch, int count) const {
  return SplitShares(batch, std::max(count, 1), std::nullopt);
}

arrow::Result<std::vector<std::vector<PartitionRows>>> Partitioner::SplitShares(
    const std::shared_ptr<arrow::RecordBatch>& batch, int count,
    std::optional<int> only) const {
  const size_t outputs = only ? 1 : static_cast<size_t>(count);
  std::vector<std::vector<PartitionRows>> result(outputs);
  if (spec_->fields().empty()) {
    // One group of every row: Split gives it whatever the share, SplitShares to the
    // share its (empty) key hashes to.
    PartitionRows all{"", std::vector<Value>{}, batch};
    const int owner = only ? 0 : PartitionShare::OwnerOf(all.key, count);
    result[static_cast<size_t>(owner)].push_back(std::move(all));
    return result;
  }
  std::vector<PartitionRows> groups;
  // Transformed partition columns.
  std::vector<std::shared_ptr<arrow::Array>> values;
  for (size_t i = 0; i < spec_->fields().size(); ++i) {
    ARROW_ASSIGN_OR_RAISE(auto source, ColumnAtPath(*batch, source_paths_[i]));
    ARROW_ASSIGN_OR_RAISE(auto transformed, ApplyTransform(spec_->fields()[i].transform,
                                                           *source_types_[i], source));
    values.push_back(std::move(transformed));
  }
  const int64_t rows = batch->num_rows();
  // Assign each row a group. Consecutive rows of one partition (clustered input) skip the
  // key lookup; a single fixed-width partition column is keyed by its value without
  // building text.
  std::unordered_map<std::string, int32_t> index;
  std::vector<int32_t> group_of_row(static_cast<size_t>(rows));
  std::vector<int64_t> group_sizes;
  bool contiguous = true;
  std::string key;
  std::string previous_key;
  int32_t previous_group = -1;
  for (int64_t row = 0; row < rows; ++row) {
    key.clear();
    for (const auto& column : values) AppendValueKey(*column, row, &key);
    int32_t group;
    if (previous_group >= 0 && key == previous_key) {
      group = previous_group;
    } else {
      auto [found, inserted] = index.emplace(key, static_cast<int32_t>(groups.size()));
      group = found->second;
      if (inserted) {
        std::vector<Value> tuple;
        for (size_t i = 0; i < values.size(); ++i) {
          ARROW_ASSIGN_OR_RAISE(
              Value value,
              ValueFromArrow(*values[i], row, *partition_type_->fields()[i].type));
          tuple.push_back(std::move(value));
        }
        groups.push_back(PartitionRows{key, std::move(tuple), nullptr});
        group_sizes.push_back(0);
      } else {
        contiguous = false;  // a partition came back after another one
      }
      previous_key.swap(key);
      previous_group = group;
    }
    group_of_row[static_cast<size_t>(row)] = group;
    ++group_sizes[static_cast<size_t>(group)];
  }
  // Each group goes to the output of the share that owns it (with `only`, the one output
  // keeps that share's groups and drops the rest).
  std::vector<int> output_of(groups.size(), -1);
  for (size_t g = 0; g < groups.size(); ++g) {
    const int owner = PartitionShare::OwnerOf(groups[g].key, count);
    if (!only) {
      output_of[g] = owner;
    } else if (*only == owner) {
      output_of[g] = 0;
    }
  }
  // Groups whose rows are already contiguous are zero-copy slices of the batch;
  // otherwise one Take per output puts its groups' rows together (input order kept
  // within a group), so each output's rows live and die with that output alone.
  std::vector<int64_t> starts(groups.size(), 0);
  std::vector<std::shared_ptr<arrow::RecordBatch>> ordered(outputs);
  if (contiguous) {
    for (size_t g = 1; g < groups.size(); ++g)
      starts[g] = starts[g - 1] + group_sizes[g - 1];
    for (auto& out : ordered) out = batch;
  } else {
    for (size_t out = 0; out < outputs; ++out) {
      int64_t kept_rows = 0;
      for (size_t g = 0; g < groups.size(); ++g) {
        if (output_of[g] != static_cast<int>(out)) continue;
        starts[g] = kept_rows;
        kept_rows += group_sizes[g];
      }
      if (kept_rows == 0) continue;
      std::vector<int64_t> next = starts;
      std::vector<int64_t> order(static_cast<size_t>(kept_rows));
      for (int64_t row = 0; row < rows; ++row) {
        const auto group = static_cast<size_t>(group_of_row[static_cast<size_t>(row)]);
        if (output_of[group] == static_cast<int>(out))
          order[static_cast<size_t>(next[group]++)] = row;
      }
      arrow::Int64Builder builder;
      ARROW_RETURN_NOT_OK(builder.Resize(kept_rows));
      ARROW_RETURN_NOT_OK(builder.AppendValues(order));
      ARROW_ASSIGN_OR_RAISE(auto indices, builder.Finish());
      ARROW_ASSIGN_OR_RAISE(auto taken, arrow::compute::Take(batch, indices));
      ordered[out] = taken.record_batch();
    }
  }
  for (size_t g = 0; g < groups.size(); ++g) {
    if (output_of[g] < 0) continue;
    const auto out = static_cast<size_t>(output_of[g]);
    groups[g].rows = ordered[out]->num_rows() == group_sizes[g]
                         ? ordered[out]
                         : ordered[out]->Slice(starts[g], group_sizes[g]);
    result[out].push_back(std::move(groups[g]));
  }
  return result;
}

}  // namespace floe
