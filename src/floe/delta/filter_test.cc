// Data skipping and row filtering over a Delta table: what add.stats and partition values
// may and may not rule out. (Rows selected against deltalake, delta-spark and pyarrow are
// in tests/interop/test_delta_dml.py.)
#include "floe/delta/filter.h"

#include <string>

#include <gtest/gtest.h>

#include "arrow/array.h"
#include "arrow/builder.h"
#include "arrow/type.h"
#include "floe/testing/temp_directory.h"
#include "floe/util/error.h"

namespace floe::delta {
namespace {

std::shared_ptr<arrow::Schema> TableSchema() {
  return arrow::schema(
      {arrow::field("id", arrow::int64()), arrow::field("s", arrow::utf8()),
       arrow::field("ts", arrow::timestamp(arrow::TimeUnit::MICRO, "UTC")),
       arrow::field("f", arrow::float64()), arrow::field("d", arrow::date32()),
       arrow::field("nested", arrow::struct_({arrow::field("x", arrow::int32())})),
       arrow::field("p", arrow::int32())});
}

DeltaFilter Filter(const std::string& text) {
  auto filter = DeltaFilter::Make(TableSchema(), {"p"}, text, "/t");
  EXPECT_TRUE(filter.ok()) << filter.status().ToString();
  return std::move(*filter);
}

AddFile File(std::optional<std::string> partition, std::string stats) {
  AddFile file;
  file.path = "f.parquet";
  file.partition_values["p"] = std::move(partition);
  file.stats = std::move(stats);
  return file;
}

const std::string kLong(40, 'm');  // beyond the 32 characters Delta keeps

AddFile Typical() {
  return File(
      "7", R"({"numRecords":3,"minValues":{"id":5,"s":"b","ts":"2024-01-01T00:00:00.123Z",
      "f":1.0,"d":"1969-12-30","nested":{"x":-4}},"maxValues":{"id":9,"s":")" +
               kLong.substr(0, 32) + "\uFFFF" +
               R"(","ts":"2024-01-01T00:00:00.123Z","f":2.0,"d":"1970-01-02",
      "nested":{"x":4}},"nullCount":{"id":0,"s":1,"ts":0,"f":0,"d":0,"nested":{"x":3}}})");
}

TEST(DeltaFilterTest, SkipsByStatisticsOnlyWhereTheyAreBounds) {
  const AddFile file = Typical();
  EXPECT_FALSE(Filter("id = 4").MightMatch(file));
  EXPECT_TRUE(Filter("id = 5").MightMatch(file));
  EXPECT_FALSE(Filter("id > 9").MightMatch(file));
  // Milliseconds: the true maximum may be up to 999 µs above what the statistics keep.
  EXPECT_TRUE(Filter("ts = '2024-01-01T00:00:00.123999Z'").MightMatch(file));
  EXPECT_FALSE(Filter("ts >= '2024-01-01T00:00:00.124Z'").MightMatch(file));
  EXPECT_FALSE(Filter("ts < '2024-01-01T00:00:00.123Z'").MightMatch(file));
  // A maximum cut at 32 characters bounds nothing; the minimum still bounds from below.
  EXPECT_TRUE(Filter("s = 'zzz'").MightMatch(file));
  EXPECT_FALSE(Filter("s < 'b'").MightMatch(file));
  // Floats: Spark's ordering puts NaN above every number, so no bound is used.
  EXPECT_TRUE(Filter("f > 100").MightMatch(file));
  // Pre-1970 dates.
  EXPECT_FALSE(Filter("d < '1969-12-30'").MightMatch(file));
  EXPECT_TRUE(Filter("d = '1969-12-31'").MightMatch(file));
  // Nested statistics, and a column that is null in every row.
  EXPECT_FALSE(Filter("nested.x > 4").MightMatch(file));
  EXPECT_FALSE(Filter("nested.x IS NOT NULL").MightMatch(file));
  EXPECT_TRUE(Filter("nested.x IS NULL").MightMatch(file));
  EXPECT_TRUE(Filter("s IS NULL").MightMatch(file));
  EXPECT_FALSE(Filter("id IS NULL").MightMatch(file));
}

