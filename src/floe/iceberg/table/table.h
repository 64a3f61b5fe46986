// Table: the public face that ties the catalog, the gate, write tasks, the committer and
// scans together.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "arrow/record_batch.h"
#include "floe/iceberg/catalog/catalog.h"
#include "floe/iceberg/commit/committer.h"
#include "floe/iceberg/commit/overwrite_files.h"
#include "floe/iceberg/commit/snapshot_producer.h"
#include "floe/iceberg/gate/gate.h"
#include "floe/iceberg/scan/table_scan.h"
#include "floe/iceberg/table/write_job.h"
#include "floe/iceberg/write/write_plan.h"

namespace floe::iceberg {

/// What a new table looks like. The spec and sort order refer to `schema`'s field ids;
/// ids are reassigned as for any new table.
struct CreateTableOptions {
  SchemaPtr schema;
  PartitionSpecPtr spec;    ///< Unpartitioned when null.
  SortOrderPtr sort_order;  ///< Unsorted when null.
  PropertyMap properties;   ///< "format-version" selects 1, 2 (default) or 3.
  std::string location;     ///< The catalog's default location when empty.
};

/// Progress of a running append (see WriteProgress).
using AppendProgress = WriteProgress;

struct AppendOptions {
  /// Per-write options overlaid on the table's properties (as iceberg-java's write
  /// options).
  PropertyMap options;
  /// Write tasks run in parallel, each on its own thread; 0 (the default): one per core
  /// (DefaultWriteTasks), the tasks after the first joining in as the input grows past
  /// kDefaultTaskRows rows a task, so that a small input is one task's files.
  int threads = 0;
  /// The input arrives grouped by partition (then the clustered writer may be used).
  bool input_clustered = false;
  /// Bytes the write tasks may allocate together (0: no limit). Past it a task fails with
  /// an error saying so; half of it is the tasks' budget for buffered row groups.
  int64_t memory_limit = 0;
  /// Dynamic overwrite: the partitions the new rows fall in are replaced (iceberg-java's
  /// ReplacePartitions), validated under the `isolation-level` option (serializable by
  /// default: a concurrent commit adding files to those partitions fails the overwrite).
  bool replace_partitions = false;
  std::function<void(const AppendProgress&)> progress;
};

/// What a row-level delete or an overwrite by filter did.
struct RowLevelResult {
  /// Nothing matched: no snapshot was committed.
  bool committed = false;
  CommitReport commit;
  int64_t files_removed = 0;    ///< Data files removed (wholly matching or rewritten).
  int64_t files_rewritten = 0;  ///< Of those, files whose other rows were written anew.
  int64_t rows_removed = 0;
  /// Rows an update changed, or table rows an upsert replaced (all in rows_written).
  int64_t rows_updated = 0;
  int64_t rows_inserted = 0;  ///< Input rows of an upsert that replaced no row.
  int64_t rows_written =
      0;  ///< Rows kept from rewritten files, or the overwrite's input.
  int64_t data_files_written = 0;
  /// Deletion vectors (v3) or position delete files (v2) of a merge-on-read operation.
  int64_t delete_files_written = 0;
  /// Delete files removed: by RemoveDanglingDeletes, or the deletion vectors of the files
  /// a Rewrite replaced (as Spark's rewrite_data_files counts them).
  int64_t delete_files_removed = 0;
};

/// How Table::RewritePositionDeletes picks the files it rewrites (the options of Spark's
/// rewrite_position_delete_files).
struct RewriteDeletesOptions {
  /// A partition's small files are rewritten once there are this many (min-input-files).
  int min_input_files = 5;
  /// Every file of the partitions selected, whatever its size (rewrite-all).
  bool rewrite_all = false;
  /// Properties overlaid on the table's: write.delete.target-file-size-bytes and the
  /// Parquet settings of the new files (write.delete.parquet.*).
  PropertyMap options;
};

/// Which rows an upsert (Table::Upsert) writes.
struct UpsertOptions {
  /// The key columns; the schema's identifier fields when empty.
  std::vector<std::string> keys;
  /// Replace each table row whose key an input row has (pyiceberg's
  /// when_matched_update_all; SQL's WHEN MATCHED THEN UPDATE SET *).
  bool update_matched = true;
  /// Insert the input rows whose key no table row has (when_not_matched_insert_all; WHEN
  /// NOT MATCHED THEN INSERT *).
  bool insert_unmatched = true;
};

struct AppendResult {
  /// False when nothing was committed: a dynamic overwrite of no rows replaces nothing,
  /// and like iceberg-java's Spark writer it commits no snapshot. (An append of no rows
  /// does commit one, as Spark's writer and pyiceberg do.)
  bool committed = true;
  CommitReport commit;
  int64_t rows = 0;
  int64_t data_files = 0;
};

/// What a split write's committer commits (Table::NewCommitter).
enum class WriteOperation {
  /// A merge append: iceberg-java's newAppend, as its Spark writer commits an append.
  kAppend,
  /// The partitions the new rows fall in are replaced (iceberg-java's
  /// ReplacePartitions), validated under the write's `isolation-level` option
  /// (serializable by default).
  kDynamicOverwrite,
  /// The rows matching the plan's row_filter are replaced (iceberg-java's
  /// overwriteByRowFilter): every data file holding a matching row must match wholly
  /// (ValidationFailed naming the file otherwise), validated under `isolation-level`.
  kOverwriteByFilter,
  /// A committer that only aborts (Commit fails, nothing is checked when it is made):
  /// for a job that failed, whatever its plan's operation.
  kAbortOnly,
};

/// InvalidInput naming the first row of `batch` (counted from `*row_offset`, 1-based)
/// that `bound` (a filter bound to the batch's table schema) does not select; advances
/// `*row_offset` past the batch. Every new row of an overwrite by filter must match the
/// filter it replaces, as iceberg-java validates added files.
arrow::Status CheckRowsMatchFilter(const Expression& bound,
                                   const arrow::RecordBatch& batch, int64_t* row_offset);

/// A loaded table. Not thread-safe; load one per thread.
class Table {
 public:
  static arrow::Result<std::shared_ptr<Table>> Load(std::shared_ptr<Catalog> catalog,
                                                    const TableIdentifier& id);
  static arrow::Result<std::shared_ptr<Table>> Create(std::shared_ptr<Catalog> catalog,
                                                      const TableIdentifier& id,
                                                      const CreateTableOptions& options);

