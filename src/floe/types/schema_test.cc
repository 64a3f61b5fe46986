#include "floe/types/schema.h"

#include <set>

#include <gtest/gtest.h>

#include "arrow/api.h"
#include "floe/testing/sample_schemas.h"
#include "floe/testing/temp_directory.h"
#include "floe/types/arrow_schema.h"
#include "floe/types/type.h"

namespace floe {
namespace {

using testing::NestedSchema;

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

TEST(SchemaTest, SelectKeepsOnlyThePathsToSelectedFields) {
  // The schema text "id long not null, s struct<a: int, b: struct<c: string, d:
  // double>>, items list<struct<price: decimal(9, 2), name: string>>, attrs map<string,
  // struct<v: int, w: int>>, tags list<string>" reads: the top-level fields 1 to 5, then
  // s's (6, 7), b's (8, 9), items' element (10) and its fields (11, 12), attrs' key and
  // value (13, 14) and the value's fields (15, 16), tags' element (17).
  auto schema = *Schema::Make(
      0,
      {types::Required(1, "id", types::Long()),
       types::Optional(
           2, "s",
           types::Struct(
               {types::Optional(6, "a", types::Int()),
                types::Optional(
                    7, "b",
                    types::Struct({types::Optional(8, "c", types::String()),
                                   types::Optional(9, "d", types::Double())}))})),
       types::Optional(
           3, "items",
           types::List(10,
                       types::Struct({types::Optional(11, "price", types::Decimal(9, 2)),
                                      types::Optional(12, "name", types::String())}),
                       /*element_required=*/false)),
       types::Optional(4, "attrs",
                       types::Map(13, types::String(), 14,
                                  types::Struct({types::Optional(15, "v", types::Int()),
                                                 types::Optional(16, "w", types::Int())}),
                                  /*value_required=*/false)),
       types::Optional(5, "tags",
                       types::List(17, types::String(), /*element_required=*/false))});
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

}  // namespace
}  // namespace floe
