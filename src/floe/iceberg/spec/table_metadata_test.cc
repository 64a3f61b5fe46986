#include "floe/iceberg/spec/table_metadata.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "floe/iceberg/spec/schema_ddl.h"
#include "floe/iceberg/spec/sort_order.h"
#include "floe/testing/temp_directory.h"
#include "floe/util/error.h"

namespace floe::iceberg {
namespace {

// A v2 metadata file as the Iceberg spec and iceberg-java write it, with a partition
// spec, a sort order, two snapshots, refs, logs and statistics.
constexpr char kV2Metadata[] = R"json({
  "format-version": 2,
  "table-uuid": "9c12d441-03fe-4693-9a96-a0705ddf69c1",
  "location": "s3://bucket/test/location",
  "last-sequence-number": 34,
  "last-updated-ms": 1602638573590,
  "last-column-id": 3,
  "current-schema-id": 1,
  "schemas": [
    {"type": "struct", "schema-id": 0, "fields": [
      {"id": 1, "name": "x", "required": true, "type": "long"}]},
    {"type": "struct", "schema-id": 1, "identifier-field-ids": [1, 2], "fields": [
      {"id": 1, "name": "x", "required": true, "type": "long"},
      {"id": 2, "name": "y", "required": true, "type": "long", "doc": "comment"},
      {"id": 3, "name": "z", "required": true, "type": "long"}]}],
  "default-spec-id": 0,
  "partition-specs": [{"spec-id": 0, "fields": [
      {"name": "x", "transform": "identity", "source-id": 1, "field-id": 1000}]}],
  "last-partition-id": 1000,
  "default-sort-order-id": 3,
  "sort-orders": [{"order-id": 3, "fields": [
      {"transform": "identity", "source-id": 2, "direction": "asc", "null-order": "nulls-first"},
      {"transform": "bucket[4]", "source-id": 3, "direction": "desc", "null-order": "nulls-last"}]}],
  "properties": {"write.parquet.compression-codec": "zstd", "owner": "floe"},
  "current-snapshot-id": 3055729675574597004,
  "refs": {"main": {"snapshot-id": 3055729675574597004, "type": "branch"},
           "audit": {"snapshot-id": 3051729675574597004, "type": "tag", "max-ref-age-ms": 1000}},
  "snapshots": [
    {"snapshot-id": 3051729675574597004, "timestamp-ms": 1515100955770, "sequence-number": 0,
     "summary": {"operation": "append"}, "manifest-list": "s3://a/b/1.avro"},
    {"snapshot-id": 3055729675574597004, "parent-snapshot-id": 3051729675574597004,
     "timestamp-ms": 1555100955770, "sequence-number": 1,
     "summary": {"operation": "append", "added-data-files": "4", "total-records": "10"},
     "manifest-list": "s3://a/b/2.avro", "schema-id": 1}],
  "statistics": [{"snapshot-id": 3055729675574597004, "statistics-path": "s3://a/b/stats.puffin",
                  "file-size-in-bytes": 413, "file-footer-size-in-bytes": 42,
                  "blob-metadata": []}],
  "partition-statistics": [],
  "snapshot-log": [{"snapshot-id": 3051729675574597004, "timestamp-ms": 1515100955770},
                   {"snapshot-id": 3055729675574597004, "timestamp-ms": 1555100955770}],
  "metadata-log": [{"metadata-file": "s3://bucket/.../v1.json", "timestamp-ms": 1515100}]
})json";

TEST(TableMetadataTest, ParsesSpecExampleAndRoundTrips) {
  FLOE_ASSIGN_OR_FAIL(auto metadata, TableMetadataFromJson(kV2Metadata));
  EXPECT_EQ(metadata->format_version, 2);
  EXPECT_EQ(metadata->last_sequence_number, 34);
  EXPECT_EQ(metadata->CurrentSchema()->schema_id(), 1);
  EXPECT_EQ(metadata->CurrentSchema()->identifier_field_ids(), (std::vector<int>{1, 2}));
  EXPECT_EQ(metadata->CurrentSchema()->FindField(2)->doc, "comment");
  EXPECT_EQ(metadata->DefaultSortOrder()->fields[1].transform.ToString(), "bucket[4]");
  EXPECT_EQ(metadata->CurrentSnapshot()->summary.GetLong("total-records"), 10);
  EXPECT_EQ(metadata->CurrentSnapshot()->parent_snapshot_id, 3051729675574597004);
  EXPECT_FALSE(metadata->refs.at("audit").is_branch);
  EXPECT_EQ(metadata->refs.at("audit").max_ref_age_ms, 1000);
  EXPECT_EQ(metadata->SnapshotAsOf(1515100955771)->snapshot_id, 3051729675574597004);
  EXPECT_EQ(metadata->SnapshotAsOf(1), nullptr);

  // Written JSON is semantically the input (fields the input omitted get their defaults).
  std::string written = TableMetadataToJson(*metadata);
  auto expected = nlohmann::json::parse(kV2Metadata);
  auto actual = nlohmann::json::parse(written);
  // iceberg-java omits a 0 sequence number; the input wrote it explicitly.
  expected["snapshots"][0].erase("sequence-number");
  EXPECT_EQ(actual, expected) << written;
  // And the key order is iceberg-java's.
  EXPECT_EQ(written.rfind("{\"format-version\":2,\"table-uuid\":", 0), 0u);
  EXPECT_LT(written.find("\"last-partition-id\""),
            written.find("\"default-sort-order-id\""));
  EXPECT_LT(written.find("\"refs\""), written.find("\"snapshots\""));
  FLOE_ASSIGN_OR_FAIL(auto reparsed, TableMetadataFromJson(written));
  EXPECT_EQ(TableMetadataToJson(*reparsed), written);
}