  const TableIdentifier& id() const { return id_; }
  const TableState& state() const { return state_; }
  const TableMetadataPtr& metadata() const { return state_.metadata; }
  /// The FileIO of the table's files (the catalog's unless it vends one for this table;
  /// see Catalog::TableIO).
  const std::shared_ptr<FileIO>& io() const { return io_; }
  const std::shared_ptr<Catalog>& catalog() const { return catalog_; }
  /// Where and how the table's commits go: its catalog, name, FileIO and the catalog's
  /// Env.
  CommitTarget commit_target() const { return {catalog_, id_, io_, catalog_->env()}; }
  /// Reloads the current metadata from the catalog.
  arrow::Status Refresh();

  /// The gate's answer for a write with `options` overlaid on the table's properties.
  GateResult ExplainWrite(const PropertyMap& options) const;

  /// The split write's first step (table/write_job.h): checks that the catalog takes
  /// commits and runs the gate (a decline is NotSupported carrying the gate's reasons,
  /// see DeclineReasons), then makes the plan for `options` overlaid on the table's
  /// properties. With a `row_filter` (an overwrite by filter) the filter must bind and
  /// every file holding a matching row must match wholly (ValidationFailed otherwise).
  /// Nothing is written.
  arrow::Result<std::shared_ptr<const WritePlan>> PlanWrite(
      const PropertyMap& options, WritePlanOptions plan_options) const;

