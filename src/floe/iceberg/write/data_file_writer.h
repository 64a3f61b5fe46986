// One Iceberg data file: a Parquet file written as iceberg-java writes one (root "table",
// Avro-compatible names, field ids, the write schema in the footer), closed into a
// DataFile with iceberg-java's metrics.
#pragma once

#include <memory>
#include <string>

#include "arrow/memory_pool.h"
#include "arrow/type_fwd.h"
#include "floe/iceberg/manifest/data_file.h"
#include "floe/iceberg/write/metrics.h"
#include "floe/iceberg/write/metrics_config.h"
#include "floe/iceberg/write/parquet_settings.h"
#include "floe/io/file_io.h"
#include "floe/parquet/file_writer.h"
#include "floe/types/schema.h"

namespace floe::iceberg {

/// What every data file of one write shares. Immutable; shared by a task's writers.
struct DataWriterContext {
  SchemaPtr schema;  ///< The write schema (field ids).
  std::shared_ptr<const MetricsConfig> metrics;
  int sort_order_id = 0;
  /// The Parquet side: made by Make from the rest.
  std::shared_ptr<const ParquetWriteContext> parquet;

  /// A context writing `schema`'s rows through `io` with `settings`, allocating from
  /// `pool`: Parquet files as iceberg-java writes them.
  static arrow::Result<std::shared_ptr<const DataWriterContext>> Make(
      std::shared_ptr<FileIO> io, SchemaPtr schema, ParquetSettings settings,
      std::shared_ptr<const MetricsConfig> metrics, int sort_order_id,
      arrow::MemoryPool* pool);
};

/// A written file as a DataFile (content, path, format, record count, size, metrics by
/// the context's MetricsConfig, split offsets and sort order id set; partition left to
/// the caller).
arrow::Result<DataFile> ToDataFile(const DataWriterContext& context,
                                   const WrittenParquetFile& written);

/// A ParquetFileWriter whose Close gives a DataFile. Not thread-safe.
class ParquetDataWriter {
 public:
  static arrow::Result<std::unique_ptr<ParquetDataWriter>> Open(
      std::shared_ptr<const DataWriterContext> context, std::string location);

  /// The Parquet file being written (Write, Length, FlushRowGroup, ...).
  ParquetFileWriter& file() { return *file_; }
  const ParquetFileWriter& file() const { return *file_; }
  const std::string& location() const { return file_->location(); }

  /// Writes the footer and returns the file as a DataFile (ToDataFile).
  arrow::Result<DataFile> Close();

 private:
  ParquetDataWriter() = default;
  std::shared_ptr<const DataWriterContext> context_;
  std::unique_ptr<ParquetFileWriter> file_;
};

}  // namespace floe::iceberg
