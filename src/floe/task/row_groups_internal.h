// Grouping a batch's rows by partition and dealing the groups to the tasks that share a
// write's partitions: the part of WriteFormat::Split / SplitShares every table format
// shares. The format says only what a row's partition key is and what a new partition is.
#pragma once

#include <any>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "arrow/record_batch.h"
#include "arrow/result.h"
#include "floe/task/write_format.h"

namespace floe {

/// Each row's code, rows of equal values in `columns` (bit for bit; nulls equal) sharing
/// one: codes numbered 0, 1, ... in order of their first row.
struct RowCodes {
  std::vector<int32_t> of_row;     // each row's code
  std::vector<int64_t> first_row;  // each code's first row
};

/// The codes of `rows` rows of `columns` (Arrow's hashing, a dictionary encoding of each
/// column, combined); nullopt when a column's type is not one Arrow hashes. Far cheaper
/// than a key per row: a split then makes one key per code.
arrow::Result<std::optional<RowCodes>> ValueCodes(
    const std::vector<std::shared_ptr<arrow::Array>>& columns, int64_t rows);

/// `batch`'s rows grouped by key, groups in order of their first row and rows in input
/// order within a group, each group in the output `owner` chooses (null:
/// PartitionShare::OwnerOf(key, count)); with
/// `only`, a single output holding share `*only`'s groups (the others dropped).
/// `key_of(row, &key)` appends the row's partition key to an empty `key`;
/// `partition_of(row)` describes the partition of a group from its first row (called once
/// per group). Groups whose rows are contiguous are zero-copy slices of `batch`;
/// otherwise each group holds `batch` and the indices of its rows (PartitionRows::take),
/// gathered by the thread that writes it: splitting copies no row. With `codes` (of
/// the columns the key is made of: ValueCodes), `key_of` is called once per code, at its
/// first row, not once per row; codes of equal keys are one group.
arrow::Result<std::vector<std::vector<PartitionRows>>> GroupRowsByKey(
    const std::shared_ptr<arrow::RecordBatch>& batch, int count, std::optional<int> only,
    const std::function<void(int64_t row, std::string* key)>& key_of,
    const std::function<arrow::Result<std::any>(int64_t row)>& partition_of,
    const PartitionOwner& owner = nullptr, const RowCodes* codes = nullptr);

/// Gathers the rows of `groups` still to be taken (PartitionRows::take) in place: one
/// Take for each run of groups whose indices follow one another in one index array (as
/// GroupRowsByKey leaves each output's groups), each group then a slice of its run. One
/// Take of a whole output costs far less than one per group (a Take has a fixed cost per
/// column).
arrow::Status GatherGroups(std::vector<PartitionRows>& groups);

}  // namespace floe
