#include "floe/iceberg/scan/delete_files.h"

#include <zlib.h>

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "arrow/api.h"
#include "floe/iceberg/spec/schema_ddl.h"
#include "floe/testing/deletion_vector_bytes.h"
#include "floe/testing/temp_directory.h"
#include "floe/util/error.h"

namespace floe::iceberg {
namespace {

using testing::ArrayBitmap;
using testing::Be32;
using testing::Blob;
using testing::Le16;
using testing::Le32;

TEST(DeletionVectorTest, DecodesArrayAndRunContainersAcrossBuckets) {
  FLOE_ASSIGN_OR_FAIL(auto positions, DecodeDeletionVector(
                                          Blob(ArrayBitmap(0, {0, 5, 65535})), "t", 100));
  EXPECT_EQ(positions, (std::vector<int64_t>{0, 5, 65535}));
  FLOE_ASSIGN_OR_FAIL(positions,
                      DecodeDeletionVector(Blob(ArrayBitmap(2, {7})), "t", 100));
  EXPECT_EQ(positions, (std::vector<int64_t>{(int64_t{2} << 32) | 7}));

  // A run container (cookie 12347, one container): 10..13 with key 1.
  std::string run = std::string(8, '\0');
  run[0] = 1;
  run += Le32(0);
  run += Le32(12347);             // run cookie, (containers - 1) = 0 in the high half
  run += std::string(1, '\x01');  // container 0 is a run container
  run += Le16(1) + Le16(3);       // key 1, cardinality - 1
  run += Le16(1) + Le16(10) + Le16(3);  // one run: start 10, length 3
  FLOE_ASSIGN_OR_FAIL(positions, DecodeDeletionVector(Blob(run), "t", 100));
  EXPECT_EQ(positions, (std::vector<int64_t>{65546, 65547, 65548, 65549}));
}

TEST(DeletionVectorTest, MalformedBlobsAreRefusedNamingTheFile) {
  std::string good = Blob(ArrayBitmap(0, {1, 2}));
  std::string bad_magic = good;
  bad_magic[4] = 'x';
  std::string bad_crc = good;
  bad_crc.back() ^= 1;
  std::string trailing = Blob(ArrayBitmap(0, {1, 2}) + "zz");
  for (const std::string& blob : {bad_magic, bad_crc, good.substr(0, good.size() - 1),
                                  std::string("short"), trailing}) {
    auto decoded = DecodeDeletionVector(blob, "Puffin file /x.puffin", 100);
    ASSERT_FALSE(decoded.ok());
    EXPECT_EQ(KindOf(decoded.status()), ErrorKind::kInvalidMetadata);
    EXPECT_NE(decoded.status().message().find("/x.puffin"), std::string::npos);
  }
  // More positions than the delete file's record count claims.
  auto too_many = DecodeDeletionVector(good, "t", 1);
  ASSERT_FALSE(too_many.ok());
  EXPECT_NE(too_many.status().message().find("record count"), std::string::npos);
}

TEST(EqualityKeysTest, NullsMatchNullsAndFloatsCompareByValueBits) {
  auto schema = arrow::schema(
      {arrow::field("d", arrow::float64(), true,
                    arrow::key_value_metadata({"PARQUET:field_id"}, {"3"})),
       arrow::field("s", arrow::utf8(), true,
                    arrow::key_value_metadata({"PARQUET:field_id"}, {"2"}))});
  arrow::DoubleBuilder doubles;
  arrow::StringBuilder strings;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  ASSERT_TRUE(doubles.AppendValues({0.0, -0.0, nan, -nan}).ok());
  ASSERT_TRUE(doubles.AppendNull().ok());
  ASSERT_TRUE(doubles.Append(1.0).ok());
  for (const char* text : {"a", "a", "b", "b"}) ASSERT_TRUE(strings.Append(text).ok());
  ASSERT_TRUE(strings.AppendNull().ok());
  ASSERT_TRUE(strings.Append(std::string("a\0b", 3)).ok());
  auto batch =
      arrow::RecordBatch::Make(schema, 6, {*doubles.Finish(), *strings.Finish()});
  FLOE_ASSIGN_OR_FAIL(auto keys, EqualityKeys(*batch, {3}));
  EXPECT_NE(keys[0], keys[1]);  // 0.0 and -0.0 differ
  EXPECT_EQ(keys[2], keys[3]);  // every NaN is NaN
  EXPECT_NE(keys[4], keys[0]);  // null is not 0.0
  FLOE_ASSIGN_OR_FAIL(auto pairs, EqualityKeys(*batch, {3, 2}));
  FLOE_ASSIGN_OR_FAIL(auto strings_only, EqualityKeys(*batch, {2}));
  EXPECT_EQ(strings_only[0], strings_only[1]);
  EXPECT_NE(strings_only[0], strings_only[5]);  // "a" vs "a\0b"
  EXPECT_NE(pairs[0], pairs[1]);
  EXPECT_EQ(KindOf(EqualityKeys(*batch, {9}).status()), ErrorKind::kInvalidInput);
}

TEST(DeleteIndexTest, MatchesBySequenceNumberPartitionAndReferencedFile) {
  FLOE_ASSIGN_OR_FAIL(auto schema, ParseSchemaText("id long, region string"));
  auto unpartitioned = PartitionSpec::Unpartitioned();
  DataFile data;
  data.file_path = "/t/data/a.parquet";
  data.spec_id = 1;
  data.partition = {Value(std::string("a"))};
  FLOE_ASSIGN_OR_FAIL(
      auto spec,
      PartitionSpec::Make(1, {PartitionField{2, 1000, "region", Transform::Identity()}}));

  auto make = [](FileContent content, int64_t seq, int spec_id,
                 std::vector<Value> partition, PartitionSpecPtr spec) {
    DeleteFileEntry entry;
    entry.file.content = content;
    entry.file.file_path = "/t/data/delete-" + std::to_string(seq) + "-" +
                           std::to_string(static_cast<int>(content)) + "-" +
                           std::to_string(spec_id) + ".parquet";
    entry.file.spec_id = spec_id;
    entry.file.partition = std::move(partition);
    entry.sequence_number = seq;
    entry.spec = std::move(spec);
    return entry;
  };
  DeleteIndex index;
  index.Add(make(FileContent::kPositionDeletes, 5, 1, {Value(std::string("a"))},
                 spec));  // applies
  index.Add(make(FileContent::kPositionDeletes, 4, 1, {Value(std::string("a"))},
                 spec));  // older
  index.Add(make(FileContent::kPositionDeletes, 6, 1, {Value(std::string("b"))},
                 spec));  // other partition
  index.Add(make(FileContent::kEqualityDeletes, 5, 1, {Value(std::string("a"))},
                 spec));  // same seq: no
  index.Add(make(FileContent::kEqualityDeletes, 6, 1, {Value(std::string("a"))},
                 spec));                                                    // applies
  index.Add(make(FileContent::kEqualityDeletes, 7, 0, {}, unpartitioned));  // global
  auto dv = make(FileContent::kPositionDeletes, 9, 1, {Value(std::string("a"))}, spec);
  dv.file.referenced_data_file = "/t/data/other.parquet";
  index.Add(dv);  // names another file
  auto matched = index.For(data, 5, *spec);
  std::vector<int64_t> sequences;
  for (const auto& entry : matched) sequences.push_back(entry->sequence_number);
  EXPECT_EQ(sequences, (std::vector<int64_t>{5, 6, 7}));
}

}  // namespace
}  // namespace floe::iceberg
