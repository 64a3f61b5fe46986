#include "floe/gate/gate.h"

#include <gtest/gtest.h>

#include "floe/spec/schema_ddl.h"
#include "floe/testing/temp_directory.h"
#include "floe/write/parquet_settings.h"

namespace floe {
namespace {

TableMetadataPtr Metadata(const std::string& schema_text, const std::string& partition_by,
                          PropertyMap properties = {}, const std::string& location = "/w/t") {
  auto schema = ParseSchemaText(schema_text);
  auto spec = ParsePartitionBy(partition_by, **schema);
  return *NewTableMetadata(**schema, **spec, *SortOrder::Unsorted(), location, std::move(properties));
}

TEST(GateTest, AcceptsWhatFloeReproduces) {
  auto metadata = Metadata("id long, ts timestamptz, s string, f fixed[4]",
                           "day(ts), bucket(16, id), truncate(2, s), bucket(4, f)");
  GateResult result = CheckWrite(*metadata, {{"write.target-file-size-bytes", "1048576"}});
  EXPECT_TRUE(result.supported()) << result.ToString();
}

TEST(GateTest, DeclinesWithSortedReasonsNamingPropertiesNotValues) {
  auto metadata = Metadata("id long, v variant", "",
                           {{"write.format.default", "orc"},
                            {"write.parquet.bloom-filter-enabled.column.id", "true"},
                            {"encryption.key-id", "secret-key-value"}});
  GateResult result = CheckWrite(*metadata, {{"write.object-storage.enabled", "true"},
                                             {"write.parquet.compression-level", "99"}});
  ASSERT_FALSE(result.supported());
  EXPECT_TRUE(std::is_sorted(result.reasons.begin(), result.reasons.end()));
  std::string text = result.ToString();
  for (const char* expected : {"write.format.default", "write.parquet.bloom-filter-enabled.column.id",
                               "encryption.key-id", "write.object-storage.enabled",
                               "write.parquet.compression-level", "column v has type variant"}) {
    EXPECT_NE(text.find(expected), std::string::npos) << expected << " in " << text;
  }
  EXPECT_EQ(text.find("secret-key-value"), std::string::npos);
  EXPECT_EQ(text.find("orc"), std::string::npos);
  EXPECT_EQ(text.find("99"), std::string::npos);
}

TEST(GateTest, DeclinesIdentityPartitionsOfFixedColumns) {
  auto metadata = Metadata("id long, f fixed[4]", "f");
  GateResult result = CheckWrite(*metadata, {});
  ASSERT_FALSE(result.supported());
  EXPECT_NE(result.ToString().find("identity partition of a fixed column"), std::string::npos);
}

TEST(GateTest, DeclinesStorageFloeCannotWrite) {
  EXPECT_FALSE(CheckWrite(*Metadata("id long", "", {}, "s3://bucket/t"), {}).supported());
  EXPECT_FALSE(CheckWrite(*Metadata("id long", ""), {{"write.data.path", "gs://b/data"}}).supported());
  EXPECT_FALSE(CheckWrite(*Metadata("id long", ""), {{"io-impl", "x"}}).supported());
  EXPECT_FALSE(CheckWrite(*Metadata("id long", ""), {{"write.location-provider.impl", "x"}}).supported());
}

// The gate and the writer read Parquet settings through one function: every value one accepts
// the other accepts, and every value one refuses the other refuses.
TEST(GateTest, AgreesWithTheWriterOnPropertyValues) {
  for (const char* value : {"1", "134217728", "0", "-1", "2147483648", " 1", "1.5", "abc", "+5"}) {
    for (const char* key : {"write.parquet.row-group-size-bytes", "write.parquet.page-size-bytes",
                            "write.parquet.page-row-limit", "write.parquet.dict-size-bytes"}) {
      PropertyMap options = {{key, value}};
      bool writer_accepts = ParquetSettings::FromProperties(options).ok();
      bool gate_accepts = CheckWrite(*Metadata("id long", ""), options).supported();
      EXPECT_EQ(writer_accepts, gate_accepts) << key << "=" << value;
    }
  }
  for (const char* level : {"1", "22", "0", "23", "x"}) {
    PropertyMap options = {{"write.parquet.compression-codec", "zstd"},
                           {"write.parquet.compression-level", level}};
    EXPECT_EQ(ParquetSettings::FromProperties(options).ok(),
              CheckWrite(*Metadata("id long", ""), options).supported())
        << level;
  }
}

}  // namespace
}  // namespace floe
