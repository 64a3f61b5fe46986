// Iceberg's forms of a schema: its JSON, the compact schema text (schema_ddl.h) with the
// ids it assigns, and the name mapping.
#include <string>

#include <gtest/gtest.h>

#include "floe/iceberg/spec/name_mapping.h"
#include "floe/iceberg/spec/schema_ddl.h"
#include "floe/iceberg/spec/table_metadata.h"
#include "floe/testing/sample_schemas.h"
#include "floe/testing/temp_directory.h"
#include "floe/types/schema.h"
#include "floe/types/type.h"
#include "floe/util/error.h"

namespace floe::iceberg {
namespace {

using testing::NestedSchema;

TEST(SchemaTest, JsonRoundTripKeepsEverything) {
  auto schema = NestedSchema();
  std::string json = SchemaToJson(*schema);
  EXPECT_NE(json.find("\"decimal(9, 2)\""), std::string::npos);
  EXPECT_EQ(
      json.rfind("{\"type\":\"struct\",\"schema-id\":3,\"identifier-field-ids\":[1],", 0),
      0u)
      << json;
  FLOE_ASSIGN_OR_FAIL(auto parsed, SchemaFromJson(json));
  EXPECT_TRUE(parsed->SameStructure(*schema));
  EXPECT_EQ(parsed->schema_id(), 3);
  EXPECT_EQ(SchemaToJson(*parsed), json);
}

TEST(SchemaTest, AssignsFreshIdsBreadthFirst) {
  FLOE_ASSIGN_OR_FAIL(
      auto schema,
      ParseSchemaText("id long not null, s struct<a: int, b: list<string not null>>, m "
                      "map<string, struct<x: int>>, `odd name` string comment 'c'"));
  // Top-level fields first (1..4), then s's children (5, 6), then b's element (7), then
  // the map's key and value (8, 9) and the value's field (10).
  EXPECT_EQ(schema->FindFieldId("id"), 1);
  EXPECT_EQ(schema->FindFieldId("s"), 2);
  EXPECT_EQ(schema->FindFieldId("m"), 3);
  EXPECT_EQ(schema->FindFieldId("odd name"), 4);
  EXPECT_EQ(schema->FindFieldId("s.a"), 5);
  EXPECT_EQ(schema->FindFieldId("s.b"), 6);
  EXPECT_EQ(schema->FindFieldId("s.b.element"), 7);
  EXPECT_EQ(schema->FindFieldId("m.key"), 8);
  EXPECT_EQ(schema->FindFieldId("m.value"), 9);
  EXPECT_EQ(schema->FindFieldId("m.value.x"), 10);
  EXPECT_TRUE(schema->FindField(1)->required);
  EXPECT_TRUE(
      static_cast<const ListType&>(*schema->FindField(6)->type).element().required);
  EXPECT_EQ(schema->FindField(4)->doc, "c");
}

TEST(SchemaTest, SchemaTextErrorsNamePosition) {
  auto result = ParseSchemaText("id long, name strng");
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().message().find("unknown type 'strng'"), std::string::npos);
  EXPECT_FALSE(ParseSchemaText("id long,").ok());
  EXPECT_FALSE(ParseSchemaText("s struct<a int").ok());
  EXPECT_FALSE(ParseSchemaText("a int, a long").ok());
  EXPECT_FALSE(ParseSchemaText("").ok());
}

// Found by fuzz_schema_ddl: a name with invalid UTF-8 made writing the schema JSON throw.
TEST(SchemaTest, RejectsNamesThatAreNotUtf8) {
  auto schema = ParseSchemaText(std::string("a long, b\xff\xfe int"));
  ASSERT_FALSE(schema.ok());
  EXPECT_NE(schema.status().message().find("not valid UTF-8"), std::string::npos);
}

TEST(NameMappingTest, ParsesTheSpecFormAndRefusesMalformedMappings) {
  auto mapping = ParseNameMapping(
      R"([{"field-id": 1, "names": ["id", "record_id"]}, {"names": ["unmapped"]},
          {"field-id": 2, "names": ["s"], "fields": [{"field-id": 3, "names": ["x"]}]}])");
  ASSERT_TRUE(mapping.ok()) << mapping.status().ToString();
  const MappedField* id = FindMappedField(**mapping, "record_id");
  ASSERT_NE(id, nullptr);
  EXPECT_EQ(id->field_id, 1);
  const MappedField* unmapped = FindMappedField(**mapping, "unmapped");
  ASSERT_NE(unmapped, nullptr);
  EXPECT_FALSE(unmapped->field_id.has_value());
  const MappedField* s = FindMappedField(**mapping, "s");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(FindMappedField(s->fields, "x")->field_id, 3);
  EXPECT_EQ(FindMappedField(**mapping, "missing"), nullptr);
  for (const char* bad : {"{}", "[1]", R"([{"field-id": "1", "names": ["a"]}])",
                          R"([{"field-id": 1}])", R"([{"names": [1]}])", "[", ""}) {
    auto parsed = ParseNameMapping(bad);
    ASSERT_FALSE(parsed.ok()) << bad;
    EXPECT_EQ(KindOf(parsed.status()), ErrorKind::kInvalidMetadata);
    EXPECT_NE(parsed.status().message().find("schema.name-mapping.default"),
              std::string::npos);
  }
}

}  // namespace
}  // namespace floe::iceberg
