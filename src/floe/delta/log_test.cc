#include "floe/delta/log.h"

#include <cmath>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "arrow/array.h"
#include "arrow/builder.h"
#include "arrow/table.h"
#include "floe/delta/scan.h"
#include "floe/delta/schema.h"
#include "floe/testing/temp_directory.h"
#include "floe/util/error.h"
#include "parquet/arrow/writer.h"

namespace floe::delta {
namespace {

constexpr char kRoot[] = "memory://delta/t";

constexpr const char* kSchema =
    R"({"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"metadata":{}},)"
    R"({"name":"region","type":"string","nullable":true,"metadata":{}},)"
    R"({"name":"day","type":"date","nullable":true,"metadata":{}}]})";

std::string Escaped(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '"' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  return out;
}

std::string ProtocolLine(int reader = 1, int writer = 2,
                         const std::string& features = "") {
  return R"({"protocol":{"minReaderVersion":)" + std::to_string(reader) +
         R"(,"minWriterVersion":)" + std::to_string(writer) + features + "}}";
}

std::string MetadataLine(const std::string& partitions = R"(["region","day"])",
                         const std::string& configuration = "{}") {
  return R"({"metaData":{"id":"0b7e1c5a-0000-4000-8000-000000000001","format":{"provider":"parquet","options":{}},"schemaString":")" +
         Escaped(kSchema) + R"(","partitionColumns":)" + partitions +
         R"(,"configuration":)" + configuration + R"(,"createdTime":1700000000000}})";
}

std::string AddLine(const std::string& path, const std::string& values,
                    const std::string& extra = "") {
  return R"({"add":{"path":")" + path + R"(","partitionValues":)" + values +
         R"(,"size":10,"modificationTime":1700000000000,"dataChange":true)" + extra +
         "}}";
}

std::string RemoveLine(const std::string& path) {
  return R"({"remove":{"path":")" + path +
         R"(","deletionTimestamp":1700000000001,"dataChange":true}})";
}

std::string CommitName(int64_t version) {
  std::string digits = std::to_string(version);
  return std::string(kRoot) + "/_delta_log/" + std::string(20 - digits.size(), '0') +
         digits + ".json";
}

class DeltaLogTest : public ::testing::Test {
 protected:
  void SetUp() override { io_ = *MakeArrowFileIO(); }
  void Commit(int64_t version, const std::vector<std::string>& lines) {
    std::string text;
    for (const auto& line : lines) text += line + "\n";
    ASSERT_TRUE(io_->WriteAll(CommitName(version), text).ok());
  }
  std::vector<std::string> Paths(const Snapshot& snapshot) {
    std::vector<std::string> paths;
    for (const auto& file : snapshot.files) paths.push_back(file.path);
    return paths;
  }
  // A data file with `ids` in column id (and nothing else: region and day are partition
  // columns), at `path` below the table.
  void WriteDataFile(const std::string& path, const std::vector<int64_t>& ids) {
    arrow::Int64Builder builder;
    ASSERT_TRUE(builder.AppendValues(ids).ok());
    auto array = *builder.Finish();
    auto table =
        arrow::Table::Make(arrow::schema({arrow::field("id", arrow::int64())}), {array});
    auto out = *io_->OpenOutput(std::string(kRoot) + "/" + path);
    ASSERT_TRUE(
        parquet::arrow::WriteTable(*table, arrow::default_memory_pool(), out, 1024).ok());
    ASSERT_TRUE(out->Close().ok());
  }
  std::shared_ptr<FileIO> io_;
};

