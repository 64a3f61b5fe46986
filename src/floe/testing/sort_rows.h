// Test rows for the sorter's tests: keys full of ties and nulls, and the order they are
// sorted by, written independently of floe's sorter.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "arrow/type_fwd.h"

namespace floe::testing {

/// A row of the table "id long not null, k int, s string".
struct SortRow {
  int64_t id = 0;
  std::optional<int32_t> k;
  std::optional<std::string> s;
};

/// The sort order the rows' tests use.
inline constexpr char kSortRowsOrder[] = "k desc nulls last, s";

/// Rows of ids [start, start + count): k takes `distinct` values (null every 13th row), s
/// four values, one beyond ASCII (null every 17th row).
std::vector<SortRow> MakeSortRows(int64_t start, int64_t count, int32_t distinct);
/// The rows as a batch of `schema` (the table's Arrow schema).
std::shared_ptr<arrow::RecordBatch> SortRowsBatch(
    const std::shared_ptr<arrow::Schema>& schema, const std::vector<SortRow>& rows);
/// The rows of a batch of that schema.
std::vector<SortRow> SortRowsOf(const arrow::RecordBatch& batch);
/// Whether `a` comes before `b` in kSortRowsOrder (std::stable_sort's comparator): k
/// descending with nulls last, then s ascending by unsigned bytes with nulls first.
bool SortRowBefore(const SortRow& a, const SortRow& b);

}  // namespace floe::testing
