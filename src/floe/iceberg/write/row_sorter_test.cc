#include "floe/iceberg/write/row_sorter.h"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "arrow/api.h"
#include "floe/iceberg/spec/partition_spec.h"
#include "floe/iceberg/spec/schema_ddl.h"
#include "floe/iceberg/spec/sort_order.h"
#include "floe/testing/sort_rows.h"
#include "floe/testing/temp_directory.h"
#include "floe/types/arrow_schema.h"

namespace floe::iceberg {
namespace {

using testing::SortRow;

// More runs than one merge reads at once are merged in groups first: the rows come out
// as one stable sort puts them (checked against std::stable_sort with the order's rules),
// no merge reads more than kMergeFanIn runs, and no spill file is left.
TEST(RowSorterTest, ManyRunsMergeInGroupsIntoWhatOneSortGives) {
  testing::TempDirectory directory;
  testing::ScopedEnvironment tmpdir("TMPDIR", directory.path().string());
  FLOE_ASSIGN_OR_FAIL(auto schema, ParseSchemaText("id long not null, k int, s string"));
  FLOE_ASSIGN_OR_FAIL(auto spec, ParsePartitionBy("", *schema));
  FLOE_ASSIGN_OR_FAIL(auto order, ParseSortBy(testing::kSortRowsOrder, *schema));
  FLOE_ASSIGN_OR_FAIL(auto arrow_schema, ToArrowSchema(*schema));
  // Every batch added becomes a run of its own (its bytes pass the run size).
  FLOE_ASSIGN_OR_FAIL(auto sorter, RowSorter::Make(schema, spec, order, /*run_bytes=*/1));
  constexpr int64_t kBatches = 2 * RowSorter::kMergeFanIn + 22;
  constexpr int64_t kBatchRows = 200;
  std::vector<SortRow> expected;
  // The batches arrive with falling ids, so input order is not id order.
  for (int64_t batch = kBatches - 1; batch >= 0; --batch) {
    auto rows = testing::MakeSortRows(batch * kBatchRows, kBatchRows, /*distinct=*/11);
    FLOE_ASSERT_OK(sorter->Add(testing::SortRowsBatch(arrow_schema, rows)));
    expected.insert(expected.end(), rows.begin(), rows.end());
  }
  EXPECT_EQ(sorter->spilled_runs(), static_cast<size_t>(kBatches));
  EXPECT_EQ(sorter->held_bytes(), 0);
  std::stable_sort(expected.begin(), expected.end(), testing::SortRowBefore);

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
}  // namespace floe::iceberg
