#include "floe/iceberg/write/parquet_settings.h"

#include "floe/util/error.h"
#include "floe/util/java_text.h"

namespace floe::iceberg {
namespace {

arrow::Result<int64_t> PositiveInt(const PropertyMap& properties,
                                   const IntProperty& property) {
  ARROW_ASSIGN_OR_RAISE(int64_t value, property.Parse(properties));
  if (value <= 0) {
    return MakeError(ErrorKind::kInvalidInput, "property " + std::string(property.key) +
                                                   " must be a positive integer");
  }
  return value;
}

}  // namespace

arrow::Result<ParquetSettings> ParquetSettingsFromProperties(
    const PropertyMap& properties) {
  ParquetSettings settings;
  settings.codec = properties::kParquetCompressionCodec.Get(properties);
  const ParquetCodec* codec = FindParquetCodec(settings.codec);
  if (codec == nullptr) {
    return MakeError(ErrorKind::kInvalidInput,
                     "property " + std::string(properties::kParquetCompressionCodec.key) +
                         " names a codec floe does not write");
  }
  settings.codec = codec->name;
  std::string level = properties::kParquetCompressionLevel.Get(properties);
  if (!level.empty()) {
    auto parsed = ParseJavaInt(level);
    if (!parsed) {
      return MakeError(ErrorKind::kInvalidInput,
                       "property " +
                           std::string(properties::kParquetCompressionLevel.key) +
                           " is not a 32-bit integer");
    }
    // Both writers ignore the level of codecs without one.
    if (codec->has_level) {
      if (*parsed < codec->min_level || *parsed > codec->max_level) {
        return MakeError(ErrorKind::kInvalidInput,
                         "property " +
                             std::string(properties::kParquetCompressionLevel.key) +
                             " is outside the range of codec " + codec->name);
      }
      settings.compression_level = *parsed;
    }
  }
  ARROW_ASSIGN_OR_RAISE(settings.row_group_size_bytes,
                        PositiveInt(properties, properties::kParquetRowGroupSizeBytes));
  ARROW_ASSIGN_OR_RAISE(settings.page_size_bytes,
                        PositiveInt(properties, properties::kParquetPageSizeBytes));
  ARROW_ASSIGN_OR_RAISE(settings.page_row_limit,
                        PositiveInt(properties, properties::kParquetPageRowLimit));
  ARROW_ASSIGN_OR_RAISE(settings.dict_size_bytes,
                        PositiveInt(properties, properties::kParquetDictSizeBytes));
  return settings;
}

}  // namespace floe::iceberg
