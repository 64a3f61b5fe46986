#include "floe/task/row_groups_internal.h"

#include <limits>
#include <unordered_map>
#include <utility>

#include "arrow/array/builder_primitive.h"
#include "arrow/array/util.h"
#include "arrow/compute/api_vector.h"
#include "arrow/datum.h"

namespace floe {
namespace {

// The indices of output `out`'s rows, its groups one after another (group g's from
// starts[g]), rows in input order within a group.
template <typename Builder>
arrow::Result<std::shared_ptr<arrow::Array>> OrderOf(
    const std::vector<int32_t>& group_of_row, const std::vector<int>& output_of,
    size_t out, const std::vector<int64_t>& starts, int64_t kept_rows) {
  using Index = typename Builder::value_type;
  std::vector<int64_t> next = starts;
  std::vector<Index> order(static_cast<size_t>(kept_rows));
  for (size_t row = 0; row < group_of_row.size(); ++row) {
    const auto group = static_cast<size_t>(group_of_row[row]);
    if (output_of[group] == static_cast<int>(out))
      order[static_cast<size_t>(next[group]++)] = static_cast<Index>(row);
  }
  Builder builder;
  ARROW_RETURN_NOT_OK(builder.AppendValues(order));
  return builder.Finish();
}

}  // namespace

arrow::Result<std::vector<std::vector<PartitionRows>>> GroupRowsByKey(
    const std::shared_ptr<arrow::RecordBatch>& batch, int count, std::optional<int> only,
    const std::function<void(int64_t row, std::string* key)>& key_of,
    const std::function<arrow::Result<std::any>(int64_t row)>& partition_of,
    const PartitionOwner& owner_of) {
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
    const int owner = owner_of && !only ? owner_of(groups[g].key, group_sizes[g])
                                        : PartitionShare::OwnerOf(groups[g].key, count);
    if (!only) {
      output_of[g] = owner;
    } else if (*only == owner) {
      output_of[g] = 0;
    }
  }
  // A group of contiguous rows is a slice of `batch`; otherwise each output's rows are
  // ordered group after group in one index array, and each group keeps its slice of it
  // (PartitionRows::take) for the writing thread to gather.
  std::vector<int64_t> starts(groups.size(), 0);
  std::vector<std::shared_ptr<arrow::Array>> order_of(outputs);
  if (contiguous) {
    for (size_t g = 1; g < groups.size(); ++g)
      starts[g] = starts[g - 1] + group_sizes[g - 1];
  } else {
    for (size_t out = 0; out < outputs; ++out) {
      int64_t kept_rows = 0;
      for (size_t g = 0; g < groups.size(); ++g) {
        if (output_of[g] != static_cast<int>(out)) continue;
        starts[g] = kept_rows;
        kept_rows += group_sizes[g];
      }
      if (kept_rows == 0) continue;
      ARROW_ASSIGN_OR_RAISE(
          order_of[out], rows <= std::numeric_limits<int32_t>::max()
                             ? OrderOf<arrow::Int32Builder>(group_of_row, output_of, out,
                                                            starts, kept_rows)
                             : OrderOf<arrow::Int64Builder>(group_of_row, output_of, out,
                                                            starts, kept_rows));
    }
  }
  for (size_t g = 0; g < groups.size(); ++g) {
    if (output_of[g] < 0) continue;
    const auto out = static_cast<size_t>(output_of[g]);
    if (contiguous) {
      groups[g].rows =
          group_sizes[g] == rows ? batch : batch->Slice(starts[g], group_sizes[g]);
    } else {
      groups[g].rows = batch;
      groups[g].take = order_of[out]->Slice(starts[g], group_sizes[g]);
    }
    result[out].push_back(std::move(groups[g]));
  }
  return result;
}

arrow::Status GatherGroups(std::vector<PartitionRows>& groups) {
  size_t first = 0;
  while (first < groups.size()) {
    if (!groups[first].take) {
      ++first;
      continue;
    }
    // The run: groups taking from the same rows with indices adjacent in one array.
    const arrow::ArrayData& head = *groups[first].take->data();
    int64_t length = head.length;
    size_t end = first + 1;
    for (; end < groups.size(); ++end) {
      const PartitionRows& next = groups[end];
      if (!next.take || next.rows != groups[first].rows ||
          next.take->data()->buffers[1] != head.buffers[1] ||
          next.take->offset() != head.offset + length) {
        break;
      }
      length += next.take->length();
    }
    auto run_indices = std::make_shared<arrow::ArrayData>(head);
    run_indices->length = length;
    run_indices->null_count = 0;
    ARROW_ASSIGN_OR_RAISE(
        auto taken,
        arrow::compute::Take(groups[first].rows, arrow::MakeArray(run_indices)));
    const auto& run = taken.record_batch();
    int64_t offset = 0;
    for (size_t g = first; g < end; ++g) {
      const int64_t rows = groups[g].take->length();
      groups[g].rows = end - first == 1 ? run : run->Slice(offset, rows);
      groups[g].take = nullptr;
      offset += rows;
    }
    first = end;
  }
  return arrow::Status::OK();
}

}  // namespace floe