  /// The split write's last step: the one committer of `operation` for the messages of
  /// the tasks of `plan` (made by PlanWrite on this table, perhaps in another process),
  /// committing against the table's state as this object holds it (refresh-and-retry at
  /// commit as always) and validating an overwrite against the commits since the
  /// snapshot the plan was made on. Task files whose messages never arrived are deleted
  /// at abort and after the commit (Committer::DeleteUnreportedFiles). A plan for
  /// another table's location is refused (InvalidInput).
  arrow::Result<std::unique_ptr<Committer>> NewCommitter(const WritePlan& plan,
                                                         WriteOperation operation) const;

  /// Appends every batch of `input` (streamed, never loaded whole) as one snapshot: the
  /// gate runs first and a decline fails before any file exists; input columns are
  /// matched by name and cast safely; tasks write data files; one commit swaps the
  /// table's pointer, retrying lost races. On failure every file written is deleted
  /// (except after CommitStateUnknown) and the table is unchanged.
  arrow::Result<AppendResult> Append(arrow::RecordBatchReader& input,
                                     const AppendOptions& options);

  /// Deletes the rows matching `filter` (the `--where` syntax). By copy-on-write (the
  /// default): data files whose rows all match are removed, files with some matching
  /// rows are rewritten without them, files without a match are untouched. Under
  /// write.delete.mode=merge-on-read (table property or option; format v2 and later):
  /// delete files instead (DeleteByPositions). Commits
  /// one snapshot validated against commits since the snapshot read, under
  /// write.delete.isolation-level (serializable: a concurrent commit adding rows that
  /// might match fails it; snapshot: only concurrent deletes do).
  arrow::Result<RowLevelResult> Delete(const std::string& filter,
                                       const AppendOptions& options);

  /// Sets columns of the rows matching `filter` (the `--where` syntax), as Spark's UPDATE
  /// does. `set` is "col = value[, col = value...]" over top-level primitive columns, a
  /// value being a literal converted to its column's type as a filter's literal is (NULL
  /// for optional columns) or arithmetic of the row's numeric columns
  /// (iceberg/table/assignments_internal.h, ParseAssignments); a wrong type, an unknown
  /// or repeated column gives InvalidInput before anything is read, an overflow in a row
  /// it updates InvalidInput with nothing committed or left behind. By copy-on-write
  /// (write.update.mode, the default) every data file holding a matching row is rewritten
  /// whole, the matching rows with `set` applied; by merge-on-read the matching rows'
  /// positions go into delete files (as Delete's, DeleteByPositions) and only the updated
  /// rows are written anew. On format v3 an updated row keeps its _row_id and takes the
  /// new snapshot's sequence number. Validated under write.update.isolation-level, like
  /// Delete. No match commits nothing.
  arrow::Result<RowLevelResult> Update(const std::string& filter, const std::string& set,
                                       const AppendOptions& options);

  /// Upserts `input` (loaded whole; columns matched by name and cast as an append's) by
  /// the key columns `upsert.keys` (the schema's identifier fields when empty): each
  /// table row whose key an input row has is replaced by that row, and the input rows
  /// whose key no table row has are inserted, as Spark's `MERGE INTO t USING input ON
  /// <keys equal> WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *` does (an
  /// unchanged row is replaced too; a key with a NULL part matches nothing). Keys are
  /// top-level primitive columns, not floating-point; two input rows with one key give
  /// InvalidInput naming it, before anything is read. By copy-on-write
  /// (write.merge.mode, the default) the files holding replaced rows are rewritten; by
  /// merge-on-read the replaced rows' positions go into delete files. On format v3 a
  /// replaced row's successor keeps its _row_id and takes the new sequence number.
  /// Validated under write.merge.isolation-level against commits touching the keys'
  /// range. `upsert` can leave out the replacing or the inserting (not both:
  /// InvalidInput), as pyiceberg's when_matched_update_all and
  /// when_not_matched_insert_all do. Nothing to write (an empty input, or nothing matched
  /// and inserting left out) commits nothing.
  arrow::Result<RowLevelResult> Upsert(arrow::RecordBatchReader& input,
                                       const UpsertOptions& upsert,
                                       const AppendOptions& options);

