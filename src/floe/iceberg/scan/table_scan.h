// Scans: plan the data files of a snapshot and read them into Arrow with a projection.
#pragma once

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "arrow/record_batch.h"
#include "floe/iceberg/manifest/data_file.h"
#include "floe/iceberg/scan/data_file_reader.h"
#include "floe/iceberg/scan/delete_files.h"
#include "floe/iceberg/spec/table_metadata.h"
#include "floe/io/file_io.h"

namespace floe::iceberg {

struct ScanOptions {
  /// Columns to return, by full dotted name or iceberg-java's short form (items.price for
  /// items.element.price): a nested field returns only that field inside its parents, and
  /// only its Parquet leaves are read. Top-level columns come in the order first named.
  /// Empty returns every column. A name the table schema lacks may be one of
  /// iceberg-java's metadata columns (spec/metadata_columns.h): `_file`, `_pos`,
  /// `_deleted`, `_spec_id`, `_partition`, `_row_id`, `_last_updated_sequence_number`;
  /// see ReadDataFile for their values. Asking for `_deleted` returns the rows delete
  /// files delete too, marked true in it.
  std::vector<std::string> columns;
  /// A row filter in the `--where` syntax (expr/parser.h); empty keeps every row. It
  /// prunes manifests, data files and row groups, and is applied to the rows read.
  std::string filter;
  /// The filter may name the metadata columns `columns` may (a table column of the name
  /// comes first), as Spark's filters on Iceberg's metadata columns: `_file = '...'`,
  /// `_row_id = 42`, `_partition.region = 'eu'`, `_deleted = true` (the deleted rows:
  /// naming `_deleted` keeps them, marked, as asking for the column does). They prune
  /// nothing; they are evaluated on the rows read. Off for the operations that only use
  /// the filter to find files and rows of table columns (delete, overwrite, rewrite).
  bool metadata_column_filters = false;
  /// Read this snapshot instead of the current one.
  std::optional<int64_t> snapshot_id;
  /// Read the snapshot current at this time (milliseconds since the epoch).
  std::optional<int64_t> as_of_ms;
  /// Plan (and read) only these data files of the snapshot, by their paths as the
  /// manifests give them (FileScanTask::file.file_path): how an engine's task reads its
  /// share of a scan planned elsewhere. Empty: every file. A path the snapshot does not
  /// hold is skipped, as a pruned file is.
  std::vector<std::string> files;
  /// Plan (and read) only these byte ranges of data files of the snapshot (a path as
  /// `files` names it, a start and a length): one task per range, reading the row groups
  /// whose midpoint lies in it (ReadDataFile). How an engine's task reads its split of a
  /// large file, as iceberg-java's split FileScanTasks. With `files`, both are planned.
  struct FileSplit {
    std::string path;
    int64_t start = 0;
    int64_t length = 0;
  };
  std::vector<FileSplit> splits;
  /// Decode the columns of each batch in parallel (Arrow's CPU thread pool), as pyarrow
  /// does by default. Rows come in the same order either way.
  bool use_threads = true;
  /// With use_threads, how many files are read at once (each on a thread of its own,
  /// decoding ahead of the caller into a bounded queue); rows still come file after file
  /// in the planned order. 1 reads one file at a time. Unset: 2 on file systems, 8 where
  /// every request waits on a round trip (FileIO::HighLatency: object storage), measured
  /// in bench/results/storage.md.
  std::optional<int> files_ahead;
  /// Check every Parquet page against its CRC-32 (when the file has them, as floe's and
  /// parquet-java's do) and fail the read on a mismatch. Off only to measure its cost:
  /// corrupt bytes then decode into wrong values.
  bool verify_page_checksums = true;
};

/// One data file to read, with the delete files that apply to it.
struct FileScanTask {
  DataFile file;
  PartitionSpecPtr spec;
  std::vector<std::shared_ptr<const DeleteFileEntry>> deletes;
  /// The file's data sequence number (its manifest entry's, inherited).
  int64_t data_sequence_number = 0;
  /// A split of the file (start, length in bytes; ScanOptions::splits), or the whole.
  std::optional<std::pair<int64_t, int64_t>> range;
};

/// How the caller takes the rows of TableScan::ToRecordBatchReader.
enum class RowConsumer {
  /// Batch after batch, letting each go: each file read ahead holds at most 64 MiB of
  /// decoded rows, its thread waiting for the caller beyond that.
  kStreams,
  /// Keeps every batch to the end (a whole table, as Scan.to_arrow makes): the files
  /// read ahead decode to their end without waiting for the caller, since their batches
  /// take no memory the result would not take anyway. Bounded, the next file's thread
  /// soon waits, and the file being returned decodes on little more than one core
  /// (Arrow decodes a batch's columns in parallel, but one long string column keeps one
  /// core busy while the other idles): a 4-file table of 10M rows took a median 1.9 s
  /// where pyiceberg took 1.2 s; unbounded, 1.1 s against 1.0 s (see
  /// bench/results/python.md). Rows come in the same order.
  kKeepsAll,
};

/// Not thread-safe.
class TableScan {
 public:
  /// Resolves the snapshot and the projection: the schema is the one current when the
  /// snapshot was written. An unknown snapshot, time or column gives InvalidInput naming
  /// it.
  static arrow::Result<std::unique_ptr<TableScan>> Make(std::shared_ptr<FileIO> io,
                                                        TableMetadataPtr metadata,
                                                        ScanOptions options);

