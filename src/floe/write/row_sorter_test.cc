#include "floe/write/row_sorter.h"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "arrow/api.h"
#include "floe/spec/arrow_schema.h"
#include "floe/spec/partition_spec.h"
#include "floe/spec/schema_ddl.h"
#include "floe/spec/sort_order.h"
#include "floe/testing/temp_directory.h"

namespace floe {
namespace {

struct Row {
  int64_t id;
  std::optional<int32_t> k;
  std::optional<std::string> s;
};

// Rows start..start+count-1: k has 11 values and nulls, s 4 values (one needing more
// than ASCII) and nulls, so most keys tie and only a stable merge keeps the ids in order.
std::vector<Row> MakeRows(int64_t start, int64_t count) {
  static const char* kStrings[] = {"b", "a", "é", "ab"};
  std::vector<Row> rows;
  for (int64_t i = start; i < start + count; ++i) {
    Row row{i, std::nullopt, std::nullopt};
    if (i % 13 != 0) row.k = static_cast<int32_t>((i * 7919) % 11);
    if (i % 17 != 0) row.s = kStrings[(i / 3) % 4];
    rows.push_back(std::move(row));
  }
  return rows;
}

std::shared_ptr<arrow::RecordBatch> ToBatch(const std::shared_ptr<arrow::Schema>& schema,
                                            const std::vector<Row>& rows) {
  arrow::Int64Builder ids;
  arrow::Int32Builder ks;
  arrow::StringBuilder ss;
  for (const Row& row : rows) {
    EXPECT_TRUE(ids.Append(row.id).ok());
    EXPECT_TRUE((row.k ? ks.Append(*row.k) : ks.AppendNull()).ok());
    EXPECT_TRUE((row.s ? ss.Append(*row.s) : ss.AppendNull()).ok());
  }
  return arrow::RecordBatch::Make(schema, static_cast<int64_t>(rows.size()),
                                  {*ids.Finish(), *ks.Finish(), *ss.Finish()});
}

// More runs than one merge reads at once are merged in groups first: the rows come out
// as one stable sort puts them (checked against std::stable_sort with the order's rules),
// no merge reads more than kMergeFanIn runs, and no spill file is left.
TEST(RowSorterTest, ManyRunsMergeInGroupsIntoWhatOneSortGives) {
  testing::TempDirectory directory;
  testing::ScopedEnvironment tmpdir("TMPDIR", directory.path().string());
  FLOE_ASSIGN_OR_FAIL(auto schema, ParseSchemaText("id long not null, k int, s string"));
  FLOE_ASSIGN_OR_FAIL(auto spec, ParsePartitionBy("", *schema));
  FLOE_ASSIGN_OR_FAIL(auto order, ParseSortBy("k desc nulls last, s", *schema));
  FLOE_ASSIGN_OR_FAIL(auto arrow_schema, ToArrowSchema(*schema));
  // Every batch added becomes a run of its own (its bytes pass the run size).
  FLOE_ASSIGN_OR_FAIL(auto sorter, RowSorter::Make(schema, spec, order, /*run_bytes=*/1));
  constexpr int64_t kBatches = 2 * RowSorter::kMergeFanIn + 22;
  constexpr int64_t kBatchRows = 200;
  std::vector<Row> expected;
  // The batches arrive with falling ids, so input order is not id order.
  for (int64_t batch = kBatches - 1; batch >= 0; --batch) {
    auto rows = MakeRows(batch * kBatchRows, kBatchRows);
    FLOE_ASSERT_OK(sorter->Add(ToBatch(arrow_schema, rows)));
    expected.insert(expected.end(), rows.begin(), rows.end());
  }
  EXPECT_EQ(sorter->spilled_runs(), static_cast<size_t>(kBatches));
  EXPECT_EQ(sorter->held_bytes(), 0);
  std::stable_sort(expected.begin(), expected.end(), [](const Row& a, const Row& b) {
    if (a.k.has_value() != b.k.has_value()) return a.k.has_value();   // nulls last
    if (a.k && *a.k != *b.k) return *a.k > *b.k;                      // descending
    if (a.s.has_value() != b.s.has_value()) return !a.s.has_value();  // nulls first
    return a.s && *a.s < *b.s;  // std::string compares bytes unsigned
  });

  std::vector<int64_t> ids;
  FLOE_ASSERT_OK(
      sorter->Drain(1000, [&](const std::shared_ptr<arrow::RecordBatch>& batch) {
        EXPECT_LE(batch->num_rows(), 1000);
        EXPECT_TRUE(batch->schema()->Equals(*arrow_schema));
        const auto& column = static_cast<const arrow::Int64Array&>(*batch->column(0));
        for (int64_t i = 0; i < column.length(); ++i) ids.push_back(column.Value(i));
        return arrow::Status::OK();
      }));
  ASSERT_EQ(ids.size(), expected.size());
  for (size_t i = 0; i < ids.size(); ++i) {
    ASSERT_EQ(ids[i], expected[i].id) << "row " << i << " of the merged output";
  }
  EXPECT_GT(sorter->widest_merge(), 1u);
  EXPECT_LE(sorter->widest_merge(), RowSorter::kMergeFanIn);
  // The spill directory went with the merge.
  EXPECT_TRUE(std::filesystem::is_empty(directory.path()));
  EXPECT_EQ(sorter->held_bytes(), 0);
}

}  // namespace
}  // namespace floe