TEST(TableMetadataTest, ReadsV1WithSingleSchemaAndSpec) {
  constexpr char kV1[] = R"json({
    "format-version": 1, "location": "/tmp/t", "last-updated-ms": 1, "last-column-id": 2,
    "schema": {"type": "struct", "fields": [
      {"id": 1, "name": "a", "required": false, "type": "int"},
      {"id": 2, "name": "b", "required": false, "type": "string"}]},
    "partition-spec": [{"name": "a", "transform": "identity", "source-id": 1}],
    "properties": {}, "current-snapshot-id": -1, "snapshots": []})json";
  FLOE_ASSIGN_OR_FAIL(auto metadata, TableMetadataFromJson(kV1));
  EXPECT_EQ(metadata->format_version, 1);
  EXPECT_FALSE(metadata->current_snapshot_id.has_value());
  EXPECT_EQ(metadata->DefaultSpec()->fields()[0].field_id, 1000);
  EXPECT_EQ(metadata->last_partition_id, 1000);
  EXPECT_TRUE(metadata->DefaultSortOrder()->IsUnsorted());
  std::string written = TableMetadataToJson(*metadata);
  auto json = nlohmann::json::parse(written);
  EXPECT_TRUE(json.contains("schema"));
  EXPECT_TRUE(json.contains("partition-spec"));
  EXPECT_FALSE(json.contains("last-sequence-number"));
  EXPECT_EQ(json["current-snapshot-id"], -1);
}

TEST(TableMetadataTest, V3WritesNullCurrentSnapshotAndNextRowId) {
  FLOE_ASSIGN_OR_FAIL(auto schema, ParseSchemaText("a int"));
  FLOE_ASSIGN_OR_FAIL(
      auto metadata,
      NewTableMetadata(*schema, *PartitionSpec::Unpartitioned(), *SortOrder::Unsorted(),
                       "/tmp/t/", {{"format-version", "3"}, {"k", "v"}}));
  EXPECT_EQ(metadata->location, "/tmp/t");
  EXPECT_EQ(metadata->properties.count("format-version"), 0u);
  EXPECT_EQ(metadata->properties.at("write.parquet.compression-codec"), "zstd");
  auto json = nlohmann::json::parse(TableMetadataToJson(*metadata));
  EXPECT_TRUE(json["current-snapshot-id"].is_null());
  EXPECT_EQ(json["next-row-id"], 0);
  EXPECT_EQ(json["last-partition-id"], 999);
  FLOE_ASSIGN_OR_FAIL(auto parsed, TableMetadataFromJson(json.dump()));
  EXPECT_EQ(parsed->format_version, 3);
}

TEST(TableMetadataTest, BuilderAddsSnapshotsAndTrimsMetadataLog) {
  FLOE_ASSIGN_OR_FAIL(auto schema, ParseSchemaText("a int"));
  FLOE_ASSIGN_OR_FAIL(
      auto metadata,
      NewTableMetadata(*schema, *PartitionSpec::Unpartitioned(), *SortOrder::Unsorted(),
                       "/tmp/t", {{"write.metadata.previous-versions-max", "2"}}));
  std::string location = "/tmp/t/metadata/00000.metadata.json";
  std::optional<int64_t> parent;
  std::vector<MetadataLogEntry> removed;
  for (int i = 1; i <= 4; ++i) {
    auto snapshot = std::make_shared<Snapshot>();
    snapshot->snapshot_id = 100 + i;
    snapshot->parent_snapshot_id = parent;
    snapshot->sequence_number = metadata->NextSequenceNumber();
    snapshot->timestamp_ms = 1000 * i;
    snapshot->summary.operation = operations::kAppend;
    snapshot->manifest_list = "/tmp/list" + std::to_string(i);
    metadata =
        TableMetadataBuilder(*metadata, location).AddSnapshot(snapshot).Build(&removed);
    location = "/tmp/t/metadata/0000" + std::to_string(i) + ".metadata.json";
    parent = snapshot->snapshot_id;
  }
  EXPECT_EQ(metadata->last_sequence_number, 4);
  EXPECT_EQ(metadata->current_snapshot_id, 104);
  EXPECT_EQ(metadata->snapshot_log.size(), 4u);
  ASSERT_EQ(metadata->metadata_log.size(), 2u);
  EXPECT_EQ(metadata->metadata_log.back().metadata_file,
            "/tmp/t/metadata/00003.metadata.json");
  ASSERT_EQ(removed.size(), 2u);
  EXPECT_EQ(removed[0].metadata_file, "/tmp/t/metadata/00000.metadata.json");
}

