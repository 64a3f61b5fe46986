#include "floe/iceberg/write/parquet_settings.h"

#include <gtest/gtest.h>

#include "parquet/properties.h"
#include "parquet/schema.h"

namespace floe::iceberg {
namespace {

// The compression level and decimal layout Arrow gets for a table's properties.
std::shared_ptr<parquet::WriterProperties> Properties(const PropertyMap& properties) {
  auto settings = ParquetSettingsFromProperties(properties);
  EXPECT_TRUE(settings.ok()) << settings.status().ToString();
  return settings->ToWriterProperties(false, arrow::default_memory_pool());
}

int Level(const PropertyMap& properties) {
  return Properties(properties)
      ->compression_level(parquet::schema::ColumnPath::FromDotString("any"));
}

// Unset write.parquet.compression-level means parquet-java's default level for the codec
// (iceberg-java's reference, section 6): zstd 3 and gzip zlib's 6, not Arrow's 1 and 9.
TEST(ParquetSettingsTest, UnsetLevelIsParquetJavasDefault) {
  EXPECT_EQ(Level({{"write.parquet.compression-codec", "zstd"}}), 3);
  EXPECT_EQ(Level({{"write.parquet.compression-codec", "gzip"}}), 6);
  EXPECT_EQ(Level({{"write.parquet.compression-codec", "zstd"},
                   {"write.parquet.compression-level", "9"}}),
            9);
  EXPECT_EQ(Level({{"write.parquet.compression-codec", "gzip"},
                   {"write.parquet.compression-level", "1"}}),
            1);
  // The level is not part of the settings when unset (explain shows what was asked for).
  auto settings =
      ParquetSettingsFromProperties({{"write.parquet.compression-codec", "zstd"}});
  ASSERT_TRUE(settings.ok());
  EXPECT_FALSE(settings->compression_level.has_value());
}

// iceberg-java writes decimals of precision up to 9 as INT32 and up to 18 as INT64.
TEST(ParquetSettingsTest, DecimalsAreStoredAsIntegers) {
  EXPECT_TRUE(Properties({})->store_decimal_as_integer());
}

}  // namespace
}  // namespace floe::iceberg