TEST(DeltaFilterTest, PartitionValuesAreExact) {
  EXPECT_FALSE(Filter("p = 8").MightMatch(Typical()));
  EXPECT_TRUE(Filter("p = 7 AND id = 6").MightMatch(Typical()));
  EXPECT_FALSE(Filter("p IS NULL").MightMatch(Typical()));
  const AddFile null_partition = File(std::nullopt, "");
  EXPECT_TRUE(Filter("p IS NULL").MightMatch(null_partition));
  EXPECT_FALSE(Filter("p = 7").MightMatch(null_partition));
  // A concurrent writer's add: columns other than the partition's are unknown.
  EXPECT_TRUE(Filter("p = 7 AND id = 1").MightMatchPartition({{"p", "7"}}));
  EXPECT_FALSE(Filter("p = 7 AND id = 1").MightMatchPartition({{"p", "6"}}));
  EXPECT_TRUE(Filter("p = 7").OnlyPartitionColumns());
  EXPECT_FALSE(Filter("p = 7 OR id = 1").OnlyPartitionColumns());
}

TEST(DeltaFilterTest, MissingOrBrokenStatisticsMightMatch) {
  EXPECT_TRUE(Filter("id = 4").MightMatch(File("7", "")));
  EXPECT_TRUE(Filter("id = 4").MightMatch(File("7", "{not json")));
  EXPECT_TRUE(Filter("id = 4").MightMatch(File("7", R"({"minValues":{"id":"five"}})")));
  // A partition value that does not parse is not a reason to skip.
  EXPECT_TRUE(Filter("p = 7").MightMatch(File("seven", "")));
}

TEST(DeltaFilterTest, SelectsRowsByNameWithSqlNulls) {
  arrow::Int64Builder ids;
  arrow::StringBuilder strings;
  ASSERT_TRUE(ids.AppendValues({1, 2, 3, 4}).ok());
  ASSERT_TRUE(strings.Append("a").ok());
  ASSERT_TRUE(strings.AppendNull().ok());
  ASSERT_TRUE(strings.Append("b").ok());
  ASSERT_TRUE(strings.Append("a").ok());
  // The batch holds a subset of the table's columns, in another order.
  auto batch =
      arrow::RecordBatch::Make(arrow::schema({arrow::field("s", arrow::utf8()),
                                              arrow::field("id", arrow::int64())}),
                               4, {*strings.Finish(), *ids.Finish()});
  FLOE_ASSIGN_OR_FAIL(auto selected, Filter("s = 'a' OR id = 2").Select(batch));
  ASSERT_EQ(selected->num_rows(), 3);  // null = 'a' is unknown, but id = 2 is true
  FLOE_ASSIGN_OR_FAIL(auto none, Filter("s <> 'a'").Select(batch));
  EXPECT_EQ(none->num_rows(), 1);  // the null row is not selected
}

TEST(DeltaFilterTest, BadFiltersNameTheTableAndColumn) {
  auto unknown = DeltaFilter::Make(TableSchema(), {"p"}, "nope = 1", "/t");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(KindOf(unknown.status()), ErrorKind::kInvalidInput);
  EXPECT_NE(unknown.status().message().find("nope"), std::string::npos);
  EXPECT_NE(unknown.status().message().find("Delta table /t"), std::string::npos);
  auto malformed = DeltaFilter::Make(TableSchema(), {"p"}, "id = ", "/t");
  ASSERT_FALSE(malformed.ok());
  EXPECT_EQ(KindOf(malformed.status()), ErrorKind::kInvalidInput);
}

}  // namespace
}  // namespace floe::delta