TEST_F(DeltaLogTest, ReplaysAddsAndRemovesInVersionOrder) {
  Commit(0, {R"({"commitInfo":{"operation":"WRITE"}})", ProtocolLine(), MetadataLine(),
             AddLine("region=eu/a.parquet", R"({"region":"eu","day":"2024-01-01"})"),
             AddLine("region=us/b.parquet", R"({"region":"us","day":null})")});
  Commit(1, {RemoveLine("region=eu/a.parquet"),
             AddLine("region=eu/c.parquet", R"({"region":"eu","day":"1969-12-31"})")});
  Commit(2, {R"({"commitInfo":{"inCommitTimestamp":1800000000000}})",
             AddLine("region=eu/a.parquet", R"({"region":"eu","day":"2024-01-01"})"),
             R"({"txn":{"appId":"stream-1","version":7}})"});
  FLOE_ASSIGN_OR_FAIL(auto latest, LoadSnapshot(*io_, kRoot));
  EXPECT_EQ(latest.version, 2);
  EXPECT_EQ(latest.timestamp_ms, 1800000000000);
  EXPECT_EQ(Paths(latest),
            (std::vector<std::string>{"region=eu/a.parquet", "region=eu/c.parquet",
                                      "region=us/b.parquet"}));
  EXPECT_EQ(latest.app_versions.at("stream-1"), 7);
  EXPECT_EQ(latest.metadata.partition_columns,
            (std::vector<std::string>{"region", "day"}));
  EXPECT_EQ(latest.files[0].location, std::string(kRoot) + "/region=eu/a.parquet");
  FLOE_ASSIGN_OR_FAIL(auto first, LoadSnapshot(*io_, kRoot, {.version = 0}));
  EXPECT_EQ(Paths(first),
            (std::vector<std::string>{"region=eu/a.parquet", "region=us/b.parquet"}));
  EXPECT_FALSE(first.files[1].partition_values.at("day").has_value());
  FLOE_ASSIGN_OR_FAIL(auto second, LoadSnapshot(*io_, kRoot, {.version = 1}));
  EXPECT_EQ(Paths(second),
            (std::vector<std::string>{"region=eu/c.parquet", "region=us/b.parquet"}));
  auto beyond = LoadSnapshot(*io_, kRoot, {.version = 3});
  ASSERT_FALSE(beyond.ok());
  EXPECT_NE(beyond.status().message().find("has no version 3 (the latest is 2)"),
            std::string::npos)
      << beyond.status().ToString();
}

TEST_F(DeltaLogTest, PathsAreDecodedOnceAndRemovesMatchTheDecodedPath) {
  Commit(0, {ProtocolLine(), MetadataLine(R"([])"), AddLine("a%20b/c%253A.parquet", "{}"),
             AddLine("plain.parquet", "{}")});
  // The remove spells the same file with its space escaped differently (%20 vs a raw
  // space is not valid; an absolute URI is): it still removes it.
  Commit(1, {RemoveLine(std::string(kRoot) + "/plain.parquet")});
  FLOE_ASSIGN_OR_FAIL(auto snapshot, LoadSnapshot(*io_, kRoot));
  ASSERT_EQ(snapshot.files.size(), 1u);
  EXPECT_EQ(snapshot.files[0].location, std::string(kRoot) + "/a b/c%3A.parquet");
  EXPECT_FALSE(DecodeUriPath("bad%2").ok());
  EXPECT_FALSE(DecodeUriPath("bad%zz").ok());
}

TEST_F(DeltaLogTest, AWinnersFilesCountWhateverTheirDataChange) {
  // A compaction (dataChange false) takes files away and adds their rows back: a writer
  // that read those files conflicts with it as with a delete (delta-spark's
  // WinningCommitSummary counts every add and remove).
  Commit(0, {R"({"commitInfo":{"operation":"OPTIMIZE","txnId":"t"}})",
             R"({"remove":{"path":"region=eu/a.parquet","dataChange":false}})",
             R"({"add":{"path":"region=eu/b.parquet","partitionValues":{"region":"eu"},)"
             R"("size":10,"modificationTime":1,"dataChange":false}})",
             RemoveLine("region=us/c.parquet")});
  FLOE_ASSIGN_OR_FAIL(auto actions, ReadCommitActions(*io_, kRoot, 0));
  EXPECT_EQ(actions.adds, 1);
  EXPECT_EQ(actions.removes, 2);
  EXPECT_EQ(actions.removed_paths,
            (std::set<std::string>{"region=eu/a.parquet", "region=us/c.parquet"}));
  ASSERT_EQ(actions.added_partition_values.size(), 1u);
  EXPECT_EQ(actions.added_partition_values[0].at("region"), "eu");
  EXPECT_EQ(actions.txn_id, "t");
}

TEST_F(DeltaLogTest, AGapInTheLogIsAnErrorNamingTheMissingCommit) {
  Commit(0, {ProtocolLine(), MetadataLine()});
  Commit(2, {AddLine("x.parquet", R"({"region":"eu","day":null})")});
  auto snapshot = LoadSnapshot(*io_, kRoot);
  ASSERT_FALSE(snapshot.ok());
  EXPECT_EQ(KindOf(snapshot.status()), ErrorKind::kInvalidMetadata);
  EXPECT_NE(snapshot.status().message().find("00000000000000000001.json"),
            std::string::npos)
      << snapshot.status().ToString();
}

