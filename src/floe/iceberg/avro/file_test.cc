#include "floe/iceberg/avro/file.h"

#include <gtest/gtest.h>

#include "floe/iceberg/avro/iceberg_schema_internal.h"
#include "floe/testing/temp_directory.h"
#include "floe/util/error.h"

namespace floe::iceberg::avro {
namespace {

constexpr char kSchema[] = R"({"type":"record","name":"r","fields":[
  {"name":"b","type":"boolean","field-id":1},
  {"name":"i","type":"int","field-id":2},
  {"name":"l","type":["null","long"],"default":null,"field-id":3},
  {"name":"f","type":"float","field-id":4},
  {"name":"d","type":"double","field-id":5},
  {"name":"s","type":"string","field-id":6},
  {"name":"y","type":"bytes","field-id":7},
  {"name":"x","type":{"type":"fixed","name":"fixed_3","size":3},"field-id":8},
  {"name":"a","type":{"type":"array","items":"long","element-id":10},"field-id":9},
  {"name":"m","type":{"type":"map","values":"int","key-id":12,"value-id":13},"field-id":11},
  {"name":"e","type":{"type":"enum","name":"color","symbols":["red","green"]},"field-id":14},
  {"name":"n","type":{"type":"record","name":"r15","fields":[
     {"name":"again","type":"fixed_3","field-id":16}]},"field-id":15}]})";

Datum Row(int i) {
  ArrayDatum array;
  for (int k = 0; k < i % 5; ++k) array.items.emplace_back(int64_t{k} << 40);
  MapDatum map;
  map.entries.emplace_back("k" + std::to_string(i), Datum(int32_t{-i}));
  return Datum(RecordDatum{
      {Datum(i % 2 == 0), Datum(int32_t{i - 500}),
       i % 3 == 0 ? Datum() : Datum(int64_t{i} * -1234567890123LL),
       Datum(1.5f * static_cast<float>(i)), Datum(-0.25 * i),
       Datum(std::string("héllo ") + std::to_string(i)), Datum(std::string("\0\1\2", 3)),
       Datum(std::string("abc")), Datum(std::move(array)), Datum(std::move(map)),
       Datum(int32_t{i % 2}), Datum(RecordDatum{{Datum(std::string("xyz"))}})}});
}

class AvroFileTest : public ::testing::TestWithParam<Codec> {};

TEST_P(AvroFileTest, RoundTripsEveryTypeAcrossBlocks) {
  auto schema = ParseAvroSchema(kSchema);
  ASSERT_TRUE(schema.ok()) << schema.status().ToString();
  FileWriter writer(*schema, {{"format-version", "2"}}, GetParam());
  constexpr int kRows = 5000;  // enough to span several 64 KB blocks
  for (int i = 0; i < kRows; ++i) FLOE_ASSERT_OK(writer.Append(Row(i)));
  FLOE_ASSIGN_OR_FAIL(std::string bytes, writer.Finish());
  FLOE_ASSIGN_OR_FAIL(FileContents contents, ReadFile(bytes));
  EXPECT_EQ(contents.metadata.at("format-version"), "2");
  EXPECT_EQ(contents.metadata.at("avro.codec"), CodecName(GetParam()));
  ASSERT_EQ(contents.values.size(), static_cast<size_t>(kRows));
  for (int i = 0; i < kRows; i += 97) {
    std::string expected;
    std::string actual;
    FLOE_ASSERT_OK(Encode(**schema, Row(i), &expected));
    FLOE_ASSERT_OK(
        Encode(*contents.schema, contents.values[static_cast<size_t>(i)], &actual));
    EXPECT_EQ(actual, expected) << "row " << i;
  }
  // The schema survives the round trip, including properties and the named-type
  // reference.
  EXPECT_EQ(AvroSchemaToJson(*contents.schema), AvroSchemaToJson(**schema));
  EXPECT_EQ(contents.schema->fields[8].type->IntProperty("element-id"), 10);
  EXPECT_EQ(contents.schema->fields[11].type->fields[0].type->size, 3);
}

INSTANTIATE_TEST_SUITE_P(Codecs, AvroFileTest,
                         ::testing::Values(Codec::kNull, Codec::kDeflate, Codec::kSnappy,
                                           Codec::kZstandard));

TEST(AvroFileTest, RejectsCorruptInputWithoutCrashing) {
  auto schema = ParseAvroSchema(kSchema);
  ASSERT_TRUE(schema.ok());
  FileWriter writer(*schema, {}, Codec::kNull);
  for (int i = 0; i < 10; ++i) FLOE_ASSERT_OK(writer.Append(Row(i)));
  FLOE_ASSIGN_OR_FAIL(std::string bytes, writer.Finish());
  // Every truncation fails cleanly (or, at a block boundary, reads fewer rows).
  for (size_t size = 0; size < bytes.size(); ++size) {
    auto result = ReadFile(std::string_view(bytes).substr(0, size));
    if (result.ok()) {
      EXPECT_LT(result->values.size(), 10u);
    } else {
      EXPECT_EQ(KindOf(result.status()), ErrorKind::kInvalidMetadata)
          << result.status().ToString();
    }
  }
  EXPECT_FALSE(ReadFile("Obj").ok());
  EXPECT_FALSE(ReadFile("not avro at all").ok());
}

