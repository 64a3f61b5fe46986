// One Parquet file, format-neutral: written batch by batch as parquet-java writes it
// (dictionaries chosen from the first page, row groups cut by buffered bytes, no empty
// row group, page indexes and checksums), closed into a description of the file written:
// its footer plus what a footer cannot hold (float NaN counts and NaN-free bounds). A
// table format maps that description to its own file entry (write/data_file_writer.h for
// Iceberg's DataFile and metrics).
#pragma once

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "arrow/memory_pool.h"
#include "arrow/type_fwd.h"
#include "floe/io/file_io.h"
#include "floe/parquet/float_stats.h"
#include "floe/parquet/settings.h"

namespace parquet {
class FileMetaData;
class SchemaDescriptor;
namespace schema {
class GroupNode;
}
namespace arrow {
class FileWriter;
}
}  // namespace parquet

namespace floe {

class TailHoldingStream;

/// What every file of one write shares. Immutable; shared by a task's writers.
struct ParquetWriteContext {
  std::shared_ptr<FileIO> io;
  /// The columns, their fields carrying their ids as "PARQUET:field_id" metadata where
  /// the table format has ids.
  std::shared_ptr<arrow::Schema> arrow_schema;
  ParquetSettings settings;
  arrow::MemoryPool* pool = arrow::default_memory_pool();
  /// HasNanosecondTimestamps(*arrow_schema): such files are Parquet format 2.6.
  bool nanosecond_timestamps = false;
  /// The name of the Parquet schema's root ("table" for iceberg-java's files).
  std::string root_name = "schema";
  /// Column and struct field names made Avro-compatible (MakeCompatibleName), as
  /// iceberg-java names them; list and map structure keeps Arrow's standard names.
  bool avro_compatible_names = false;
  /// Key-value metadata for the footer (e.g. "iceberg.schema").
  std::shared_ptr<const arrow::KeyValueMetadata> footer_metadata;
};

/// Whether `schema` has a nanosecond timestamp column at any depth.
bool HasNanosecondTimestamps(const arrow::Schema& schema);

/// A file written and closed.
struct WrittenParquetFile {
  std::string location;
  int64_t size = 0;  ///< Bytes in storage.
  int64_t rows = 0;
  /// The footer as written (row groups, per-leaf statistics and sizes, field ids).
  std::shared_ptr<parquet::FileMetaData> footer;
  /// What the footer cannot hold, for the float and double leaves under structs only
  /// (keyed as FloatStatsTracker keys them).
  std::map<int, FloatLeafStats> float_stats;
  /// Nulls of each top-level column (a list's or map's own nulls, which no leaf's
  /// statistics give).
  std::vector<int64_t> column_null_counts;
};

/// Not thread-safe. The file at `location` is created by Open; deleting it on failure is
/// the caller's job (the task's cleanup guard knows every location).
class ParquetFileWriter {
 public:
  static arrow::Result<std::unique_ptr<ParquetFileWriter>> Open(
      std::shared_ptr<const ParquetWriteContext> context, std::string location);
  ~ParquetFileWriter();

  /// Appends rows; the batch must have the context's Arrow schema.
  arrow::Status Write(const arrow::RecordBatch& batch);
  /// Bytes written so far plus an estimate of the open row group's buffered bytes (what
  /// iceberg-java's Parquet appender reports as its length).
  int64_t Length() const;
  /// Bytes the open row group may still buffer before it is cut.
  int64_t RowGroupHeadroom() const {
    return context_->settings.row_group_size_bytes - pool_->bytes_allocated();
  }
  /// A generous bound on what writing `rows` adds to Length() for the rows themselves:
  /// 1 MiB, plus the bytes they take in Arrow four times over (encoders, dictionary
  /// entries and buffers that grow by doubling; the lineitem benchmark's worst call added
  /// 2.9 times), plus 32 bytes per value of every leaf column (hash-table slots, levels,
  /// indices).
  arrow::Result<int64_t> GrowthBound(const arrow::RecordBatch& rows) const;
  /// What a dictionary's hash table growing may add on top, whatever the rows: half of
  /// what the file's writer holds already.
  int64_t TableGrowthBound() const { return pool_->bytes_allocated() / 2; }
  int64_t row_count() const { return row_count_; }
  /// Bytes the open row group's rows hold in memory (pages, encoded values, dictionary
  /// entries): what the writer holds beyond what its encoders take when the row group is
  /// still empty. That fixed part (tens of KiB per column) is freed only by closing the
  /// file.
  int64_t BufferedBytes() const {
    return std::max<int64_t>(0, pool_->bytes_allocated() - empty_row_group_bytes_);
  }
  /// Writes out the open row group now (if it has rows), releasing its memory. Used to
  /// keep a fanout task's many open files within its memory budget.
  arrow::Status FlushRowGroup();
  const std::string& location() const { return location_; }

  /// Writes the footer and describes the file written.
  arrow::Result<WrittenParquetFile> Close();
  /// Closes the stream without a valid footer (best effort). The file stays for the owner
  /// to delete.
  void Abort();

 private:
  ParquetFileWriter() = default;
  /// Creates the Parquet writer, choosing the columns written without a dictionary from
  /// `first`, the file's first rows in pieces (none: only the always-plain columns).
  arrow::Status StartWriting(
      const std::vector<std::shared_ptr<arrow::RecordBatch>>& first);
  /// Starts the Parquet writer from the rows waiting for the file's first page, and
  /// writes them.
  arrow::Status WritePending();
  /// Writes rows into the open row group (a new one after a full one).
  arrow::Status WriteRows(const arrow::RecordBatch& batch);

  std::shared_ptr<const ParquetWriteContext> context_;
  std::string location_;
  std::shared_ptr<TailHoldingStream> stream_;
  std::unique_ptr<arrow::ProxyMemoryPool> pool_;
  std::shared_ptr<parquet::SchemaDescriptor> descriptor_;  ///< Of root_.
  /// The file's first rows, until a page's worth is in (copies in pool_).
  std::vector<std::shared_ptr<arrow::RecordBatch>> pending_;
  int64_t pending_rows_ = 0;
  std::shared_ptr<parquet::schema::GroupNode> root_;    ///< With iceberg-java's names.
  std::unique_ptr<parquet::arrow::FileWriter> writer_;  ///< Created by the first Write.
  std::unique_ptr<FloatStatsTracker> floats_;
  std::vector<int64_t> column_nulls_;
  int64_t row_count_ = 0;
  int64_t row_group_rows_ = 0;
  int64_t empty_row_group_bytes_ = 0;  ///< Pool bytes right after a row group started.
  int64_t leaf_columns_ = 0;
  bool row_group_full_ = false;
  bool closed_ = false;
};

}  // namespace floe