TEST_F(DeltaLogTest, ACorruptLineIsAnErrorNamingTheFileAndTheLine) {
  Commit(0, {ProtocolLine(), MetadataLine()});
  Commit(1, {AddLine("x.parquet", R"({"region":"eu","day":null})"),
             R"({"add":{"path":"y.parq)"});
  auto snapshot = LoadSnapshot(*io_, kRoot);
  ASSERT_FALSE(snapshot.ok());
  EXPECT_EQ(KindOf(snapshot.status()), ErrorKind::kInvalidMetadata);
  EXPECT_NE(snapshot.status().message().find(CommitName(1) + " line 2"),
            std::string::npos)
      << snapshot.status().ToString();
  // A line that is JSON but no action object is named too.
  Commit(1, {R"(["add"])"});
  snapshot = LoadSnapshot(*io_, kRoot);
  ASSERT_FALSE(snapshot.ok());
  EXPECT_NE(snapshot.status().message().find(CommitName(1) + " line 1"),
            std::string::npos);
}

TEST_F(DeltaLogTest, AnEmptyCommitIsAVersionWithNoActionsAndAWarningNamingIt) {
  Commit(0, {ProtocolLine(), MetadataLine()});
  Commit(1, {AddLine("x.parquet", R"({"region":"eu","day":null})")});
  Commit(2, {});  // bytes lost: delta-spark and kernel-rs read it as no actions
  ::testing::internal::CaptureStderr();
  auto snapshot = LoadSnapshot(*io_, kRoot);
  const std::string logged = ::testing::internal::GetCapturedStderr();
  ASSERT_TRUE(snapshot.ok()) << snapshot.status().ToString();
  EXPECT_EQ(snapshot->version, 2);
  EXPECT_EQ(Paths(*snapshot), std::vector<std::string>{"x.parquet"});
  EXPECT_NE(logged.find(CommitName(2) + " is empty"), std::string::npos) << logged;
  EXPECT_EQ(logged.find(CommitName(1)), std::string::npos) << logged;
}

TEST_F(DeltaLogTest, NoLogIsNoSuchTableAndNoMetadataIsNamed) {
  auto missing = LoadSnapshot(*io_, kRoot);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(KindOf(missing.status()), ErrorKind::kNoSuchTable);
  Commit(0, {ProtocolLine()});
  auto no_metadata = LoadSnapshot(*io_, kRoot);
  ASSERT_FALSE(no_metadata.ok());
  EXPECT_NE(no_metadata.status().message().find("no metaData"), std::string::npos);
}

TEST_F(DeltaLogTest, FeaturesFloeDoesNotReadAreNamed) {
  Commit(
      0,
      {ProtocolLine(
           3, 7,
           R"(,"readerFeatures":["timestampNtz","fancyNewThing"],"writerFeatures":["timestampNtz","fancyNewThing"])"),
       MetadataLine()});
  FLOE_ASSIGN_OR_FAIL(auto snapshot, LoadSnapshot(*io_, kRoot));
  auto status = CheckReadable(snapshot);
  EXPECT_EQ(KindOf(status), ErrorKind::kNotSupported);
  EXPECT_NE(status.message().find("reader feature fancyNewThing"), std::string::npos)
      << status.ToString();

  Commit(
      1,
      {ProtocolLine(
          3, 7,
          R"(,"readerFeatures":["catalogManaged"],"writerFeatures":["catalogManaged","inCommitTimestamp"])")});
  FLOE_ASSIGN_OR_FAIL(snapshot, LoadSnapshot(*io_, kRoot));
  status = CheckReadable(snapshot);
  EXPECT_EQ(KindOf(status), ErrorKind::kInvalidInput);
  EXPECT_NE(status.message().find("catalog-managed"), std::string::npos);

  Commit(
      2,
      {ProtocolLine(
           3, 7,
           R"(,"readerFeatures":["deletionVectors"],"writerFeatures":["deletionVectors"])"),
       AddLine("x.parquet", R"({"region":"eu","day":null})")});
  FLOE_ASSIGN_OR_FAIL(snapshot, LoadSnapshot(*io_, kRoot));
  FLOE_ASSERT_OK(CheckReadable(snapshot));  // the feature alone changes nothing
  Commit(
      3,
      {RemoveLine("x.parquet"),
       AddLine(
           "x.parquet", R"({"region":"eu","day":null})",
           R"(,"deletionVector":{"storageType":"i","pathOrInlineDv":"wi5b=000010000siXQKl0rr91000f","sizeInBytes":10,"cardinality":1})")});
  FLOE_ASSIGN_OR_FAIL(snapshot, LoadSnapshot(*io_, kRoot));
  ASSERT_EQ(snapshot.files.size(), 1u);  // the remove (no DV) took the DV-less entry away
  ASSERT_TRUE(snapshot.files[0].deletion_vector.has_value());
  FLOE_ASSERT_OK(
      CheckReadable(snapshot));  // a deletion vector in use: DeltaScan applies it

  Commit(4, {ProtocolLine(2, 5), MetadataLine(R"(["region","day"])",
                                              R"({"delta.columnMapping.mode":"name"})")});
  FLOE_ASSIGN_OR_FAIL(snapshot, LoadSnapshot(*io_, kRoot));
  FLOE_ASSERT_OK(CheckReadable(snapshot));  // read by physical name
  Commit(5,
         {MetadataLine(R"(["region","day"])", R"({"delta.columnMapping.mode":"uuid"})")});
  FLOE_ASSIGN_OR_FAIL(snapshot, LoadSnapshot(*io_, kRoot));
  status = CheckReadable(snapshot);
  EXPECT_EQ(KindOf(status), ErrorKind::kNotSupported);
  EXPECT_NE(status.message().find("column mapping mode uuid"), std::string::npos);
}

TEST_F(DeltaLogTest, ScansFillPartitionColumnsFromTheLog) {
  WriteDataFile("region=eu/day=2024-01-01/a.parquet", {1, 2});
  WriteDataFile("region=us%2Fwest/day=__HIVE_DEFAULT_PARTITION__/b.parquet", {3});
  Commit(0, {ProtocolLine(), MetadataLine(),
             AddLine("region=eu/day=2024-01-01/a.parquet",
                     R"({"region":"eu","day":"2024-01-01"})"),
             AddLine("region=us%252Fwest/day=__HIVE_DEFAULT_PARTITION__/b.parquet",
                     R"({"region":"us/west","day":null})")});
  FLOE_ASSIGN_OR_FAIL(auto scan,
                      DeltaScan::Make(io_, kRoot, {.columns = {"day", "id", "region"}}));
  FLOE_ASSIGN_OR_FAIL(auto reader, scan->ToRecordBatchReader());
  FLOE_ASSIGN_OR_FAIL(auto table, reader->ToTable());
  FLOE_ASSIGN_OR_FAIL(table, table->CombineChunks());
  ASSERT_EQ(table->num_rows(), 3);
  EXPECT_EQ(table->schema()->field(0)->name(), "day");
  auto ids = std::static_pointer_cast<arrow::Int64Array>(table->column(1)->chunk(0));
  auto regions = std::static_pointer_cast<arrow::StringArray>(table->column(2)->chunk(0));
  auto days = std::static_pointer_cast<arrow::Date32Array>(table->column(0)->chunk(0));
  EXPECT_EQ(ids->Value(0), 1);
  EXPECT_EQ(ids->Value(2), 3);
  EXPECT_EQ(regions->GetString(0), "eu");
  EXPECT_EQ(regions->GetString(2), "us/west");
  EXPECT_EQ(days->Value(0), 19723);
  EXPECT_TRUE(days->IsNull(2));
  EXPECT_EQ(scan->stats().files_read, 2);

  auto unknown = DeltaScan::Make(io_, kRoot, {.columns = {"nope"}});
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("has no column nope"), std::string::npos);
}

