#include "floe/testing/sort_rows.h"

#include "arrow/api.h"

namespace floe::testing {

std::vector<SortRow> MakeSortRows(int64_t start, int64_t count, int32_t distinct) {
  static const char* const kStrings[] = {"b", "a", "é", "ab"};
  std::vector<SortRow> rows;
  for (int64_t i = start; i < start + count; ++i) {
    SortRow row{i, std::nullopt, std::nullopt};
    if (i % 13 != 0) row.k = static_cast<int32_t>((i * 7919) % distinct);
    if (i % 17 != 0) row.s = kStrings[(i / 3) % 4];
    rows.push_back(std::move(row));
  }
  return rows;
}

std::shared_ptr<arrow::RecordBatch> SortRowsBatch(
    const std::shared_ptr<arrow::Schema>& schema, const std::vector<SortRow>& rows) {
  auto check = [](const arrow::Status& status) {
    if (!status.ok()) status.Abort();  // a test helper: allocation only can fail here
  };
  arrow::Int64Builder ids;
  arrow::Int32Builder ks;
  arrow::StringBuilder ss;
  for (const SortRow& row : rows) {
    check(ids.Append(row.id));
    check(row.k ? ks.Append(*row.k) : ks.AppendNull());
    check(row.s ? ss.Append(*row.s) : ss.AppendNull());
  }
  return arrow::RecordBatch::Make(schema, static_cast<int64_t>(rows.size()),
                                  {*ids.Finish(), *ks.Finish(), *ss.Finish()});
}

std::vector<SortRow> SortRowsOf(const arrow::RecordBatch& batch) {
  const auto& ids = static_cast<const arrow::Int64Array&>(*batch.column(0));
  const auto& ks = static_cast<const arrow::Int32Array&>(*batch.column(1));
  const auto& ss = static_cast<const arrow::StringArray&>(*batch.column(2));
  std::vector<SortRow> rows;
  for (int64_t i = 0; i < batch.num_rows(); ++i) {
    SortRow row{ids.Value(i), std::nullopt, std::nullopt};
    if (ks.IsValid(i)) row.k = ks.Value(i);
    if (ss.IsValid(i)) row.s = std::string(ss.GetView(i));
    rows.push_back(std::move(row));
  }
  return rows;
}

bool SortRowBefore(const SortRow& a, const SortRow& b) {
  if (a.k.has_value() != b.k.has_value()) return a.k.has_value();   // nulls last
  if (a.k && *a.k != *b.k) return *a.k > *b.k;                      // descending
  if (a.s.has_value() != b.s.has_value()) return !a.s.has_value();  // nulls first
  return a.s && b.s && *a.s < *b.s;  // std::string compares bytes unsigned
}

}  // namespace floe::testing