TEST(AvroFileTest, RefusesHugeItemCountsWithBoundedMemory) {
  // An array of nulls claiming 2^31 items in a handful of bytes.
  auto schema = ParseAvroSchema(R"({"type":"array","items":"null"})");
  ASSERT_TRUE(schema.ok());
  std::string data;
  EncodeLong(int64_t{1} << 31, &data);
  data.push_back(0);
  Decoder decoder(reinterpret_cast<const uint8_t*>(data.data()), data.size());
  auto result = decoder.Decode(**schema);
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().message().find("claims"), std::string::npos);
  // A string length past the end of the buffer.
  auto string_schema = ParseAvroSchema(R"("string")");
  std::string text;
  EncodeLong(1000, &text);
  text += "short";
  Decoder string_decoder(reinterpret_cast<const uint8_t*>(text.data()), text.size());
  EXPECT_FALSE(string_decoder.Decode(**string_schema).ok());
}

// Container files that lie in their block headers: a manifest block claiming 2^31 entries
// in a few bytes, and a snappy block claiming to inflate to 200 MB. Both are refused
// before anything of the claimed size is allocated.
TEST(AvroFileTest, RefusesBlocksThatClaimMoreThanTheyHold) {
  auto schema = ParseAvroSchema(kSchema);
  ASSERT_TRUE(schema.ok());
  for (Codec codec : {Codec::kNull, Codec::kSnappy}) {
    FileWriter writer(*schema, {}, codec);
    FLOE_ASSIGN_OR_FAIL(std::string header, writer.Finish());  // no blocks yet
    std::string sync = header.substr(header.size() - 16);
    std::string payload;
    int64_t count = 1;
    if (codec == Codec::kNull) {
      count = int64_t{1} << 31;
      payload = std::string(8, '\x02');
    } else {
      // Snappy's header: the uncompressed length as an unsigned varint.
      uint64_t claimed = uint64_t{200} << 20;
      while (claimed >= 0x80) {
        payload.push_back(static_cast<char>((claimed & 0x7F) | 0x80));
        claimed >>= 7;
      }
      payload.push_back(static_cast<char>(claimed));
      payload += std::string(12, '\0');  // a little "compressed data" and a CRC
    }
    std::string bytes = header;
    EncodeLong(count, &bytes);
    EncodeLong(static_cast<int64_t>(payload.size()), &bytes);
    bytes += payload + sync;
    auto result = ReadFile(bytes);
    ASSERT_FALSE(result.ok()) << CodecName(codec);
    EXPECT_EQ(KindOf(result.status()), ErrorKind::kInvalidMetadata);
    EXPECT_NE(result.status().message().find("claims"), std::string::npos)
        << result.status().ToString();
  }
}

TEST(AvroSchemaTest, DeeplyNestedSchemasFailCleanly) {
  std::string deep;
  for (int i = 0; i < 200; ++i) deep += R"({"type":"array","items":)";
  deep += "\"long\"" + std::string(200, '}');
  auto nested = ParseAvroSchema(deep);  // past the 128-level type limit
  ASSERT_FALSE(nested.ok());
  EXPECT_NE(nested.status().message().find("deeper than"), std::string::npos);
  std::string brackets = std::string(1000000, '[') + std::string(1000000, ']');
  auto json_bomb = ParseAvroSchema(brackets);  // refused before nlohmann-json recurses
  ASSERT_FALSE(json_bomb.ok());
  EXPECT_NE(json_bomb.status().message().find("deeper than"), std::string::npos);
}

TEST(AvroSchemaTest, IcebergSchemaFollowsTypeToSchema) {
  auto type = types::Struct(
      {types::Required(1, "id", types::Long()),
       types::Optional(2, "ts", types::TimestampTz()),
       types::Optional(3, "price", types::Decimal(9, 2)),
       types::Optional(4, "1st name", types::String()),
       types::Optional(5, "tags", types::Map(6, types::Int(), 7, types::Binary(), true)),
       types::Optional(8, "u", types::Uuid())});
  std::string json = AvroSchemaToJson(*ToAvroSchema(*type, "r102"));
  EXPECT_NE(json.find(R"({"name":"id","type":"long","field-id":1})"), std::string::npos)
      << json;
  EXPECT_NE(
      json.find(
          R"("type":["null",{"type":"long","logicalType":"timestamp-micros","adjust-to-utc":true}],"default":null,"field-id":2)"),
      std::string::npos)
      << json;
  EXPECT_NE(
      json.find(
          R"({"type":"fixed","name":"decimal_9_2","size":4,"logicalType":"decimal","precision":9,"scale":2})"),
      std::string::npos)
      << json;
  EXPECT_NE(json.find(R"("name":"_1st_x20name")"), std::string::npos) << json;
  EXPECT_NE(json.find(R"("iceberg-field-name":"1st name")"), std::string::npos) << json;
  EXPECT_NE(json.find(R"("name":"k6_v7")"), std::string::npos) << json;
  EXPECT_NE(json.find(R"("logicalType":"map")"), std::string::npos) << json;
  EXPECT_NE(
      json.find(R"({"type":"fixed","name":"uuid_fixed","size":16,"logicalType":"uuid"})"),
      std::string::npos)
      << json;
}

TEST(AvroSchemaTest, DecimalValuesUseMinimalWidth) {
  auto type = types::Decimal(20, 2);
  Value value = Decimal{-1234567};
  Datum datum = ValueToDatum(value, *type);
  ASSERT_EQ(std::get<std::string>(datum.value).size(), 9u);
  FLOE_ASSIGN_OR_FAIL(Value back, DatumToValue(datum, *type));
  EXPECT_EQ(std::get<Decimal>(back).unscaled, -1234567);
  EXPECT_EQ(DecimalRequiredBytes(38), 16);
  EXPECT_EQ(DecimalRequiredBytes(9), 4);
}

}  // namespace
}  // namespace floe::iceberg::avro
