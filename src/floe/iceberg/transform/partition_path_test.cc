#include "floe/iceberg/transform/partition_path.h"

#include <gtest/gtest.h>

#include "floe/iceberg/spec/schema_ddl.h"
#include "floe/testing/temp_directory.h"

namespace floe::iceberg {
namespace {

// Vectors from iceberg-java's TestPartitionPaths / TestLocationProvider and the
// reference.
TEST(PartitionPathTest, EscapesNamesAndValues) {
  FLOE_ASSIGN_OR_FAIL(
      auto schema, ParseSchemaText("data string, `\"esc\"#1` string, `data#1` string"));
  FLOE_ASSIGN_OR_FAIL(auto spec, ParsePartitionBy("data", *schema));
  FLOE_ASSIGN_OR_FAIL(auto type, spec->PartitionType(*schema));
  EXPECT_EQ(PartitionToPath(*spec, *type, {Value("a/b/c/d")}), "data=a%2Fb%2Fc%2Fd");
  FLOE_ASSIGN_OR_FAIL(auto escaped, ParsePartitionBy("`\"esc\"#1`", *schema));
  FLOE_ASSIGN_OR_FAIL(auto escaped_type, escaped->PartitionType(*schema));
  EXPECT_EQ(PartitionToPath(*escaped, *escaped_type, {Value("a/b/c/d")}),
            "%22esc%22%231=a%2Fb%2Fc%2Fd");
  FLOE_ASSIGN_OR_FAIL(auto hash, ParsePartitionBy("`data#1`", *schema));
  FLOE_ASSIGN_OR_FAIL(auto hash_type, hash->PartitionType(*schema));
  EXPECT_EQ(PartitionToPath(*hash, *hash_type, {Value("val#1")}), "data%231=val%231");
  EXPECT_EQ(PartitionToPath(*spec, *type, {Value()}), "data=null");
  EXPECT_EQ(PartitionToPath(*PartitionSpec::Unpartitioned(), *types::Struct({}), {}), "");
}

TEST(PartitionPathTest, HumanStringsPerType) {
  auto human = [](const Transform& transform, const TypePtr& type, const Value& value) {
    return PartitionHumanString(transform, *type, value);
  };
  Transform identity = Transform::Identity();
  EXPECT_EQ(human(identity, types::Date(), Value(int32_t{17486})), "2017-11-16");
  EXPECT_EQ(human(identity, types::Timestamp(), Value(int64_t{1510871468000000})),
            "2017-11-16T22:31:08");
  EXPECT_EQ(human(identity, types::TimestampTz(), Value(int64_t{1510871468000000})),
            "2017-11-16T22:31:08+00:00");
  EXPECT_EQ(human(identity, types::Time(), Value(int64_t{81068000000})), "22:31:08");
  EXPECT_EQ(human(identity, types::Binary(), Value(Bytes{0, 1, 2, 3})), "AAECAw==");
  EXPECT_EQ(human(identity, types::Double(), Value(-0.0)), "-0.0");
  EXPECT_EQ(human(identity, types::Boolean(), Value(true)), "true");
  EXPECT_EQ(human(Transform::Year(), types::Int(), Value(int32_t{47})), "2017");
  EXPECT_EQ(human(Transform::Month(), types::Int(), Value(int32_t{574})), "2017-11");
  EXPECT_EQ(human(Transform::Month(), types::Int(), Value(int32_t{-1})), "1969-12");
  EXPECT_EQ(human(Transform::Hour(), types::Int(), Value(int32_t{419794})),
            "2017-11-21-10");
  EXPECT_EQ(human(identity, types::Uuid(),
                  Value(Bytes{0xf7, 0x9c, 0x3e, 0x09, 0x67, 0x7c, 0x4b, 0xbd, 0xa4, 0x79,
                              0x3f, 0x34, 0x9c, 0xb7, 0x85, 0xe7})),
            "f79c3e09-677c-4bbd-a479-3f349cb785e7");
}

TEST(PartitionPathTest, DecimalsAsBigDecimalToString) {
  // The reference's BigDecimal.toString vectors.
  EXPECT_EQ(JavaBigDecimalToString(0, 2), "0.00");
  EXPECT_EQ(JavaBigDecimalToString(0, 7), "0E-7");
  EXPECT_EQ(JavaBigDecimalToString(1, 7), "1E-7");
  EXPECT_EQ(JavaBigDecimalToString(1000, 7), "0.0001000");
  EXPECT_EQ(JavaBigDecimalToString(1000, 10), "1.000E-7");
  EXPECT_EQ(JavaBigDecimalToString(123456789, 2), "1234567.89");
  EXPECT_EQ(JavaBigDecimalToString(-1420, 2), "-14.20");
  EXPECT_EQ(JavaBigDecimalToString(42, 0), "42");
}

}  // namespace
}  // namespace floe::iceberg
