#include "floe/iceberg/manifest/manifest.h"

#include <cmath>

#include <gtest/gtest.h>

#include "floe/iceberg/spec/schema_ddl.h"
#include "floe/testing/temp_directory.h"
#include "floe/util/error.h"

namespace floe::iceberg {
namespace {

struct Fixture {
  SchemaPtr schema;
  PartitionSpecPtr spec;
};

Fixture MakeFixture() {
  auto schema = ParseSchemaText(
      "id long not null, region string, score double, d date, "
      "price decimal(9, 2)");
  auto spec = ParsePartitionBy("region, score, d, price", **schema);
  return {*schema, *spec};
}

DataFile File(int i) {
  DataFile file;
  file.file_path = "/warehouse/t/data/file-" + std::to_string(i) + ".parquet";
  file.partition = {i == 3 ? Value() : Value("r" + std::to_string(i % 2)),
                    i == 4 ? Value(std::nan("")) : Value(i == 5 ? -0.0 : 1.5 * i),
                    Value(int32_t{-400 + i}), Value(Decimal{-100 * i})};
  file.record_count = 10 + i;
  file.file_size_in_bytes = 1000 + i;
  file.column_sizes = {{1, 100}, {2, 200}};
  file.value_counts = {{1, 10}, {2, 10}};
  file.null_value_counts = {{1, 0}, {2, i}};
  file.nan_value_counts = {{3, 0}};
  file.lower_bounds = {{1, Bytes{1, 0, 0, 0, 0, 0, 0, 0}}};
  file.upper_bounds = {{1, Bytes{9, 0, 0, 0, 0, 0, 0, 0}}};
  file.split_offsets = {4};
  file.sort_order_id = 0;
  return file;
}

class ManifestTest : public ::testing::TestWithParam<int> {};

TEST_P(ManifestTest, RoundTripsEntriesAndSummarisesPartitions) {
  int format_version = GetParam();
  auto fixture = MakeFixture();
  ManifestWriteOptions options;
  options.format_version = format_version;
  options.schema = fixture.schema;
  options.spec = fixture.spec;
  options.snapshot_id = 77;
  FLOE_ASSIGN_OR_FAIL(auto writer, ManifestWriter::Make(options));
  std::vector<ManifestEntry> entries;
  for (int i = 0; i < 8; ++i) {
    ManifestEntry entry;
    entry.status = i == 7 ? EntryStatus::kDeleted
                          : (i == 6 ? EntryStatus::kExisting : EntryStatus::kAdded);
    entry.snapshot_id = 77;
    if (format_version > 1 && i >= 6) {
      entry.sequence_number = 3;
      entry.file_sequence_number = 3;
    }
    entry.data_file = File(i);
    // v3: an existing entry keeps the first row id it inherited; an added one never
    // records one (iceberg-java's writer drops it: the manifest list assigns it).
    if (format_version == 3 && (i == 0 || i == 6)) entry.data_file.first_row_id = 12;
    FLOE_ASSERT_OK(writer->Add(entry));
    if (i == 0) entry.data_file.first_row_id.reset();
    entries.push_back(entry);
  }
  FLOE_ASSIGN_OR_FAIL(auto encoded, writer->Finish());
  EXPECT_EQ(encoded.summary.added_files_count, 6);
  EXPECT_EQ(encoded.summary.existing_files_count, 1);
  EXPECT_EQ(encoded.summary.deleted_files_count, 1);
  EXPECT_EQ(encoded.summary.added_rows_count, 10 + 11 + 12 + 13 + 14 + 15);
  EXPECT_EQ(encoded.summary.added_snapshot_id, 77);
  EXPECT_EQ(encoded.summary.min_sequence_number, format_version > 1 ? 3 : -1);
  ASSERT_EQ(encoded.summary.partitions.size(), 4u);
  EXPECT_TRUE(encoded.summary.partitions[0].contains_null);
  EXPECT_FALSE(encoded.summary.partitions[1].contains_null);
  EXPECT_TRUE(*encoded.summary.partitions[1].contains_nan);
  // Bounds skip NaN and order -0.0 below 0.0 and positives.
  EXPECT_EQ(encoded.summary.partitions[1].lower_bound,
            ToBinary(Value(-0.0), *types::Double()));
  EXPECT_EQ(encoded.summary.partitions[1].upper_bound,
            ToBinary(Value(10.5), *types::Double()));
  EXPECT_EQ(encoded.summary.partitions[3].lower_bound,
            ToBinary(Value(Decimal{-700}), *types::Decimal(9, 2)));

  FLOE_ASSIGN_OR_FAIL(auto contents, ReadManifest(encoded.bytes));
  EXPECT_EQ(contents.format_version, format_version);
  EXPECT_EQ(contents.spec_id, 0);
  ASSERT_NE(contents.spec, nullptr);
  EXPECT_TRUE(contents.spec->SameFields(*fixture.spec));
  ASSERT_EQ(contents.entries.size(), entries.size());
  for (size_t i = 0; i < entries.size(); ++i) {
    auto expected = entries[i];
    auto actual = contents.entries[i];
    if (std::isnan(std::get<double>(expected.data_file.partition[1]))) {
      EXPECT_TRUE(std::isnan(std::get<double>(actual.data_file.partition[1])));
      actual.data_file.partition[1] = expected.data_file.partition[1] = Value(0.0);
    }
    EXPECT_EQ(actual, expected) << "entry " << i;
  }
  EXPECT_EQ(contents.metadata.count("content"), format_version > 1 ? 1u : 0u);
}

INSTANTIATE_TEST_SUITE_P(FormatVersions, ManifestTest, ::testing::Values(1, 2, 3));

TEST(ManifestTest, ListAssignsSequenceNumbersAndRowIds) {
  ManifestFile data;
  data.manifest_path = "/m/a.avro";
  data.manifest_length = 100;
  data.added_snapshot_id = 5;
  data.added_files_count = 2;
  data.existing_files_count = 0;
  data.deleted_files_count = 0;
  data.added_rows_count = 30;
  data.existing_rows_count = 5;
  data.deleted_rows_count = 0;
  data.partitions = {PartitionFieldSummary{true, false, Bytes{1}, Bytes{2}}};
  ManifestFile older = data;
  older.manifest_path = "/m/b.avro";
  older.sequence_number = 2;
  older.min_sequence_number = 1;
  older.first_row_id = 0;

  for (int version : {1, 2, 3}) {
    ManifestListWriteOptions options;
    options.format_version = version;
    options.snapshot_id = 5;
    options.sequence_number = 3;
    options.first_row_id = 40;
    FLOE_ASSIGN_OR_FAIL(auto encoded, WriteManifestList(options, {data, older}));
    FLOE_ASSIGN_OR_FAIL(auto contents, ReadManifestList(encoded.bytes));
    EXPECT_EQ(contents.metadata.at("parent-snapshot-id"), "null");
    ASSERT_EQ(contents.manifests.size(), 2u);
    const auto& read = contents.manifests[0];
    EXPECT_EQ(read.manifest_path, "/m/a.avro");
    EXPECT_EQ(read.added_rows_count, 30);
    EXPECT_EQ(read.partitions, data.partitions);
    if (version == 1) {
      EXPECT_EQ(read.sequence_number, 0);
    } else {
      EXPECT_EQ(read.sequence_number, 3);
      EXPECT_EQ(read.min_sequence_number, 3);
      EXPECT_EQ(contents.manifests[1].sequence_number, 2);
      EXPECT_EQ(contents.metadata.at("sequence-number"), "3");
    }
    if (version == 3) {
      EXPECT_EQ(read.first_row_id, 40);
      EXPECT_EQ(contents.manifests[1].first_row_id, 0);
      EXPECT_EQ(encoded.assigned_rows, 35);
    } else {
      EXPECT_FALSE(read.first_row_id.has_value());
    }
  }
}

TEST(ManifestTest, InheritsSnapshotIdAndSequenceNumbers) {
  ManifestFile manifest;
  manifest.added_snapshot_id = 9;
  manifest.sequence_number = 4;
  manifest.partition_spec_id = 2;
  std::vector<ManifestEntry> entries(2);
  entries[1].status = EntryStatus::kExisting;
  entries[1].sequence_number = 1;
  InheritManifestMetadata(manifest, 2, &entries);
  EXPECT_EQ(entries[0].snapshot_id, 9);
  EXPECT_EQ(entries[0].sequence_number, 4);
  EXPECT_EQ(entries[0].data_file.spec_id, 2);
  EXPECT_EQ(entries[1].sequence_number, 1);
}

TEST(ManifestTest, RejectsPartitionTuplesThatDoNotFitTheSpec) {
  auto fixture = MakeFixture();
  ManifestWriteOptions options;
  options.schema = fixture.schema;
  options.spec = fixture.spec;
  FLOE_ASSIGN_OR_FAIL(auto writer, ManifestWriter::Make(options));
  ManifestEntry entry;
  entry.data_file = File(1);
  entry.data_file.partition.pop_back();
  EXPECT_FALSE(writer->Add(entry).ok());
  entry.data_file = File(1);
  entry.data_file.partition[2] =
      Value(int64_t{1});  // a long where the date (int) belongs
  EXPECT_FALSE(writer->Add(entry).ok());
}

}  // namespace
}  // namespace floe::iceberg
