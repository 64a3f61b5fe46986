#include "floe/task/row_groups.h"

#include <unordered_map>
#include <utility>

#include "arrow/array/builder_primitive.h"
#include "arrow/compute/api.h"

namespace floe {

arrow::Result<std::vector<std::vector<PartitionRows>>> GroupRowsByKey(
    const std::shared_ptr<arrow::RecordBatch>& batch, int count, std::optional<int> only,
    const std::function<void(int64_t row, std::string* key)>& key_of,
    const std::function<arrow::Result<std::any>(int64_t row)>& partition_of) {
  const size_t outputs = only ? 1 : static_cast<size_t>(count);
  std::vector<std::vector<PartitionRows>> result(outputs);
  std::vector<PartitionRows> groups;
  const int64_t rows = batch->num_rows();
  // Assign each row a group. Consecutive rows of one partition (clustered input) skip the
  // key lookup.
  std::unordered_map<std::string, int32_t> index;
  std::vector<int32_t> group_of_row(static_cast<size_t>(rows));
  std::vector<int64_t> group_sizes;
  bool contiguous = true;
  std::string key;
  std::string previous_key;
  int32_t previous_group = -1;
  for (int64_t row = 0; row < rows; ++row) {
    key.clear();
    key_of(row, &key);
    int32_t group;
    if (previous_group >= 0 && key == previous_key) {
      group = previous_group;
    } else {
      auto [found, inserted] = index.emplace(key, static_cast<int32_t>(groups.size()));
      group = found->second;
      if (inserted) {
        ARROW_ASSIGN_OR_RAISE(std::any partition, partition_of(row));
        groups.push_back(PartitionRows{key, std::move(partition), nullptr});
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