TEST_F(DeltaLogTest, AMissingDataFileIsNamed) {
  Commit(0, {ProtocolLine(), MetadataLine(R"([])"), AddLine("gone.parquet", "{}")});
  FLOE_ASSIGN_OR_FAIL(auto scan, DeltaScan::Make(io_, kRoot));
  FLOE_ASSIGN_OR_FAIL(auto reader, scan->ToRecordBatchReader());
  auto table = reader->ToTable();
  ASSERT_FALSE(table.ok());
  EXPECT_NE(table.status().message().find(std::string(kRoot) + "/gone.parquet"),
            std::string::npos)
      << table.status().ToString();
}

TEST(DeltaSchemaTest, ParsesSparkSchemas) {
  FLOE_ASSIGN_OR_FAIL(
      auto schema,
      SchemaFromJson(
          R"j({"type":"struct","fields":[)j"
          R"j({"name":"s","type":{"type":"struct","fields":[{"name":"x","type":"short","nullable":false,"metadata":{}}]},"nullable":true,"metadata":{}},)j"
          R"j({"name":"l","type":{"type":"array","elementType":"timestamp_ntz","containsNull":true},"nullable":true,"metadata":{}},)j"
          R"j({"name":"m","type":{"type":"map","keyType":"string","valueType":"decimal(38,18)","valueContainsNull":false},"nullable":false,"metadata":{}}]})j"));
  EXPECT_EQ(
      schema->ToString(),
      arrow::schema(
          {arrow::field("s", arrow::struct_({arrow::field("x", arrow::int16(), false)})),
           arrow::field("l", arrow::list(arrow::field(
                                 "element", arrow::timestamp(arrow::TimeUnit::MICRO)))),
           arrow::field(
               "m",
               arrow::map(arrow::utf8(),
                          arrow::field("value", arrow::decimal128(38, 18), false)),
               false)})
          ->ToString());
  auto variant = SchemaFromJson(
      R"({"type":"struct","fields":[{"name":"v","type":"variant","nullable":true,"metadata":{}}]})");
  ASSERT_FALSE(variant.ok());
  EXPECT_EQ(KindOf(variant.status()), ErrorKind::kNotSupported);
  EXPECT_NE(variant.status().message().find("column v has Delta type 'variant'"),
            std::string::npos);
  EXPECT_FALSE(SchemaFromJson("{\"type\":\"struct\",\"fields\":[").ok());
}

