// Parquet writer settings, format-neutral: what a table format's properties translate to
// (write/parquet_settings.h does it for Iceberg's write.parquet.* keys), and the Parquet
// writer properties they make.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "arrow/memory_pool.h"
#include "arrow/result.h"

namespace parquet {
class WriterProperties;
}

namespace floe {

/// A compression codec floe writes exactly as parquet-java does, and its levels.
struct ParquetCodec {
  const char* name;  ///< Lower case: uncompressed, snappy, gzip, zstd, brotli.
  bool has_level;    ///< Whether a compression level applies.
  int min_level;
  int max_level;
};

/// The codec named `name` (any case), or null when floe does not write it.
const ParquetCodec* FindParquetCodec(std::string_view name);

/// Immutable once built.
struct ParquetSettings {
  std::string codec = "zstd";  ///< uncompressed, snappy, gzip, zstd, brotli, lz4
  std::optional<int> compression_level;
  int64_t row_group_size_bytes = 134217728;
  int64_t page_size_bytes = 1048576;
  int64_t page_row_limit = 20000;
  int64_t dict_size_bytes = 2097152;

  /// The Parquet writer properties: codec and level, data page size and row limit,
  /// dictionary page size, data page v1, statistics on and untruncated, page checksums
  /// on. Files are written as format 1.0 like parquet-java's default writer (so
  /// dictionary pages are labelled PLAIN_DICTIONARY), unless `nanosecond_timestamps`:
  /// Arrow can only keep nanoseconds in format 2.6 files. Column writers allocate their
  /// buffers from `pool` (so a file's buffered bytes can be measured through it).
  /// `plain_columns` (Parquet column paths) are written without a dictionary.
  std::shared_ptr<parquet::WriterProperties> ToWriterProperties(
      bool nanosecond_timestamps, arrow::MemoryPool* pool,
      const std::vector<std::string>& plain_columns = {}) const;

  /// As JSON (for WritePlan), and back.
  std::string ToJson() const;
  static arrow::Result<ParquetSettings> FromJson(std::string_view json);
};

}  // namespace floe
