// Scan planning: which data files a filter keeps, by partition values (projected through
// the spec's transforms) and by column bounds, in the snapshot asked for.
#include "floe/iceberg/scan/table_scan.h"

#include <algorithm>

#include <gtest/gtest.h>

#include "floe/testing/table_fixture.h"
#include "floe/testing/temp_directory.h"
#include "floe/util/error.h"

namespace floe::iceberg {
namespace {

class TableScanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto table = testing::TableFixture::Make(directory_.path().string(),
                                             "id long, region string, day date",
                                             "region, month(day)");
    ASSERT_TRUE(table.ok()) << table.status().ToString();
    table_ = std::move(*table);
    // month(day) is months since 1970-01: 0 is 1970-01, -1 is 1969-12, 671 is 2025-12.
    auto appended = table_->Append(
        {table_->File("r1-old", {"r1", int32_t{-1}}, 10, 0, 99),
         table_->File("r1-new", {"r1", int32_t{671}}, 10, 100, 199),
         table_->File("r2", {"r2", int32_t{671}}, 10, 200, 299),
         table_->File("null-region", {std::monostate{}, int32_t{0}}, 10, 300, 399)});
    ASSERT_TRUE(appended.ok()) << appended.status().ToString();
    state_ = *appended;
  }

  // The names of the files planned for `filter` (sorted).
  std::vector<std::string> Planned(const std::string& filter,
                                   std::optional<int64_t> snapshot_id = std::nullopt) {
    ScanOptions options;
    options.filter = filter;
    options.snapshot_id = snapshot_id;
    auto state = table_->Load();
    EXPECT_TRUE(state.ok());
    auto scan = TableScan::Make(table_->io(), state->metadata, options);
    EXPECT_TRUE(scan.ok()) << scan.status().ToString();
    auto tasks = (*scan)->PlanFiles();
    EXPECT_TRUE(tasks.ok()) << tasks.status().ToString();
    std::vector<std::string> names;
    for (const auto& task : *tasks) {
      const std::string& path = task.file.file_path;
      names.push_back(path.substr(path.rfind('/') + 1));
    }
    std::sort(names.begin(), names.end());
    return names;
  }

  testing::TempDirectory directory_;
  std::unique_ptr<testing::TableFixture> table_;
  TableState state_;
};

using Names = std::vector<std::string>;

TEST_F(TableScanTest, KeepsEveryFileWithoutAFilterAndNoneForFalse) {
  EXPECT_EQ(Planned(""), (Names{"null-region", "r1-new", "r1-old", "r2"}));
  EXPECT_EQ(Planned("FALSE"), Names{});
}

TEST_F(TableScanTest, PrunesByIdentityPartitionValuesAndNulls) {
  EXPECT_EQ(Planned("region = 'r1'"), (Names{"r1-new", "r1-old"}));
  EXPECT_EQ(Planned("region = 'r9'"), Names{});
  EXPECT_EQ(Planned("region IS NULL"), Names{"null-region"});
  // No row of the null partition can satisfy region != 'r1' (null is not unequal).
  EXPECT_EQ(Planned("region != 'r1'"), Names{"r2"});
}

// A filter on the source column is projected through month(): a pre-1970 day falls in a
// negative month, and a negative projected bound is widened by one month, as
// iceberg-java's ProjectionUtil.fixInclusiveTimeProjection does for files whose writers
// rounded pre-epoch values toward zero: `day < 1970-01-01` becomes `month <= 0`.
TEST_F(TableScanTest, PrunesThroughTemporalTransformsBefore1970) {
  EXPECT_EQ(Planned("day < DATE '1970-01-01'"), (Names{"null-region", "r1-old"}));
  EXPECT_EQ(Planned("day < DATE '1969-12-01'"), Names{"r1-old"});  // month <= -1
  EXPECT_EQ(Planned("day >= DATE '2025-12-01'"), (Names{"r1-new", "r2"}));
  EXPECT_EQ(Planned("day = DATE '1970-01-15'"), Names{"null-region"});
}

TEST_F(TableScanTest, PrunesByColumnBounds) {
  EXPECT_EQ(Planned("id >= 250"), (Names{"null-region", "r2"}));
  EXPECT_EQ(Planned("id = 150 AND region = 'r1'"), Names{"r1-new"});
  EXPECT_EQ(Planned("id < 0"), Names{});
  EXPECT_EQ(Planned("id < 100 OR id >= 350"), (Names{"null-region", "r1-old"}));
  // These files have no bounds for region: a disjunct on it can prune nothing.
  EXPECT_EQ(Planned("id < 100 OR region = 'r2'"),
            (Names{"null-region", "r1-new", "r1-old", "r2"}));
}

// Files removed by a later snapshot are planned only when the earlier one is read.
TEST_F(TableScanTest, PlansTheSnapshotAskedFor) {
  const int64_t first = state_.metadata->CurrentSnapshot()->snapshot_id;
  FLOE_ASSERT_OK(
      table_->Remove({table_->File("r2", {"r2", int32_t{671}}, 10).file_path}));
  EXPECT_EQ(Planned(""), (Names{"null-region", "r1-new", "r1-old"}));
  EXPECT_EQ(Planned("", first), (Names{"null-region", "r1-new", "r1-old", "r2"}));
}

}  // namespace
}  // namespace floe::iceberg