TEST(DeltaSchemaTest, PartitionValuesParseAsTheProtocolSpellsThem) {
  auto parse = [](const char* text, const std::shared_ptr<arrow::DataType>& type) {
    return ParsePartitionValue(std::string(text), type, "c");
  };
  auto utc = arrow::timestamp(arrow::TimeUnit::MICRO, "UTC");
  EXPECT_EQ((*parse("2024-06-15T19:30:45.000001Z", utc))->ToString(),
            (*parse("2024-06-15 19:30:45.000001", utc))->ToString());
  EXPECT_EQ(std::static_pointer_cast<arrow::TimestampScalar>(
                *parse("1969-12-31 23:59:59.5", utc))
                ->value,
            -500000);
  EXPECT_EQ(
      std::static_pointer_cast<arrow::TimestampScalar>(
          *parse("2024-06-15T21:30:45+02:00", utc))
          ->value,
      std::static_pointer_cast<arrow::TimestampScalar>(*parse("2024-06-15 19:30:45", utc))
          ->value);
  EXPECT_TRUE(std::isnan(
      std::static_pointer_cast<arrow::DoubleScalar>(*parse("NaN", arrow::float64()))
          ->value));
  EXPECT_EQ(
      std::static_pointer_cast<arrow::DoubleScalar>(*parse("-Infinity", arrow::float64()))
          ->value,
      -INFINITY);
  EXPECT_EQ((*parse("1.5E10", arrow::float64()))->ToString(), "1.5e+10");
  EXPECT_EQ((*parse("1.230000000000000000", arrow::decimal128(38, 18)))->ToString(),
            "1.230000000000000000");
  EXPECT_EQ((*parse("-0001-01-01", arrow::date32()))->ToString(), "-0001-01-01");
  EXPECT_EQ(
      std::static_pointer_cast<arrow::Date32Scalar>(*parse("1900-03-01", arrow::date32()))
          ->value,
      -25508);
  EXPECT_EQ((*parse("-128", arrow::int8()))->ToString(), "-128");
  EXPECT_FALSE(parse("128", arrow::int8()).ok());
  EXPECT_FALSE(parse("9223372036854775808", arrow::int64()).ok());
  EXPECT_FALSE(parse("12x", arrow::int32()).ok());
  EXPECT_FALSE(parse("2024-13-01", arrow::date32()).ok());
  EXPECT_FALSE(parse("1.5", arrow::decimal128(3, 0)).ok());  // would lose a digit
  EXPECT_FALSE(parse("yes", arrow::boolean()).ok());
  EXPECT_FALSE((*ParsePartitionValue(std::string(""), arrow::utf8(), "c"))->is_valid);
  EXPECT_FALSE((*ParsePartitionValue(std::nullopt, arrow::int32(), "c"))->is_valid);
}

}  // namespace
}  // namespace floe::delta
