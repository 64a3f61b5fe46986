#include "floe/task/row_groups_internal.h"

#include <limits>
#include <unordered_map>
#include <utility>

#include "arrow/array/array_dict.h"
#include "arrow/array/array_primitive.h"
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

namespace {

// Each row's group (groups in order of their first row), the groups and their sizes, and
// whether each group's rows are contiguous.
struct Grouping {
  std::vector<int32_t> group_of_row;
  std::vector<PartitionRows> groups;
  std::vector<int64_t> group_sizes;
  bool contiguous = true;
};

// Adds the group of the partition keyed `key` whose first row is `row`, or finds it.
arrow::Result<int32_t> GroupOf(
    std::string& key, int64_t row, std::unordered_map<std::string, int32_t>& index,
    Grouping& grouping,
    const std::function<arrow::Result<std::any>(int64_t row)>& partition_of) {
  auto [found, inserted] =
      index.emplace(key, static_cast<int32_t>(grouping.groups.size()));
  if (inserted) {
    ARROW_ASSIGN_OR_RAISE(std::any partition, partition_of(row));
    grouping.groups.push_back(PartitionRows{key, std::move(partition), nullptr});
    grouping.group_sizes.push_back(0);
  }
  return found->second;
}

// One key per row. Consecutive rows of one partition (clustered input) skip the lookup.
arrow::Result<Grouping> GroupEachRow(
    int64_t rows, const std::function<void(int64_t row, std::string* key)>& key_of,
    const std::function<arrow::Result<std::any>(int64_t row)>& partition_of) {
  Grouping grouping;
  grouping.group_of_row.resize(static_cast<size_t>(rows));
  std::unordered_map<std::string, int32_t> index;
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
      const size_t known = grouping.groups.size();
      ARROW_ASSIGN_OR_RAISE(group, GroupOf(key, row, index, grouping, partition_of));
      // A partition came back after another one.
      if (grouping.groups.size() == known) grouping.contiguous = false;
      previous_key.swap(key);
      previous_group = group;
    }
    grouping.group_of_row[static_cast<size_t>(row)] = group;
    ++grouping.group_sizes[static_cast<size_t>(group)];
  }
  return grouping;
}

// One key per code (rows of one code have one key; codes whose keys are equal are one
// group).
arrow::Result<Grouping> GroupEachCode(
    const RowCodes& codes,
    const std::function<void(int64_t row, std::string* key)>& key_of,
    const std::function<arrow::Result<std::any>(int64_t row)>& partition_of) {
  Grouping grouping;
  std::unordered_map<std::string, int32_t> index;
  std::vector<int32_t> group_of_code(codes.first_row.size());
  std::string key;
  for (size_t code = 0; code < codes.first_row.size(); ++code) {
    key.clear();
    key_of(codes.first_row[code], &key);
    ARROW_ASSIGN_OR_RAISE(group_of_code[code], GroupOf(key, codes.first_row[code], index,
                                                       grouping, partition_of));
  }
  grouping.group_of_row.resize(codes.of_row.size());
  std::vector<bool> seen(grouping.groups.size(), false);
  int32_t previous = -1;
  for (size_t row = 0; row < codes.of_row.size(); ++row) {
    const int32_t group = group_of_code[static_cast<size_t>(codes.of_row[row])];
    grouping.group_of_row[row] = group;
    ++grouping.group_sizes[static_cast<size_t>(group)];
    if (group != previous) {
      if (seen[static_cast<size_t>(group)]) grouping.contiguous = false;
      seen[static_cast<size_t>(group)] = true;
      previous = group;
    }
  }
  return grouping;
}

