#include "floe/iceberg/write/sorted_ranges_internal.h"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <string>
#include <thread>
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
using testing::SortRowBefore;

bool SameKey(const SortRow& a, const SortRow& b) {
  return !SortRowBefore(a, b) && !SortRowBefore(b, a);
}

class SortedRangesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    FLOE_ASSIGN_OR_FAIL(schema_, ParseSchemaText("id long not null, k int, s string"));
    FLOE_ASSIGN_OR_FAIL(spec_, ParsePartitionBy("", *schema_));
    FLOE_ASSIGN_OR_FAIL(order_, ParseSortBy(testing::kSortRowsOrder, *schema_));
    FLOE_ASSIGN_OR_FAIL(arrow_schema_, ToArrowSchema(*schema_));
  }

  std::shared_ptr<arrow::RecordBatch> ToBatch(const std::vector<SortRow>& rows) {
    return testing::SortRowsBatch(arrow_schema_, rows);
  }

  // Adds `batches[part]` to each part (from one thread per part, as tasks do), drains
  // every part on its own thread and returns each part's rows in the order given.
  std::vector<std::vector<SortRow>> Split(
      SortedRanges& ranges,
      const std::vector<std::vector<std::vector<SortRow>>>& batches) {
    std::vector<std::vector<SortRow>> parts(ranges.parts());
    std::vector<arrow::Status> statuses(ranges.parts());
    std::vector<std::thread> threads;
    for (int part = 0; part < ranges.parts(); ++part) {
      threads.emplace_back([&, part] {
        for (const auto& rows : batches[part]) {
          auto added = ranges.sorter(part).Add(ToBatch(rows));
          if (!added.ok()) {
            statuses[part] = added;
            ranges.Cancel();
            return;
          }
        }
        statuses[part] = ranges.Drain(
            part, 500, [&](const std::shared_ptr<arrow::RecordBatch>& batch) {
              EXPECT_LE(batch->num_rows(), 500);
              EXPECT_TRUE(batch->schema()->Equals(*arrow_schema_));
              for (auto& row : testing::SortRowsOf(*batch)) parts[part].push_back(row);
              return arrow::Status::OK();
            });
      });
    }
    for (auto& thread : threads) thread.join();
    for (const auto& status : statuses) EXPECT_TRUE(status.ok()) << status.ToString();
    return parts;
  }

  // Every row given comes out once; each part is sorted; every row of a part comes
  // before every row of the next non-empty one, and no key is in two parts; so the parts
  // in turn are one sort of all the rows (checked against std::stable_sort).
  void ExpectOneSortSplitByKey(const std::vector<std::vector<SortRow>>& parts,
                               std::vector<SortRow> expected) {
    std::stable_sort(expected.begin(), expected.end(), SortRowBefore);
    std::vector<SortRow> all;
    const SortRow* last = nullptr;
    for (size_t part = 0; part < parts.size(); ++part) {
      for (size_t i = 0; i < parts[part].size(); ++i) {
        const SortRow& row = parts[part][i];
        if (last != nullptr) {
          ASSERT_FALSE(SortRowBefore(row, *last)) << "part " << part << " row " << i;
          if (i == 0) {
            ASSERT_FALSE(SameKey(row, *last)) << "a key in parts before " << part;
          }
        }
        last = &row;
        all.push_back(row);
      }
    }
    ASSERT_EQ(all.size(), expected.size());
    std::vector<int64_t> ids;
    std::vector<int64_t> expected_ids;
    for (size_t i = 0; i < all.size(); ++i) {
      ASSERT_TRUE(SameKey(all[i], expected[i])) << "row " << i;
      ids.push_back(all[i].id);
      expected_ids.push_back(expected[i].id);
    }
    std::sort(ids.begin(), ids.end());
    std::sort(expected_ids.begin(), expected_ids.end());
    EXPECT_EQ(ids, expected_ids);
  }

  SchemaPtr schema_;
  PartitionSpecPtr spec_;
  SortOrderPtr order_;
  std::shared_ptr<arrow::Schema> arrow_schema_;
};

