#include "floe/iceberg/catalog/rest_catalog.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "floe/iceberg/spec/schema_ddl.h"
#include "floe/testing/temp_directory.h"
#include "floe/util/error.h"

namespace floe::iceberg {
namespace {

using nlohmann::json;

TableMetadataPtr NewTable(std::map<std::string, std::string> properties = {}) {
  auto schema = ParseSchemaText("id long not null, name string");
  EXPECT_TRUE(schema.ok());
  auto metadata =
      NewTableMetadata(**schema, *PartitionSpec::Unpartitioned(), *SortOrder::Unsorted(),
                       "/w/db/t", std::move(properties));
  EXPECT_TRUE(metadata.ok());
  return *metadata;
}

SnapshotPtr MakeSnapshot(const TableMetadata& base, int64_t id) {
  auto snapshot = std::make_shared<Snapshot>();
  snapshot->snapshot_id = id;
  snapshot->parent_snapshot_id = base.current_snapshot_id;
  snapshot->sequence_number = base.NextSequenceNumber();
  snapshot->timestamp_ms = 1000 + id;
  snapshot->summary.operation = operations::kAppend;
  snapshot->manifest_list = "/w/db/t/metadata/snap-" + std::to_string(id) + ".avro";
  snapshot->schema_id = base.current_schema_id;
  return snapshot;
}

TableMetadataPtr Append(const TableMetadataPtr& base, int64_t id) {
  return TableMetadataBuilder(*base, "/w/db/t/metadata/v.metadata.json")
      .AddSnapshot(MakeSnapshot(*base, id))
      .Build();
}

json Request(const TableMetadata& base, const TableMetadata& updated) {
  auto text = RestCommitRequestJson(base, updated);
  EXPECT_TRUE(text.ok()) << text.status().ToString();
  return text.ok() ? json::parse(*text) : json();
}

TEST(RestCommitRequestTest, FirstAppendRequiresAnEmptyMainBranch) {
  auto base = NewTable();
  auto updated = Append(base, 11);
  json request = Request(*base, *updated);
  ASSERT_EQ(request["requirements"].size(), 2u);
  EXPECT_EQ(request["requirements"][0],
            json({{"type", "assert-table-uuid"}, {"uuid", base->table_uuid}}));
  EXPECT_EQ(request["requirements"][1], json({{"type", "assert-ref-snapshot-id"},
                                              {"ref", "main"},
                                              {"snapshot-id", nullptr}}));
  ASSERT_EQ(request["updates"].size(), 2u);
  EXPECT_EQ(request["updates"][0]["action"], "add-snapshot");
  EXPECT_EQ(request["updates"][0]["snapshot"]["snapshot-id"], 11);
  EXPECT_EQ(request["updates"][0]["snapshot"]["sequence-number"], 1);
  EXPECT_EQ(request["updates"][0]["snapshot"]["manifest-list"],
            "/w/db/t/metadata/snap-11.avro");
  EXPECT_EQ(request["updates"][1], json({{"action", "set-snapshot-ref"},
                                         {"ref-name", "main"},
                                         {"snapshot-id", 11},
                                         {"type", "branch"}}));
}

TEST(RestCommitRequestTest, LaterAppendAssertsTheBaseHead) {
  auto first = Append(NewTable(), 11);
  auto second = Append(first, 22);
  json request = Request(*first, *second);
  EXPECT_EQ(request["requirements"][1]["snapshot-id"], 11);
  ASSERT_EQ(request["updates"].size(), 2u);
  EXPECT_EQ(request["updates"][0]["snapshot"]["parent-snapshot-id"], 11);
  EXPECT_EQ(request["updates"][1]["snapshot-id"], 22);
}

TEST(RestCommitRequestTest, ExpiryRemovesSnapshotsWithoutTouchingMain) {
  auto two = Append(Append(NewTable(), 11), 22);
  auto expired = TableMetadataBuilder(*two, "/w/v2.json").RemoveSnapshots({11}).Build();
  json request = Request(*two, *expired);
  ASSERT_EQ(request["requirements"].size(), 1u);  // the uuid only: main did not move
  ASSERT_EQ(request["updates"].size(), 1u);
  EXPECT_EQ(request["updates"][0],
            json({{"action", "remove-snapshots"}, {"snapshot-ids", {11}}}));
}

TEST(RestCommitRequestTest, PropertiesAreSetAndRemoved) {
  auto base = NewTable({{"a", "1"}, {"b", "2"}});
  auto updated = TableMetadataBuilder(*base, "/w/v.json")
                     .SetProperties({{"a", "10"}, {"c", "3"}})
                     .RemoveProperties({"b"})
                     .Build();
  json request = Request(*base, *updated);
  ASSERT_EQ(request["updates"].size(), 2u);
  EXPECT_EQ(request["updates"][0],
            json({{"action", "set-properties"}, {"updates", {{"a", "10"}, {"c", "3"}}}}));
  EXPECT_EQ(request["updates"][1],
            json({{"action", "remove-properties"}, {"removals", {"b"}}}));
}

TEST(RestCommitRequestTest, DroppingATagAssertsIt) {
  auto base = Append(NewTable(), 11);
  TableMetadata tagged = *base;
  tagged.refs["v1"] = SnapshotRef{11, false};
  auto untagged = TableMetadataBuilder(tagged, "/w/v.json").RemoveRef("v1").Build();
  json request = Request(tagged, *untagged);
  EXPECT_EQ(
      request["requirements"][1],
      json({{"type", "assert-ref-snapshot-id"}, {"ref", "v1"}, {"snapshot-id", 11}}));
  EXPECT_EQ(request["updates"][0],
            json({{"action", "remove-snapshot-ref"}, {"ref-name", "v1"}}));
}

TEST(RestCommitRequestTest, ChangesWithoutAnUpdateAreRefused) {
  auto base = Append(NewTable(), 11);
  TableMetadata rewritten = *base;
  auto changed = std::make_shared<Snapshot>(*base->snapshots[0]);
  changed->manifest_list = "/elsewhere.avro";
  rewritten.snapshots[0] = changed;
  auto refused = RestCommitRequestJson(*base, rewritten);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(KindOf(refused.status()), ErrorKind::kNotSupported);
  EXPECT_NE(refused.status().message().find("snapshot 11 changed"), std::string::npos);

  TableMetadata other_table = *base;
  other_table.table_uuid = "00000000-0000-0000-0000-000000000000";
  EXPECT_EQ(KindOf(RestCommitRequestJson(*base, other_table).status()),
            ErrorKind::kNotSupported);
  TableMetadata stats = *base;
  stats.statistics_json = R"([{"snapshot-id": 11}])";
  EXPECT_EQ(KindOf(RestCommitRequestJson(*base, stats).status()),
            ErrorKind::kNotSupported);
}

TEST(RestCatalogTest, OpenRefusesOtherSchemesAndUnreachableServers) {
  CatalogOptions options;
  options.uri = "ftp://example/";
  EXPECT_EQ(KindOf(RestCatalog::Open(options).status()), ErrorKind::kInvalidInput);
  options.uri = "http://127.0.0.1:9/";
  options.properties["token"] = "tok-secret-1";
  options.properties["rest.timeout-ms"] = "2000";
  auto refused = RestCatalog::Open(options);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("http://127.0.0.1:9"), std::string::npos);
  EXPECT_EQ(refused.status().message().find("tok-secret-1"), std::string::npos);
  options.properties["rest.timeout-ms"] = "soon";
  EXPECT_EQ(KindOf(RestCatalog::Open(options).status()), ErrorKind::kInvalidInput);
  options.properties.erase("rest.timeout-ms");
  options.properties["header.X-Evil"] = "a\r\nInjected: yes";
  EXPECT_EQ(KindOf(RestCatalog::Open(options).status()), ErrorKind::kInvalidInput);
}

}  // namespace
}  // namespace floe::iceberg
