#include "floe/spec/schema.h"

#include <gtest/gtest.h>

#include "arrow/api.h"
#include "floe/spec/arrow_schema.h"
#include "floe/spec/name_mapping.h"
#include "floe/spec/schema_ddl.h"
#include "floe/spec/table_metadata.h"
#include "floe/testing/temp_directory.h"
#include "floe/util/error.h"

namespace floe {
namespace {

SchemaPtr NestedSchema() {
  auto point = types::Struct({types::Required(5, "x", types::Double()),
                              types::Optional(6, "y", types::Double())});
  auto schema = Schema::Make(
      3,
      {types::Required(1, "id", types::Long()),
       types::Optional(2, "points", types::List(4, point, true)),
       types::Optional(3, "attrs",
                       types::Map(7, types::String(), 8, types::String(), false)),
       types::Optional(9, "price", types::Decimal(9, 2))},
      {1});
  return *schema;
}

TEST(SchemaTest, IndexesFullAndShortNames) {
  auto schema = NestedSchema();
  EXPECT_EQ(schema->FindFieldId("points.element.x"), 5);
  EXPECT_EQ(schema->FindFieldId("points.x"), 5);  // short form without "element"
  EXPECT_EQ(schema->FindFieldId("attrs.value"), 8);
  EXPECT_EQ(schema->FindFieldId("attrs.key"), 7);
  EXPECT_EQ(schema->FindColumnName(6), "points.element.y");
  EXPECT_EQ(schema->FindParentId(5), 4);
  EXPECT_EQ(schema->FindParentId(4), 2);
  EXPECT_EQ(schema->HighestFieldId(), 9);
  EXPECT_FALSE(schema->FindFieldId("nope").has_value());
}

TEST(SchemaTest, RejectsDuplicateIdsAndNames) {
  EXPECT_FALSE(Schema::Make(0, {types::Required(1, "a", types::Int()),
                                types::Required(1, "b", types::Int())})
                   .ok());
  EXPECT_FALSE(Schema::Make(0, {types::Required(1, "a", types::Int()),
                                types::Required(2, "a", types::Int())})
                   .ok());
  // Identifier fields must be required primitives.
  EXPECT_FALSE(Schema::Make(0, {types::Optional(1, "a", types::Int())}, {1}).ok());
}

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

TEST(SchemaTest, ParsesEveryPrimitiveTypeName) {
  for (const char* name :
       {"boolean", "int", "long", "float", "double", "date", "time", "timestamp",
        "timestamptz", "timestamp_ns", "timestamptz_ns", "string", "uuid", "binary",
        "unknown", "variant", "geometry", "geography"}) {
    FLOE_ASSIGN_OR_FAIL(auto type, PrimitiveType::FromString(name));
    EXPECT_EQ(type->ToString(), name);
  }
  FLOE_ASSIGN_OR_FAIL(auto decimal, PrimitiveType::FromString("decimal(38,10)"));
  EXPECT_EQ(decimal->ToString(), "decimal(38, 10)");
  FLOE_ASSIGN_OR_FAIL(auto fixed, PrimitiveType::FromString("fixed[16]"));
  EXPECT_EQ(fixed->ToString(), "fixed[16]");
  FLOE_ASSIGN_OR_FAIL(auto geometry, PrimitiveType::FromString("geometry(EPSG:4326)"));
  EXPECT_EQ(geometry->ToString(), "geometry(EPSG:4326)");
  EXPECT_FALSE(PrimitiveType::FromString("decimal(39,1)").ok());
  EXPECT_FALSE(PrimitiveType::FromString("fixed[0]").ok());
  EXPECT_FALSE(PrimitiveType::FromString("strin").ok());
  EXPECT_FALSE(IsWritable(TypeId::kVariant));
  EXPECT_TRUE(IsWritable(TypeId::kTimestampTzNs));
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

}  // namespace
}  // namespace floe

namespace floe {
namespace {

// Found by fuzz_schema_ddl: a name with invalid UTF-8 made writing the schema JSON throw.
TEST(SchemaTest, RejectsNamesThatAreNotUtf8) {
  auto schema = ParseSchemaText(std::string("a long, b\xff\xfe int"));
  ASSERT_FALSE(schema.ok());
  EXPECT_NE(schema.status().message().find("not valid UTF-8"), std::string::npos);
}

TEST(SchemaTest, SelectKeepsOnlyThePathsToSelectedFields) {
  auto schema = *ParseSchemaText(
      "id long not null, s struct<a: int, b: struct<c: string, d: double>>, "
      "items list<struct<price: decimal(9, 2), name: string>>, attrs map<string, "
      "struct<v: int, w: int>>, "
      "tags list<string>");
  auto select = [&](std::initializer_list<const char*> names) {
    std::set<int> ids;
    for (const char* name : names) ids.insert(*schema->FindFieldId(name));
    return SelectFields(*schema, ids)->as_struct()->ToString();
  };
  EXPECT_EQ(select({"id"}), "struct<1: id: required long>");
  EXPECT_EQ(
      select({"s.b.d"}),
      "struct<2: s: optional struct<7: b: optional struct<9: d: optional double>>>");
  EXPECT_EQ(select({"s.b"}),
            "struct<2: s: optional struct<7: b: optional struct<8: c: optional string, "
            "9: d: optional double>>>");
  // Short names: items.price is items.element.price, attrs.w is attrs.value.w.
  EXPECT_EQ(select({"items.price"}),
            "struct<3: items: optional list<struct<11: price: optional decimal(9, 2)>>>");
  EXPECT_EQ(select({"attrs.w"}),
            "struct<4: attrs: optional map<string, struct<16: w: optional int>>>");
  EXPECT_EQ(select({"tags"}), "struct<5: tags: optional list<string>>");
  EXPECT_EQ(select({}), "struct<>");
}

// Arrow's nullability is Iceberg's optionality, for list elements and map values alike
// (a nullable map value is optional; a non-nullable one required), both ways.
TEST(SchemaTest, ArrowNullabilityOfListElementsAndMapValues) {
  auto schema = arrow::schema({
      arrow::field("m", arrow::map(arrow::utf8(), arrow::field("value", arrow::float64(),
                                                               /*nullable=*/true))),
      arrow::field("r", arrow::map(arrow::utf8(), arrow::field("value", arrow::int32(),
                                                               /*nullable=*/false))),
      arrow::field("l", arrow::list(arrow::field("element", arrow::utf8(), false))),
  });
  FLOE_ASSIGN_OR_FAIL(auto converted, FromArrowSchemaAssigningIds(*schema));
  auto value_of = [&](const std::string& name) {
    const auto& map = static_cast<const MapType&>(
        *converted->FindField(*converted->FindFieldId(name))->type);
    return map.value();
  };
  EXPECT_FALSE(value_of("m").required);
  EXPECT_TRUE(value_of("r").required);
  const auto& list = static_cast<const ListType&>(
      *converted->FindField(*converted->FindFieldId("l"))->type);
  EXPECT_TRUE(list.element().required);
  FLOE_ASSIGN_OR_FAIL(auto back, ToArrowSchema(*converted));
  const auto& m = static_cast<const arrow::MapType&>(*back->GetFieldByName("m")->type());
  const auto& r = static_cast<const arrow::MapType&>(*back->GetFieldByName("r")->type());
  EXPECT_TRUE(m.item_field()->nullable());
  EXPECT_FALSE(r.item_field()->nullable());
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
}  // namespace floe
