#include "floe/parquet/settings.h"

#include <limits>
#include <vector>

#include <nlohmann/json.hpp>

#include "floe/util/error.h"
#include "floe/util/json_depth_internal.h"
#include "floe/util/json_number_internal.h"
#include "floe/util/text.h"
#include "parquet/properties.h"

namespace floe {
namespace {

struct CodecInfo {
  const char* name;
  arrow::Compression::type type;
  int min_level;
  int max_level;
  bool has_level;
  /// The level parquet-java compresses at when write.parquet.compression-level is unset
  /// (0: Arrow's default is kept). Arrow's own defaults differ: zstd 1, gzip 9.
  int java_default_level;
};

// Codecs both iceberg-java (parquet-java's CompressionCodecName) and Arrow write
// identically.
constexpr CodecInfo kCodecs[] = {
    {"uncompressed", arrow::Compression::UNCOMPRESSED, 0, 0, false, 0},
    {"snappy", arrow::Compression::SNAPPY, 0, 0, false, 0},
    // Hadoop's GzipCodec: zlib's default level.
    {"gzip", arrow::Compression::GZIP, 0, 9, true, 6},
    // parquet-java's ZstandardCodec default (parquet.compression.codec.zstd.level).
    {"zstd", arrow::Compression::ZSTD, 1, 22, true, 3},
    {"brotli", arrow::Compression::BROTLI, 0, 11, true, 0},
};

const CodecInfo* FindCodec(std::string_view name) {
  const std::string lower = AsciiLower(name);
  for (const auto& codec : kCodecs) {
    if (lower == codec.name) return &codec;
  }
  return nullptr;
}

}  // namespace

const ParquetCodec* FindParquetCodec(std::string_view name) {
  static const auto* codecs = [] {
    auto* made = new std::vector<ParquetCodec>();
    for (const auto& codec : kCodecs) {
      made->push_back({codec.name, codec.has_level, codec.min_level, codec.max_level});
    }
    return made;
  }();
  const CodecInfo* found = FindCodec(name);
  if (found == nullptr) return nullptr;
  return &(*codecs)[static_cast<size_t>(found - kCodecs)];
}

std::shared_ptr<parquet::WriterProperties> ParquetSettings::ToWriterProperties(
    bool nanosecond_timestamps, arrow::MemoryPool* pool,
    const std::vector<std::string>& plain_columns) const {
  const CodecInfo* info = FindCodec(codec);
  parquet::WriterProperties::Builder builder;
  builder.memory_pool(pool);
  builder.compression(info ? info->type : arrow::Compression::ZSTD);
  if (compression_level) {
    builder.compression_level(*compression_level);
  } else if (info && info->java_default_level > 0) {
    builder.compression_level(info->java_default_level);
  }
  builder.data_pagesize(page_size_bytes);
  builder.max_rows_per_page(page_row_limit);
  builder.dictionary_pagesize_limit(dict_size_bytes);
  builder.data_page_version(parquet::ParquetDataPageVersion::V1);
  builder.version(nanosecond_timestamps ? parquet::ParquetVersion::PARQUET_2_6
                                        : parquet::ParquetVersion::PARQUET_1_0);
  // Row groups are cut by size by the data-file writer, not by Arrow's row count.
  builder.max_row_group_length(std::numeric_limits<int64_t>::max());
  builder.enable_statistics();
  builder.max_statistics_size(std::numeric_limits<size_t>::max());
  builder.enable_page_checksum();
  // Column and offset indexes, as parquet-java writes by default (readers skip pages with
  // them); Arrow's default has varied between releases, so it is not left to it.
  builder.enable_write_page_index();
  // iceberg-java's physical types for decimals: INT32 up to precision 9, INT64 up to 18,
  // fixed-length bytes beyond (Arrow would write fixed-length bytes for every precision).
  builder.enable_store_decimal_as_integer();
  for (const auto& column : plain_columns) builder.disable_dictionary(column);
  builder.created_by("floe version " FLOE_VERSION);
  return builder.build();
}

std::string ParquetSettings::ToJson() const {
  nlohmann::ordered_json json;
  json["codec"] = codec;
  if (compression_level) json["compression-level"] = *compression_level;
  json["row-group-size-bytes"] = row_group_size_bytes;
  json["page-size-bytes"] = page_size_bytes;
  json["page-row-limit"] = page_row_limit;
  json["dict-size-bytes"] = dict_size_bytes;
  return json.dump();
}

arrow::Result<ParquetSettings> ParquetSettings::FromJson(std::string_view text) {
  if (JsonNestsDeeperThan(text, 8)) {  // a flat object of settings
    return MakeError(ErrorKind::kInvalidInput,
                     "Parquet settings are not a flat JSON object");
  }
  auto json = nlohmann::json::parse(text.begin(), text.end(), nullptr, false);
  if (json.is_discarded() || !json.is_object()) {
    return MakeError(ErrorKind::kInvalidInput, "Parquet settings are not a JSON object");
  }
  ParquetSettings settings;
  // Each number an integer that fits (nlohmann's get<> would wrap one that does not).
  auto number = [&](const char* key) -> std::optional<int64_t> {
    return json.contains(key) ? JsonInt64(json[key]) : std::nullopt;
  };
  try {
    settings.codec = json.at("codec").get<std::string>();
    if (json.contains("compression-level")) {
      const std::optional<int32_t> level = JsonInt32(json["compression-level"]);
      if (!level) {
        return MakeError(ErrorKind::kInvalidInput,
                         "Parquet settings: compression-level is not an int");
      }
      settings.compression_level = *level;
    }
    const auto row_group = number("row-group-size-bytes");
    const auto page = number("page-size-bytes");
    const auto page_rows = number("page-row-limit");
    const auto dictionary = number("dict-size-bytes");
    if (!row_group || !page || !page_rows || !dictionary) {
      return MakeError(ErrorKind::kInvalidInput,
                       "Parquet settings: a size is missing or not a long");
    }
    settings.row_group_size_bytes = *row_group;
    settings.page_size_bytes = *page;
    settings.page_row_limit = *page_rows;
    settings.dict_size_bytes = *dictionary;
  } catch (const nlohmann::json::exception& error) {
    return MakeError(ErrorKind::kInvalidInput,
                     std::string("Parquet settings: ") + error.what());
  }
  if (FindCodec(settings.codec) == nullptr) {
    return MakeError(ErrorKind::kInvalidInput, "Parquet settings: unknown codec");
  }
  return settings;
}

}  // namespace floe