// `column` with values equal bit for bit wherever they are equal: floating point viewed
// as integers of its width (so -0.0 and 0.0, or two NaNs, are not taken as one value).
std::shared_ptr<arrow::Array> Bitwise(const std::shared_ptr<arrow::Array>& column) {
  std::shared_ptr<arrow::DataType> as;
  switch (column->type_id()) {
    case arrow::Type::HALF_FLOAT:
      as = arrow::int16();
      break;
    case arrow::Type::FLOAT:
      as = arrow::int32();
      break;
    case arrow::Type::DOUBLE:
      as = arrow::int64();
      break;
    default:
      return column;
  }
  auto data = column->data()->Copy();
  data->type = std::move(as);
  return arrow::MakeArray(data);
}

// Renumbers `pair` (codes below `width`) densely in order of first row into `codes`.
void Densify(const std::vector<int64_t>& pair, int64_t width, RowCodes& codes) {
  codes.first_row.clear();
  const auto assign = [&](int32_t& slot, size_t row) {
    if (slot < 0) {
      slot = static_cast<int32_t>(codes.first_row.size());
      codes.first_row.push_back(static_cast<int64_t>(row));
    }
    codes.of_row[row] = slot;
  };
  if (width <= static_cast<int64_t>(pair.size()) * 4 + 1024) {
    std::vector<int32_t> slots(static_cast<size_t>(width), -1);
    for (size_t row = 0; row < pair.size(); ++row) {
      assign(slots[static_cast<size_t>(pair[row])], row);
    }
    return;
  }
  std::unordered_map<int64_t, int32_t> slots;
  for (size_t row = 0; row < pair.size(); ++row) {
    assign(slots.try_emplace(pair[row], -1).first->second, row);
  }
}

}  // namespace

arrow::Result<std::optional<RowCodes>> ValueCodes(
    const std::vector<std::shared_ptr<arrow::Array>>& columns, int64_t rows) {
  RowCodes codes;
  codes.of_row.assign(static_cast<size_t>(rows), 0);
  codes.first_row.assign(rows > 0 ? 1 : 0, 0);
  const arrow::compute::DictionaryEncodeOptions options(
      arrow::compute::DictionaryEncodeOptions::ENCODE);
  std::vector<int64_t> pair(static_cast<size_t>(rows));
  for (const auto& column : columns) {
    if (column->length() != rows || column->type_id() == arrow::Type::DICTIONARY) {
      return std::nullopt;
    }
    auto encoded = arrow::compute::DictionaryEncode(Bitwise(column), options);
    if (!encoded.ok()) return std::nullopt;  // a type the kernel does not hash
    const std::shared_ptr<arrow::Array> made = encoded->make_array();
    const auto& dictionary = static_cast<const arrow::DictionaryArray&>(*made);
    const int64_t values = dictionary.dictionary()->length();
    const auto& indices = static_cast<const arrow::Int32Array&>(*dictionary.indices());
    if (indices.null_count() > 0) return std::nullopt;
    const int64_t width = static_cast<int64_t>(codes.first_row.size()) * values;
    for (int64_t row = 0; row < rows; ++row) {
      pair[static_cast<size_t>(row)] =
          codes.of_row[static_cast<size_t>(row)] * values + indices.Value(row);
    }
    Densify(pair, width, codes);
  }
  return codes;
}

arrow::Result<std::vector<std::vector<PartitionRows>>> GroupRowsByKey(
    const std::shared_ptr<arrow::RecordBatch>& batch, int count, std::optional<int> only,
    const std::function<void(int64_t row, std::string* key)>& key_of,
    const std::function<arrow::Result<std::any>(int64_t row)>& partition_of,
    const PartitionOwner& owner_of, const RowCodes* codes) {
  const size_t outputs = only ? 1 : static_cast<size_t>(count);
  std::vector<std::vector<PartitionRows>> result(outputs);
  const int64_t rows = batch->num_rows();
  ARROW_ASSIGN_OR_RAISE(Grouping grouping,
                        codes ? GroupEachCode(*codes, key_of, partition_of)
                              : GroupEachRow(rows, key_of, partition_of));
  auto& group_of_row = grouping.group_of_row;
  auto& groups = grouping.groups;
  auto& group_sizes = grouping.group_sizes;
  const bool contiguous = grouping.contiguous;
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