  /// The snapshot read (null for a table without snapshots).
  const SnapshotPtr& snapshot() const { return snapshot_; }
  /// The schema of the rows returned.
  const SchemaPtr& projection() const { return projection_; }
  /// The bound filter (TRUE when there is none).
  const ExpressionPtr& filter() const { return filter_; }
  const std::shared_ptr<ScanStats>& stats() const { return stats_; }

  /// The live data files of the snapshot that might hold matching rows, in manifest
  /// order: manifests are pruned by their partition summaries, files by their partition
  /// tuple and column metrics. Each carries the delete files that apply to it (position
  /// deletes, equality deletes, deletion vectors; iceberg-java's matching rules).
  arrow::Result<std::vector<FileScanTask>> PlanFiles();
  /// The live position delete files of the snapshot (Parquet files and deletion vectors)
  /// whose partition might hold rows matching the filter, in manifest order: the files
  /// iceberg-java's position_deletes metadata table plans under a base-table filter
  /// (only the filter's partition projection applies; their metrics are not read).
  arrow::Result<std::vector<DeleteFileEntry>> PlanPositionDeleteFiles();
  /// The rows of every planned file, file after file (the next files read ahead, see
  /// ScanOptions::files_ahead and RowConsumer).
  arrow::Result<std::shared_ptr<arrow::RecordBatchReader>> ToRecordBatchReader(
      RowConsumer consumer = RowConsumer::kStreams);

 private:
  TableScan() = default;

  std::shared_ptr<FileIO> io_;
  TableMetadataPtr metadata_;
  SnapshotPtr snapshot_;
  SchemaPtr schema_;       // the snapshot's schema
  SchemaPtr projection_;   // returned
  SchemaPtr read_schema_;  // decoded: the projection plus the filter's columns
  // ScanOptions::splits by path.
  std::map<std::string, std::vector<std::pair<int64_t, int64_t>>> splits_;
  // The partition field id of each field of `_partition`, when it is projected (its
  // fields carry other ids: see PartitionColumn in table_scan.cc).
  std::vector<int> partition_field_ids_;
  /// Metadata columns the filter names and the projection does not: read, not returned.
  std::vector<NestedField> filter_metadata_columns_;
  ExpressionPtr filter_ = AlwaysTrue();
  bool use_threads_ = true;
  std::optional<int> files_ahead_;
  bool verify_page_checksums_ = true;
  std::set<std::string> only_files_;
  std::shared_ptr<ScanStats> stats_ = std::make_shared<ScanStats>();
};

}  // namespace floe::iceberg
