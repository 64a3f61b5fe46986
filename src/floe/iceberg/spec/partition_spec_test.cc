#include "floe/iceberg/spec/partition_spec.h"

#include <gtest/gtest.h>

#include "floe/iceberg/spec/schema_ddl.h"
#include "floe/iceberg/spec/table_metadata.h"
#include "floe/testing/temp_directory.h"
#include "floe/util/error.h"

namespace floe::iceberg {
namespace {

TEST(PartitionSpecTest, ParsesPartitionByWithDefaultNames) {
  FLOE_ASSIGN_OR_FAIL(
      auto schema,
      ParseSchemaText("id long, ts timestamptz, name string, s struct<region: "
                      "string>, d date"));
  FLOE_ASSIGN_OR_FAIL(auto spec, ParsePartitionBy("s.region, days(ts), bucket(16, id), "
                                                  "truncate(4, name), year(d), void(id)",
                                                  *schema));
  ASSERT_EQ(spec->fields().size(), 6u);
  EXPECT_EQ(spec->fields()[0].name, "s.region");
  EXPECT_EQ(spec->fields()[1].name, "ts_day");
  EXPECT_EQ(spec->fields()[2].name, "id_bucket");
  EXPECT_EQ(spec->fields()[3].name, "name_trunc");
  EXPECT_EQ(spec->fields()[4].name, "d_year");
  EXPECT_EQ(spec->fields()[5].name, "id_null");
  EXPECT_EQ(spec->fields()[2].field_id, 1002);
  FLOE_ASSIGN_OR_FAIL(auto type, spec->PartitionType(*schema));
  EXPECT_EQ(type->fields()[1].type->id(), TypeId::kDate);
  EXPECT_EQ(type->fields()[2].type->id(), TypeId::kInt);
  EXPECT_FALSE(type->fields()[0].required);
  EXPECT_EQ(PartitionSpecToJson(*spec).rfind(
                R"({"spec-id":0,"fields":[{"name":"s.region","transform":"identity",)"
                R"("source-id":6,"field-id":1000},)",
                0),
            0u);

  EXPECT_FALSE(ParsePartitionBy("hour(d)", *schema).ok());  // hour needs a timestamp
  EXPECT_FALSE(
      ParsePartitionBy("bucket(0, id)", *schema).ok());  // width must be positive
  EXPECT_FALSE(ParsePartitionBy("missing", *schema).ok());
  EXPECT_FALSE(ParsePartitionBy("day(ts", *schema).ok());
}

}  // namespace
}  // namespace floe::iceberg
