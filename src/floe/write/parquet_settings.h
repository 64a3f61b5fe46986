// Parquet writer settings translated from a table's effective properties, with
// iceberg-java's defaults where a property is unset.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "arrow/memory_pool.h"
#include "arrow/result.h"
#include "floe/spec/table_properties.h"

namespace parquet {
class WriterProperties;
}

namespace floe {

/// Immutable once built.
struct ParquetSettings {
  std::string codec = "zstd";  ///< uncompressed, snappy, gzip, zstd, brotli, lz4
  std::optional<int> compression_level;
  int64_t row_group_size_bytes = 134217728;
  int64_t page_size_bytes = 1048576;
  int64_t page_row_limit = 20000;
  int64_t dict_size_bytes = 2097152;

  /// Reads write.parquet.* from the effective properties. A value iceberg-java's writer
  /// would reject (not a positive 32-bit integer, an unknown codec, a level outside the
  /// codec's range) gives InvalidInput naming the property, never its value. The gate and
  /// the writer both call this function, so they interpret the properties the same way.
  static arrow::Result<ParquetSettings> FromProperties(const PropertyMap& properties);

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
