// Reading one Parquet file, format-neutral: opened with its page checksums verified and
// its reads counted; the leaves a projection needs found by field id or by name at every
// depth; row-group statistics decoded from Parquet's physical form; the selected row
// groups read one at a time; columns reshaped to the projection's nested types. A table
// format decides what to read and what the values mean (scan/data_file_reader.h for
// Iceberg's: field ids, name mapping, partition constants, deletes, filters).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "arrow/record_batch.h"
#include "floe/io/file_io.h"
#include "parquet/arrow/schema.h"
#include "parquet/types.h"

namespace parquet {
class ColumnChunkMetaData;
class ColumnDescriptor;
class FileMetaData;
class RowGroupMetaData;
namespace arrow {
class FileReader;
}
}  // namespace parquet

namespace floe {

/// How a file's columns are matched to the fields asked for, at every depth.
enum class ParquetColumnMatch {
  kFieldId,  ///< By "PARQUET:field_id" (a field without one matches nothing).
  kName,     ///< By field name, exactly.
};

struct ParquetReadOptions {
  /// Decode the selected columns in parallel on Arrow's CPU thread pool, and pre-buffer
  /// each row group's column chunks in coalesced requests.
  bool use_threads = false;
  /// Fail the read on a page whose CRC-32 does not match its bytes.
  bool verify_page_checksums = true;
  int64_t batch_size = 65536;
  /// Called with the size of every read request's answer (optional). Called from the
  /// reading threads: it must be thread-safe when use_threads is set or it is shared.
  std::function<void(int64_t bytes)> on_read;
  /// The file's size as its table's metadata records it, when known: opened with
  /// FileIO::OpenInputOfSize, so object storage is not asked for it.
  std::optional<int64_t> file_size;
};

/// One leaf's statistics in one row group, decoded from Parquet's physical form. Byte
/// arrays and fixed-length byte arrays are bytes in a string. What the values mean (a
/// date, a decimal, a timestamp's unit) is the column's logical type's to say.
struct ParquetLeafStats {
  using Bound = std::variant<bool, int32_t, int64_t, float, double, std::string>;
  std::optional<int64_t> null_count;
  int64_t value_count = 0;  ///< Non-null values.
  /// Both or neither; as the writer wrote them (a float bound may be NaN).
  std::optional<Bound> min;
  std::optional<Bound> max;
  parquet::Type::type physical_type = parquet::Type::UNDEFINED;
  std::shared_ptr<const parquet::LogicalType> logical_type;
  int type_length = -1;  ///< Of a fixed-length byte array.
};

/// The statistics a row group's footer holds for one leaf, or nullopt when it holds none.
/// Reads the footer through Parquet's accessors, which throw on a corrupt footer.
std::optional<ParquetLeafStats> DecodeLeafStats(const parquet::ColumnChunkMetaData& chunk,
                                                const parquet::ColumnDescriptor& column);

/// A row group's first byte, as parquet-mr's getStartingPos gives it: its first column's
/// dictionary page when it has one, else that column's first data page. 0 for a row
/// group without columns. Iceberg's split offsets are these, and a reader's range takes
/// the row groups whose start plus half their compressed bytes lies in it.
int64_t RowGroupStart(const parquet::RowGroupMetaData& row_group);

/// A Parquet file opened for reading. Not thread-safe; the readers it returns must not
/// outlive it.
class ParquetFileReader {
 public:
  /// Opens the file at `location` and reads its footer. Errors name the file.
  static arrow::Result<std::unique_ptr<ParquetFileReader>> Open(
      FileIO& io, const std::string& location, const ParquetReadOptions& options);
  ~ParquetFileReader();

  const std::string& location() const { return location_; }
  const parquet::FileMetaData& metadata() const;
  /// The file's top-level columns as Arrow fields, with their Parquet leaves below (each
  /// leaf's column_index); fields carry the file's field ids, or what Annotate gave them.
  const std::vector<parquet::arrow::SchemaField>& fields() const { return fields_; }
  /// Whether any field at any depth has a field id.
  bool HasFieldIds() const;
  /// Replaces each top-level field by `annotate(field)`, a field of the same shape with
  /// other metadata (e.g. field ids a name mapping gives), at every depth, for matching.
  /// The batches read keep the file's own fields.
  void Annotate(const std::function<std::shared_ptr<arrow::Field>(
                    const std::shared_ptr<arrow::Field>&)>& annotate);

  /// Reads `leaves` of `row_groups` (in that order), one row group at a time so that
  /// memory stays that of one group. Batches hold the file's top-level columns that own
  /// a selected leaf, in file order. A page whose checksum does not match fails the read
  /// naming the column and the row group. Both lists must be non-empty (Invalid
  /// otherwise): a caller with nothing to read has no batches to ask for.
  arrow::Result<std::unique_ptr<arrow::RecordBatchReader>> ReadRowGroups(
      std::vector<int> row_groups, std::vector<int> leaves);

 private:
  ParquetFileReader() = default;
  std::string location_;
  std::unique_ptr<parquet::arrow::FileReader> reader_;
  std::vector<parquet::arrow::SchemaField> fields_;
};

/// Whether a file's field answers to the one asked for.
bool MatchesField(const arrow::Field& file_field, const arrow::Field& wanted,
                  ParquetColumnMatch match);

/// Appends the leaves of `file_field` that `wanted` (the same field as asked for) needs:
/// only the paths to the children it keeps, at every depth; a map's keys always whole. A
/// struct none of whose wanted children the file holds still gives one leaf, so that its
/// own nulls are read.
void SelectLeaves(const parquet::arrow::SchemaField& file_field,
                  const arrow::Field& wanted, ParquetColumnMatch match,
                  std::vector<int>* leaves);

/// The leaf column of the primitive field with `field_id`, reached through structs only
/// (never into a list or map), or -1.
int FindLeafColumn(const std::vector<parquet::arrow::SchemaField>& fields, int field_id);
/// The leaf column at `path` (field names from the top level down, through structs only),
/// or -1.
int FindLeafColumn(const std::vector<parquet::arrow::SchemaField>& fields,
                   const std::vector<std::string>& path);

/// `array` (a column as read) reshaped to `target`: nested children matched at every
/// depth, children the file lacks as nulls, large and view lists as lists, primitive
/// values cast safely (a cast that loses data fails). `path` names the column in errors.
/// A nested column stored with another shape is an error naming it.
arrow::Result<std::shared_ptr<arrow::Array>> ProjectColumn(
    const std::shared_ptr<arrow::Array>& array, const arrow::Field& target,
    ParquetColumnMatch match, const std::string& path);

}  // namespace floe