  /// Replaces the rows matching `filter` with `input` (iceberg-java's
  /// overwriteByRowFilter): every data file holding a matching row must match wholly
  /// (else ValidationFailed naming the file, before anything is written) and every input
  /// row must match the filter. Validated like Delete under the `isolation-level` option.
  arrow::Result<RowLevelResult> Overwrite(arrow::RecordBatchReader& input,
                                          const std::string& filter,
                                          const AppendOptions& options);

  /// Compacts small (or oversized) data files as Spark's rewrite_data_files does by
  /// default (bin-pack): in each partition of the files matching `filter` (all when
  /// empty), the files under 75% or over 180% of write.target-file-size-bytes are
  /// rewritten together when there are at least `min_input_files` of them or they hold
  /// more than the target. Commits one "replace" snapshot that fails only if a concurrent
  /// commit removed one of the files (iceberg-java's RewriteFiles validation); rows are
  /// never changed. The files are read partition by partition into one clustered write
  /// task, so each partition gets one file (more past the target size); `options.threads`
  /// is not used. Nothing to rewrite commits nothing.
  arrow::Result<RowLevelResult> Rewrite(const std::string& filter, int min_input_files,
                                        const AppendOptions& options);
  /// Removes the delete files that can delete nothing any more, as Spark's
  /// rewrite_data_files does after a rewrite with remove-dangling-deletes
  /// (RemoveDanglingDeletesSparkAction):
  /// a delete file in a partition (spec and tuple) without live data files, a position
  /// delete file whose data sequence number is below that of every live data file of its
  /// partition, an equality delete file whose number is not above it, and a deletion
  /// vector whose data file is no longer live. One "replace" snapshot, which fails if a
  /// concurrent commit removed one of them; none (format v1, a table only ever
  /// unpartitioned, where every commit already drops such files) commits nothing.
  /// `delete_files_removed` counts them.
  arrow::Result<RowLevelResult> RemoveDanglingDeletes();
  /// Rewrites position delete files as Spark's rewrite_position_delete_files does
  /// (RewritePositionDeleteFilesSparkAction, bin-pack): the live position delete files
  /// (and, on format v3, deletion vectors) in the partitions `filter` might select are
  /// grouped by partition; in each, the files under 75% or over 180% of
  /// write.delete.target-file-size-bytes are rewritten together when there are at least
  /// `min_input_files` of them, they hold more than the target, or (`rewrite_all`)
  /// always. A group's positions whose data file is no longer live in the partition are
  /// dropped; the rest are written one delete file per data file: a Parquet position
  /// delete file on v2, a deletion vector on v3 (where the action does anything only
  /// while some position delete file is not yet a vector). The new files take the
  /// newest data sequence number of the files they replace. One "replace" snapshot, which
  /// fails if a concurrent commit removed one of the files it replaces; nothing to
  /// rewrite commits nothing. `delete_files_removed` and `delete_files_written` count the
  /// files.
  arrow::Result<RowLevelResult> RewritePositionDeletes(
      const std::string& filter, const RewriteDeletesOptions& options);
  arrow::Result<std::unique_ptr<TableScan>> NewScan(ScanOptions options) const;

  /// A table whose files `io` reads and writes; Load and Create ask the catalog for it.
  Table(std::shared_ptr<Catalog> catalog, TableIdentifier id, TableState state,
        std::shared_ptr<FileIO> io);