TEST(TableMetadataTest, MalformedMetadataNamesTheField) {
  auto not_json = TableMetadataFromJson("{\"format-version\": 2,");
  ASSERT_FALSE(not_json.ok());
  EXPECT_EQ(KindOf(not_json.status()), ErrorKind::kInvalidMetadata);

  auto json = nlohmann::json::parse(kV2Metadata);
  json.erase("last-column-id");
  auto missing = TableMetadataFromJson(json.dump());
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("last-column-id"), std::string::npos);

  json = nlohmann::json::parse(kV2Metadata);
  json["current-snapshot-id"] = 42;
  auto dangling = TableMetadataFromJson(json.dump());
  ASSERT_FALSE(dangling.ok());
  EXPECT_NE(dangling.status().message().find("current-snapshot-id 42"),
            std::string::npos);

  json = nlohmann::json::parse(kV2Metadata);
  json["format-version"] = 4;
  EXPECT_EQ(KindOf(TableMetadataFromJson(json.dump()).status()),
            ErrorKind::kNotSupported);
}

// A schema nested past floe's depth limits (lists in lists, 300 and 10,000 levels) is a
// clear error, not a stack overflow; so is JSON nested a million levels deep.
TEST(TableMetadataTest, DeeplyNestedSchemasAndJsonFailCleanly) {
  // Built as text: copying a nlohmann value this deep would itself recurse. 300 levels
  // pass the JSON depth bound and meet the schema's type-depth limit; 10,000 levels meet
  // the JSON bound before any parser recurses.
  for (int levels : {300, 10000}) {
    auto json = nlohmann::json::parse(kV2Metadata);
    json["schemas"][0]["fields"][0]["type"] = "PLACEHOLDER";
    std::string type;
    for (int level = 0; level < levels; ++level) {
      type += R"({"type":"list","element-required":false,"element-id":)" +
              std::to_string(100000 + level) + R"(,"element":)";
    }
    type += "\"long\"" + std::string(levels, '}');
    std::string text = json.dump();
    text.replace(text.find("\"PLACEHOLDER\""), 13, type);
    auto deep = TableMetadataFromJson(text);
    ASSERT_FALSE(deep.ok()) << levels;
    EXPECT_EQ(KindOf(deep.status()), ErrorKind::kInvalidMetadata);
    EXPECT_NE(deep.status().message().find("deeper than"), std::string::npos)
        << deep.status().ToString();
  }

  std::string arrays(1000000, '[');
  arrays += std::string(1000000, ']');
  auto brackets = TableMetadataFromJson(arrays);
  ASSERT_FALSE(brackets.ok());
  EXPECT_EQ(KindOf(brackets.status()), ErrorKind::kInvalidMetadata);
}

TEST(TransformTest, ParsesLikeIcebergJava) {
  FLOE_ASSIGN_OR_FAIL(auto bucket, Transform::Parse("BUCKET[16]"));
  EXPECT_EQ(bucket.ToString(), "bucket[16]");
  FLOE_ASSIGN_OR_FAIL(auto day, Transform::Parse("Day"));
  EXPECT_EQ(day.kind(), TransformKind::kDay);
  FLOE_ASSIGN_OR_FAIL(auto unknown, Transform::Parse("zorder(a,b)"));
  EXPECT_EQ(unknown.kind(), TransformKind::kUnknown);
  EXPECT_EQ(unknown.ToString(), "zorder(a,b)");
  EXPECT_FALSE(Transform::Parse("bucket[0]").ok());
  EXPECT_FALSE(Transform::Bucket(4).CanTransform(*types::Double()));
  EXPECT_FALSE(Transform::Truncate(4).CanTransform(*types::Fixed(4)));
  EXPECT_TRUE(Transform::Identity().CanTransform(*types::Double()));
}

}  // namespace
}  // namespace floe::iceberg
