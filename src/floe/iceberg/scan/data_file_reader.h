// Reading one Parquet data file into a projection of the table schema, matching columns
// by field id (never by name or position).
#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "arrow/record_batch.h"
#include "floe/expr/expression.h"
#include "floe/iceberg/manifest/data_file.h"
#include "floe/iceberg/spec/name_mapping.h"
#include "floe/iceberg/spec/partition_spec.h"
#include "floe/io/file_io.h"
#include "floe/types/schema.h"

namespace floe::iceberg {

struct FileDeletes;

/// Counters for what a scan read (shared by the readers of one scan; thread-safe to
/// update).
struct ScanStats {
  std::atomic<int64_t> manifests_total{0};
  std::atomic<int64_t> manifests_skipped{0};  ///< by their partition summaries
  std::atomic<int64_t> files_planned{0};      ///< live data files left after pruning
  std::atomic<int64_t> files_skipped_by_partition{0};
  std::atomic<int64_t> files_skipped_by_metrics{0};
  std::atomic<int64_t> files_read{0};
  std::atomic<int64_t> row_groups_read{0};
  std::atomic<int64_t> row_groups_skipped{0};  ///< by Parquet statistics
  std::atomic<int64_t> bytes_read{0};
  std::atomic<int64_t> requests{0};
  std::atomic<int64_t> rows_read{0};          ///< decoded from the files
  std::atomic<int64_t> rows{0};               ///< returned after the filter
  std::atomic<int64_t> delete_files_read{0};  ///< position, equality and DV files
  std::atomic<int64_t> rows_deleted{0};       ///< dropped by delete files
};

/// What to read from one data file.
struct DataFileReadOptions {
  /// The fields to decode (a pruned table schema, see SelectFields): the output's plus
  /// the filter's. Only their Parquet leaves are read.
  SchemaPtr read_schema;
  /// The fields returned (a subset of read_schema by id).
  SchemaPtr output_schema;
  /// Rows must satisfy this bound, NOT-free filter; null or TRUE keeps every row. It also
  /// prunes row groups by their Parquet statistics.
  ExpressionPtr filter;
  /// The table's schema.name-mapping.default: how to find field ids in files written
  /// without them (by column name). Null when the table has none; such a file is then an
  /// error, never a file of NULLs.
  std::shared_ptr<const NameMapping> name_mapping;
  /// Decode the selected columns of each batch in parallel on Arrow's CPU thread pool.
  bool use_threads = false;
  /// Fail the read on a page whose CRC-32 does not match (see ScanOptions).
  bool verify_page_checksums = true;
  /// When the schemas hold `_partition`: the partition field id each of its fields
  /// stands for, in order (its own field ids are others; see TableScan).
  std::vector<int> partition_field_ids;
};

/// Opens `file` and returns its rows as batches of the output schema, matching columns by
/// field id at every depth (never by name or position). Columns the file lacks read as
/// nulls, or as the file's identity-partition value when the column is an identity
/// partition source of `spec`; promoted types (int to long, float to double, wider
/// decimals) are cast. A file without field ids is read through the name mapping.
/// A file that cannot be read gives an error naming it.
///
/// `deletes` (optional) drops the rows at the listed positions of the file and the rows
/// whose equality-field values an equality delete lists, before the filter; the equality
/// fields must be top-level columns of the read schema.
///
/// The read and output schemas may hold metadata columns (spec/metadata_columns.h), whose
/// values iceberg-java's reader gives: `_file` the file's path as the manifest gives it,
/// `_pos` the row's position in the file (counted before deletes and the filter drop
/// rows, and across pruned row groups), `_spec_id` the file's spec id, `_partition` the
/// file's partition tuple in the table's partition type (a field the file's spec lacks is
/// null; the whole struct is null when the type has no fields), `_deleted` false, or
/// true for a row `deletes` deletes: a read schema with `_deleted` keeps deleted rows,
/// marked, instead of dropping them (the filter still applies). `_row_id` and
/// `_last_updated_sequence_number` are the file's own values where it holds them (a
/// rewrite of rows that kept their lineage wrote them); a null is inherited: the file's
/// first_row_id plus the row's position, and `data_sequence_number`, when the file has a
/// first_row_id, and null otherwise.
///
/// `range` (start, length in bytes) reads only the row groups whose midpoint lies in
/// [start, start + length), as parquet-mr's range filter reads a split of a file (so
/// ranges cut at row-group starts, or anywhere, give each row group to exactly one).
arrow::Result<std::shared_ptr<arrow::RecordBatchReader>> ReadDataFile(
    const std::shared_ptr<FileIO>& io, const DataFile& file,
    const DataFileReadOptions& options, const PartitionSpec& spec,
    std::shared_ptr<ScanStats> stats,
    std::shared_ptr<const FileDeletes> deletes = nullptr,
    std::optional<int64_t> data_sequence_number = std::nullopt,
    std::optional<std::pair<int64_t, int64_t>> range = std::nullopt);

}  // namespace floe::iceberg