 private:
  using RowCheck = std::function<arrow::Status(const arrow::RecordBatch&)>;
  arrow::Status CheckGate(const PropertyMap& options) const;
  /// The snapshot producer a write of `operation` commits with, `options` being the
  /// write's options (their isolation-level), validated against the commits since
  /// `read_snapshot_id` (the snapshot the write was planned on); `row_filter` is the
  /// plan's (an overwrite by filter's, whose matching files it deletes).
  arrow::Result<std::unique_ptr<SnapshotProducer>> NewProducer(
      WriteOperation operation, const PropertyMap& options,
      std::optional<int64_t> read_snapshot_id, const std::string& row_filter) const;
  /// NotSupported naming the table, `what` floe declines to do to it and the gate's
  /// reasons, when `gate` declines; OK otherwise.
  arrow::Status Declined(const GateResult& gate, std::string_view what) const;
  /// Writes `input` with a WriteJob and commits its files with `producer` (an append or
  /// an overwrite). `check_rows` sees every conformed batch before it is written. Without
  /// `commit_if_empty`, a write of no files commits nothing (a dynamic overwrite). With
  /// `row_lineage` (a rewrite of a format-v3 table's rows), `input` carries each row's
  /// `_row_id` and `_last_updated_sequence_number` after the table's columns, and the
  /// files keep them (WritePlanOptions::row_lineage).
  arrow::Result<AppendResult> Write(arrow::RecordBatchReader& input,
                                    const AppendOptions& options,
                                    std::unique_ptr<SnapshotProducer> producer,
                                    bool commit_if_empty, const RowCheck& check_rows,
                                    bool row_lineage = false);
  /// Write (committing even no rows) for a merge-on-read operation whose delete files,
  /// `delete_files`, were written first: when it fails, they are deleted too (not after
  /// CommitStateUnknown).
  arrow::Result<AppendResult> WriteAfterDeletes(
      arrow::RecordBatchReader& input, const AppendOptions& options,
      std::unique_ptr<SnapshotProducer> producer, bool row_lineage,
      const std::vector<std::string>& delete_files);
  /// An overwrite validated as iceberg-java's Spark writes validate theirs: against the
  /// commits since `read_snapshot_id` (the one the operation read; by default the
  /// current snapshot), for conflicts with
  /// the rows `conflict_filter` (bound over the current schema; null: every row) selects;
  /// under serializable isolation new data and new deletes conflict, under snapshot only
  /// new deletes.
  std::unique_ptr<OverwriteFiles> NewOverwrite(IsolationLevel isolation,
                                               ExpressionPtr conflict_filter) const;
  /// Finds the data files holding rows `filter` selects; each must match wholly
  /// (ValidationFailed naming the file otherwise). Unless null, `overwrite` is told to
  /// delete them and checks concurrent commits for rows the filter selects, and `result`
  /// counts them. Returns the bound filter.
  arrow::Result<ExpressionPtr> DeleteFilesMatching(const std::string& filter,
                                                   OverwriteFiles* overwrite,
                                                   RowLevelResult* result) const;
  std::unique_ptr<OverwriteFiles> NewOverwrite(
      IsolationLevel isolation, ExpressionPtr conflict_filter,
      std::optional<int64_t> read_snapshot_id) const;
  /// Delete's merge-on-read path: per data file holding a matching row, one deletion
  /// vector (format v3, all in one Puffin file) or one Parquet position delete file (v2),
  /// merged with what the file's delete files delete (its file-scoped ones removed),
  /// committed as iceberg-java's RowDelta with its validation; or, when every such file
  /// matches whole, the files removed (a metadata delete, as Spark chooses it).
  /// `properties`: the table's, overlaid with the delete's options.
  arrow::Result<RowLevelResult> DeleteByPositions(const std::string& filter,
                                                  IsolationLevel isolation,
                                                  const PropertyMap& properties);
  /// The current snapshot's id (none before the first commit).
  std::optional<int64_t> current_snapshot_id() const;

  std::shared_ptr<Catalog> catalog_;
  TableIdentifier id_;
  TableState state_;
  std::shared_ptr<FileIO> io_;
};

}  // namespace floe::iceberg
