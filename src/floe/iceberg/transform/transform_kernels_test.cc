#include "floe/iceberg/transform/transform_kernels.h"

#include <gtest/gtest.h>

#include "arrow/api.h"
#include "arrow/util/decimal.h"
#include "floe/iceberg/transform/temporal_internal.h"
#include "floe/testing/temp_directory.h"
#include "floe/types/arrow_value.h"

namespace floe::iceberg {
namespace {

template <typename Builder, typename T>
std::shared_ptr<arrow::Array> Make(std::shared_ptr<arrow::DataType> type,
                                   const std::vector<T>& values) {
  Builder builder(type, arrow::default_memory_pool());
  for (const auto& value : values) EXPECT_TRUE(builder.Append(value).ok());
  return *builder.Finish();
}

std::vector<int32_t> Ints(const std::shared_ptr<arrow::Array>& array) {
  std::vector<int32_t> values;
  const auto* raw = array->data()->GetValues<int32_t>(1);
  for (int64_t i = 0; i < array->length(); ++i) values.push_back(raw[i]);
  return values;
}

TEST(TransformKernelsTest, BucketsEveryAcceptedType) {
  auto longs = Make<arrow::Int64Builder, int64_t>(arrow::int64(), {34});
  FLOE_ASSIGN_OR_FAIL(auto bucket,
                      ApplyTransform(Transform::Bucket(16), *types::Long(), longs));
  EXPECT_EQ(Ints(bucket), std::vector<int32_t>({3}));
  auto ints = Make<arrow::Int32Builder, int32_t>(arrow::int32(), {34});
  FLOE_ASSIGN_OR_FAIL(auto int_bucket,
                      ApplyTransform(Transform::Bucket(16), *types::Int(), ints));
  EXPECT_EQ(Ints(int_bucket), std::vector<int32_t>({3}));  // int and long hash alike
  arrow::StringBuilder strings;
  ASSERT_TRUE(strings.Append("iceberg").ok());
  ASSERT_TRUE(strings.AppendNull().ok());
  FLOE_ASSIGN_OR_FAIL(
      auto string_bucket,
      ApplyTransform(Transform::Bucket(16), *types::String(), *strings.Finish()));
  EXPECT_EQ(string_bucket->data()->GetValues<int32_t>(1)[0], 9);
  EXPECT_TRUE(string_bucket->IsNull(1));
  // Nanosecond timestamps are floored to microseconds before hashing.
  auto nanos = Make<arrow::TimestampBuilder, int64_t>(
      arrow::timestamp(arrow::TimeUnit::NANO), {1510871468000001001LL});
  FLOE_ASSIGN_OR_FAIL(auto nano_bucket, ApplyTransform(Transform::Bucket(1 << 30),
                                                       *types::TimestampNs(), nanos));
  EXPECT_EQ(Ints(nano_bucket)[0], (-1207196810 & 0x7FFFFFFF) % (1 << 30));
  EXPECT_FALSE(ApplyTransform(Transform::Bucket(16), *types::Double(),
                              Make<arrow::DoubleBuilder, double>(arrow::float64(), {1.0}))
                   .ok());
}

TEST(TransformKernelsTest, TruncatesTowardNegativeInfinity) {
  auto ints = Make<arrow::Int32Builder, int32_t>(
      arrow::int32(), {1, -1, -10, 0, std::numeric_limits<int32_t>::min()});
  FLOE_ASSIGN_OR_FAIL(auto truncated,
                      ApplyTransform(Transform::Truncate(10), *types::Int(), ints));
  // Java's int arithmetic wraps for the minimum value.
  EXPECT_EQ(Ints(truncated), std::vector<int32_t>({0, -10, -10, 0, 2147483646}));
  arrow::Decimal128Builder decimals(arrow::decimal128(9, 2));
  ASSERT_TRUE(decimals.Append(arrow::Decimal128(1065)).ok());
  FLOE_ASSIGN_OR_FAIL(
      auto decimal,
      ApplyTransform(Transform::Truncate(50), *types::Decimal(9, 2), *decimals.Finish()));
  FLOE_ASSIGN_OR_FAIL(auto value, ValueFromArrow(*decimal, 0, *types::Decimal(9, 2)));
  EXPECT_EQ(std::get<Decimal>(value).unscaled, 1050);  // 10.65 -> 10.50
  arrow::StringBuilder strings;
  ASSERT_TRUE(strings.Append("ab😀cd").ok());
  FLOE_ASSIGN_OR_FAIL(auto prefix, ApplyTransform(Transform::Truncate(3),
                                                  *types::String(), *strings.Finish()));
  EXPECT_EQ(static_cast<const arrow::StringArray&>(*prefix).GetString(0), "ab😀");
}

// The reference's table of iceberg-java results, including the pre-epoch .999999 quirk.
TEST(TemporalTest, MatchesIcebergJavaIncludingThePreEpochQuirk) {
  auto hour = [](int64_t micros) {
    return *TransformTimestamp(micros, 1000000, TimeGranularity::kHour);
  };
  auto day = [](int64_t micros) {
    return *TransformTimestamp(micros, 1000000, TimeGranularity::kDay);
  };
  auto month = [](int64_t micros) {
    return *TransformTimestamp(micros, 1000000, TimeGranularity::kMonth);
  };
  auto year = [](int64_t micros) {
    return *TransformTimestamp(micros, 1000000, TimeGranularity::kYear);
  };
  EXPECT_EQ(hour(-3599000001), -2);
  EXPECT_EQ(day(-3599000001), -1);
  EXPECT_EQ(hour(-86399000001), -25);
  EXPECT_EQ(day(-86399000001), -2);
  EXPECT_EQ(hour(-3600000001), -2);
  EXPECT_EQ(hour(-1), -1);
  EXPECT_EQ(day(-1), -1);
  EXPECT_EQ(year(-31535999000001), -2);
  EXPECT_EQ(month(-31535999000001), -13);
  EXPECT_EQ(day(-31535999000001), -366);
  EXPECT_EQ(year(0), 0);
  EXPECT_EQ(month(1510871468000000), 574);
  EXPECT_EQ(day(1510871468000000), 17486);
  EXPECT_EQ(hour(1510871468000000), 419686);
  EXPECT_EQ(TransformDays(-1, TimeGranularity::kYear), -1);
  EXPECT_EQ(TransformDays(-1, TimeGranularity::kMonth), -1);
  EXPECT_EQ(TransformDays(-365, TimeGranularity::kYear), -1);
  EXPECT_EQ(TransformDays(-366, TimeGranularity::kYear), -2);
  EXPECT_EQ(TransformDays(2147483647, TimeGranularity::kYear), 5881580 - 1970);
  EXPECT_EQ(*TransformTimestamp(-1, 1000000000, TimeGranularity::kHour), -1);
}

TEST(TransformKernelsTest, TimeTransformsOverArraysKeepNulls) {
  arrow::TimestampBuilder builder(arrow::timestamp(arrow::TimeUnit::MICRO, "UTC"),
                                  arrow::default_memory_pool());
  ASSERT_TRUE(builder.Append(1510871468000000).ok());
  ASSERT_TRUE(builder.AppendNull().ok());
  ASSERT_TRUE(builder.Append(-1).ok());
  auto input = *builder.Finish();
  FLOE_ASSIGN_OR_FAIL(auto days,
                      ApplyTransform(Transform::Day(), *types::TimestampTz(), input));
  EXPECT_EQ(days->type_id(), arrow::Type::DATE32);
  EXPECT_EQ(days->data()->GetValues<int32_t>(1)[0], 17486);
  EXPECT_TRUE(days->IsNull(1));
  EXPECT_EQ(days->data()->GetValues<int32_t>(1)[2], -1);
  FLOE_ASSIGN_OR_FAIL(auto hours,
                      ApplyTransform(Transform::Hour(), *types::TimestampTz(), input));
  EXPECT_EQ(hours->type_id(), arrow::Type::INT32);
}

}  // namespace
}  // namespace floe::iceberg