// Four parts given very different shares (many spilled runs, one run held in memory,
// none, many batches in one run): each writes one key range, the ranges hold about a
// quarter of the rows each, and the spill files go with the split.
TEST_F(SortedRangesTest, PartsWriteDisjointKeyRangesOfAboutEqualRows) {
  testing::TempDirectory directory;
  testing::ScopedEnvironment tmpdir("TMPDIR", directory.path().string());
  constexpr int64_t kBatchRows = 1000;
  const int64_t batches_of[] = {60, 3, 0, 37};
  std::vector<std::vector<std::vector<SortRow>>> batches(4);
  std::vector<SortRow> expected;
  int64_t next_id = 0;
  for (int part = 0; part < 4; ++part) {
    for (int64_t b = 0; b < batches_of[part]; ++b) {
      batches[part].push_back(
          testing::MakeSortRows(next_id, kBatchRows, /*distinct=*/100000));
      next_id += kBatchRows;
      expected.insert(expected.end(), batches[part].back().begin(),
                      batches[part].back().end());
    }
  }
  {
    // Runs of about 20 batches: parts 0 and 3 spill, part 1 keeps its rows in memory.
    FLOE_ASSIGN_OR_FAIL(auto ranges, SortedRanges::Make(schema_, spec_, order_,
                                                        /*run_bytes=*/20 * 15000, 4));
    auto parts = Split(*ranges, batches);
    EXPECT_GT(ranges->sorter(0).spilled_runs(), 1u);
    EXPECT_EQ(ranges->sorter(1).spilled_runs(), 0u);
    EXPECT_GT(ranges->sorter(3).spilled_runs(), 1u);
    ExpectOneSortSplitByKey(parts, expected);
    const double quarter = static_cast<double>(expected.size()) / 4;
    for (const auto& part : parts) {
      EXPECT_GT(static_cast<double>(part.size()), 0.8 * quarter);
      EXPECT_LT(static_cast<double>(part.size()), 1.2 * quarter);
    }
    EXPECT_FALSE(std::filesystem::is_empty(directory.path()));
  }
  EXPECT_TRUE(std::filesystem::is_empty(directory.path()));
}

// Keys full of ties, and keys all equal: rows with one key never straddle two parts, so
// some parts get fewer rows or none; nothing is lost or doubled. No input: nothing out.
TEST_F(SortedRangesTest, EqualKeysStayInOnePart) {
  std::vector<std::vector<std::vector<SortRow>>> ties(3);
  std::vector<SortRow> expected;
  for (int part = 0; part < 3; ++part) {
    for (int b = 0; b < 4; ++b) {
      ties[part].push_back(
          testing::MakeSortRows((part * 4 + b) * 700, 700, /*distinct=*/3));
      expected.insert(expected.end(), ties[part].back().begin(), ties[part].back().end());
    }
  }
  FLOE_ASSIGN_OR_FAIL(auto ranges,
                      SortedRanges::Make(schema_, spec_, order_, /*run_bytes=*/40000, 3));
  ExpectOneSortSplitByKey(Split(*ranges, ties), expected);

  std::vector<std::vector<std::vector<SortRow>>> same(3);
  std::vector<SortRow> all_same;
  for (int part = 0; part < 3; ++part) {
    std::vector<SortRow> rows;
    for (int64_t i = 0; i < 900; ++i) rows.push_back(SortRow{part * 900 + i, 4, "é"});
    same[part].push_back(rows);
    all_same.insert(all_same.end(), rows.begin(), rows.end());
  }
  FLOE_ASSIGN_OR_FAIL(auto one_key, SortedRanges::Make(schema_, spec_, order_, 0, 3));
  auto parts = Split(*one_key, same);
  ExpectOneSortSplitByKey(parts, all_same);
  int non_empty = 0;
  for (const auto& part : parts) non_empty += !part.empty();
  EXPECT_EQ(non_empty, 1);

  FLOE_ASSIGN_OR_FAIL(auto empty, SortedRanges::Make(schema_, spec_, order_, 0, 2));
  for (const auto& part : Split(*empty, {{}, {}})) EXPECT_TRUE(part.empty());
}

// A part that never drains (its task failed): the others give up once cancelled, rather
// than wait for its rows.
TEST_F(SortedRangesTest, CancelReleasesPartsWaitingForTheOthers) {
  FLOE_ASSIGN_OR_FAIL(auto ranges, SortedRanges::Make(schema_, spec_, order_, 0, 3));
  std::vector<arrow::Status> statuses(2);
  std::vector<std::thread> threads;
  for (int part = 1; part < 3; ++part) {
    threads.emplace_back([&, part] {
      EXPECT_TRUE(ranges->sorter(part)
                      .Add(ToBatch(testing::MakeSortRows(part * 10, 10, 5)))
                      .ok());
      statuses[part - 1] = ranges->Drain(part, 100, [](const auto&) {
        ADD_FAILURE() << "a cancelled split handed rows on";
        return arrow::Status::OK();
      });
    });
  }
  ranges->Cancel();
  for (auto& thread : threads) thread.join();
  for (const auto& status : statuses)
    EXPECT_TRUE(status.IsCancelled()) << status.ToString();
}

}  // namespace
}  // namespace floe::iceberg
