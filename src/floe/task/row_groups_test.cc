// Grouping rows by partition through value codes (one key per distinct value) must give
// exactly the groups a key per row gives: same groups, same order, same rows.
#include "floe/task/row_groups_internal.h"

#include <gtest/gtest.h>

#include <any>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "arrow/api.h"
#include "arrow/array/builder_binary.h"
#include "arrow/array/builder_primitive.h"

namespace floe {
namespace {

std::shared_ptr<arrow::Array> Doubles(const std::vector<std::optional<double>>& values) {
  arrow::DoubleBuilder builder;
  for (const auto& value : values) {
    EXPECT_TRUE((value ? builder.Append(*value) : builder.AppendNull()).ok());
  }
  return builder.Finish().ValueOrDie();
}

std::shared_ptr<arrow::Array> Strings(
    const std::vector<std::optional<std::string>>& values) {
  arrow::StringBuilder builder;
  for (const auto& value : values) {
    EXPECT_TRUE((value ? builder.Append(*value) : builder.AppendNull()).ok());
  }
  return builder.Finish().ValueOrDie();
}

// A key as a format makes one: the value's text, NaNs all "NaN" (as Java prints them),
// -0.0 its own ("-0x0p+0").
void AppendKey(const arrow::Array& column, int64_t row, std::string* key) {
  if (column.IsNull(row)) {
    key->push_back('\0');
    return;
  }
  key->push_back('\1');
  if (column.type_id() == arrow::Type::DOUBLE) {
    const double value = static_cast<const arrow::DoubleArray&>(column).Value(row);
    char text[64];
    std::snprintf(text, sizeof text, "%a", value);
    *key += std::isnan(value) ? std::string("NaN") : std::string(text);
  } else {
    *key += static_cast<const arrow::StringArray&>(column).GetString(row);
  }
  key->push_back('|');
}

// Each output's groups as "key:row,row,..." (rows in the order the group holds them).
std::vector<std::string> Described(
    const std::vector<std::vector<PartitionRows>>& outputs) {
  std::vector<std::string> described;
  for (size_t out = 0; out < outputs.size(); ++out) {
    for (const auto& group : outputs[out]) {
      std::string text = std::to_string(out) + " " + group.key + ":";
      if (group.take) {
        const auto& take = static_cast<const arrow::Int32Array&>(*group.take);
        for (int64_t i = 0; i < take.length(); ++i)
          text += std::to_string(take.Value(i)) + ",";
      } else {
        text += "slice " + std::to_string(group.rows->num_rows());
      }
      described.push_back(text);
    }
  }
  return described;
}

std::vector<std::string> Grouped(
    const std::vector<std::shared_ptr<arrow::Array>>& columns, bool with_codes, int count,
    int* partitions_made) {
  const int64_t rows = columns[0]->length();
  auto id = arrow::Int64Builder();
  for (int64_t i = 0; i < rows; ++i) EXPECT_TRUE(id.Append(i).ok());
  auto batch =
      arrow::RecordBatch::Make(arrow::schema({arrow::field("id", arrow::int64())}), rows,
                               {id.Finish().ValueOrDie()});
  std::optional<RowCodes> codes;
  if (with_codes) {
    auto made = ValueCodes(columns, rows);
    EXPECT_TRUE(made.ok() && made->has_value());
    codes = std::move(**made);
  }
  auto grouped = GroupRowsByKey(
      batch, count, std::nullopt,
      [&](int64_t row, std::string* key) {
        for (const auto& column : columns) AppendKey(*column, row, key);
      },
      [&](int64_t row) -> arrow::Result<std::any> {
        ++*partitions_made;
        return std::any(row);
      },
      nullptr, codes ? &*codes : nullptr);
  EXPECT_TRUE(grouped.ok()) << grouped.status().ToString();
  return Described(*grouped);
}

TEST(RowGroupsTest, CodesGroupRowsExactlyAsAKeyPerRowDoes) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double other_nan = -std::numeric_limits<double>::quiet_NaN();  // another payload
  const double tiny = std::numeric_limits<double>::denorm_min();
  auto doubles = Doubles({0.0, -0.0, nan, std::nullopt, other_nan, 0.0, tiny, -0.0,
                          std::nullopt, 1e308, nan, tiny});
  auto strings = Strings(
      {"a", "a", "é", "é", "a", std::nullopt, "", "", "a", "a", std::nullopt, "x\ny"});
  for (const auto& columns : std::vector<std::vector<std::shared_ptr<arrow::Array>>>{
           {doubles}, {strings}, {doubles, strings}, {strings, doubles}}) {
    for (int count : {1, 3, 8}) {
      int per_row = 0;
      int per_code = 0;
      const auto expected = Grouped(columns, false, count, &per_row);
      EXPECT_EQ(Grouped(columns, true, count, &per_code), expected);
      EXPECT_EQ(per_code, per_row);  // one partition made per group either way
    }
  }
  // The NaNs of two payloads are one group; -0.0 is not 0.0's.
  int made = 0;
  const auto groups = Grouped({doubles}, true, 1, &made);
  EXPECT_EQ(made, 6) << ::testing::PrintToString(groups);
}

TEST(RowGroupsTest, ClusteredRowsStaySlicesWithCodes) {
  auto strings = Strings({"a", "a", "b", "b", "b", std::nullopt});
  int made = 0;
  EXPECT_EQ(Grouped({strings}, true, 1, &made),
            (std::vector<std::string>{"0 \1a|:slice 2", "0 \1b|:slice 3",
                                      std::string("0 ") + '\0' + ":slice 1"}));
}

TEST(RowGroupsTest, CodesOfManyColumnsCombineWithoutCollisions) {
  // Two columns of 600 distinct values each, 360,000 combinations: the combined codes
  // outgrow the dense table and go through the map.
  arrow::Int32Builder left;
  arrow::Int32Builder right;
  const int64_t rows = 600 * 600;
  for (int64_t i = 0; i < rows; ++i) {
    ASSERT_TRUE(left.Append(static_cast<int32_t>(i % 600)).ok());
    ASSERT_TRUE(right.Append(static_cast<int32_t>((i / 600 + i) % 600)).ok());
  }
  auto codes =
      ValueCodes({left.Finish().ValueOrDie(), right.Finish().ValueOrDie()}, rows);
  ASSERT_TRUE(codes.ok() && codes->has_value());
  EXPECT_EQ((*codes)->first_row.size(), static_cast<size_t>(rows));
  EXPECT_EQ((*codes)->of_row[12345], 12345);
  // A type Arrow does not hash is not coded: the split keys every row instead.
  auto list = arrow::MakeArrayOfNull(arrow::list(arrow::int32()), 2).ValueOrDie();
  auto none = ValueCodes({list}, 2);
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
}

}  // namespace
}  // namespace floe
