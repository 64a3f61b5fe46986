// Writing a Delta table by path: create (version 0: protocol and metaData), and append,
// overwrite, delete or compact through floe's write task (data files, add actions with
// statistics),
// committed by the filesystem committer (the next version's `_delta_log/<v>.json` created
// only if absent: a temporary file renamed without replacing). A loser of the race
// re-reads the winners, fails on a real conflict (a protocol or metaData change, or, for
// an overwrite, files added or removed), and otherwise retries at the next version; data
// files are never rewritten on retry.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "arrow/record_batch.h"
#include "floe/delta/committer.h"
#include "floe/delta/log.h"
#include "floe/io/file_io.h"
#include "floe/task/write_driver.h"
#include "floe/util/env.h"

namespace floe::delta {

struct CreateTableOptions {
  std::vector<std::string> partition_columns;
  /// metaData.configuration; `delta.feature.<name>=supported` requests go to the
  /// protocol, and `delta.enableInCommitTimestamps=true` adds the inCommitTimestamp
  /// writer feature.
  std::map<std::string, std::string> properties;
  /// Commits version 0; a FilesystemCommitter over the FileIO when unset (a
  /// catalog-managed table needs a catalog committer).
  std::shared_ptr<Committer> committer;
  /// A catalog-managed table: features catalogManaged and vacuumProtocolCheck (reader
  /// and writer) and inCommitTimestamp, delta.enableInCommitTimestamps=true. Also implied
  /// by the request delta.feature.catalogManaged=supported.
  bool catalog_managed = false;
  /// metaData.id; a random UUID when empty.
  std::string table_id;
  std::string name;
  std::string description;
  Env* env = Env::Default();
};

/// Creates the Delta table at `table_root` (version 0), refusing a location that already
/// holds a Delta log (AlreadyExists) or a schema Delta cannot hold. Returns the version.
arrow::Result<int64_t> CreateTable(const std::shared_ptr<FileIO>& io,
                                   const std::string& table_root,
                                   const arrow::Schema& schema,
                                   const CreateTableOptions& options = {});

/// kAppend adds rows. kOverwrite replaces every row, or with a predicate only the rows it
/// selects (delta-spark's replaceWhere). kDelete removes the rows a predicate selects
/// (copy-on-write: the files holding them are removed and their other rows written
/// anew). kCompact rewrites small files into bigger ones, rows unchanged (Compact).
enum class DeltaWriteMode { kAppend, kOverwrite, kDelete, kCompact };

/// The most write tasks one write runs (as the floe command and the Python package cap
/// an Iceberg write's).
inline constexpr int kMaxWriteThreads = kMaxWriteTasks;

struct DeltaWriteOptions {
  DeltaWriteMode mode = DeltaWriteMode::kAppend;
  /// The rows an overwrite replaces or a delete removes, in the `--where` syntax
  /// (expr/parser.h): those for which it is true. An overwrite's every input row must
  /// match it (as delta-spark's replaceWhere checks), or nothing is committed. Required
  /// for kDelete; refused for kAppend; for kCompact, the partitions compacted (partition
  /// columns only). Unset, an overwrite replaces every row; set but blank (an unset
  /// shell variable, "" or spaces) it is refused, never read as "every row".
  std::optional<std::string> predicate;
  /// Attempts at the commit (a lost race retries at the next version; a transient I/O
  /// error at the same one). delta-spark's delta.maxCommitAttempts: a blind append that
  /// keeps losing is still making room for others, never conflicting.
  int max_attempts = 10'000'000;
  int64_t target_file_size = int64_t{128} << 20;
  /// Parallel write tasks (threads), 1 to kMaxWriteThreads; 0 (the default): one per core
  /// (DefaultWriteTasks), the tasks after the first joining in as the input grows past
  /// kDefaultTaskRows rows a task, so that a small input is one task's files. With more
  /// than one, each partition's rows go to one task, as Spark's hash distribution sends
  /// them.
  int threads = 0;
  /// Bytes the write tasks' Parquet writers may hold together (0: no limit). Each task's
  /// open files write out their row groups early to stay within its share of half of it;
  /// past the limit the write fails, saying so, with nothing committed.
  int64_t memory_limit = 0;
  /// An idempotent write (Delta's txn action): when the table's txn for `app_id` is at
  /// `app_version` or later, nothing is written (DeltaWriteResult::skipped); otherwise
  /// `txn{app_id, app_version}` is committed with the files. A concurrent writer that
  /// commits this app_id at this version or later fails the write.
  std::string app_id;
  std::optional<int64_t> app_version;
  /// kCompact: files smaller than this are compacted (delta-spark's
  /// spark.databricks.delta.optimize.minFileSize); target_file_size is its maxFileSize.
  int64_t min_file_size = int64_t{1} << 30;
  /// Commits the version; a FilesystemCommitter over the FileIO when unset.
  std::shared_ptr<Committer> committer;
  /// When no Delta table is at the root: an append or overwrite creates it, with the
  /// input's columns and these options, in the same version 0 as its rows (as delta-rs's
  /// write_deltalake does; a catalog-managed table is refused: it is created through its
  /// catalog). A table that is there is written as it is, unless these partition columns
  /// are given and are not its own (InvalidInput). A concurrent creator of the table
  /// fails the write (AlreadyExists), nothing committed.
  std::optional<CreateTableOptions> create_if_missing;
  /// Write a checkpoint after committing a version that is a multiple of
  /// delta.checkpointInterval (10 when unset). A failed checkpoint is logged, never an
  /// error: the commit stands.
  bool write_checkpoints = true;
  Env* env = Env::Default();
};

struct DeltaWriteResult {
  int64_t version = -1;
  int attempts = 0;
  int64_t files_added = 0;
  int64_t files_removed = 0;
  int64_t rows = 0;  ///< Rows of the input written.
  int64_t bytes = 0;
  /// A predicate's rows deleted, and the other rows of their files written anew.
  int64_t rows_deleted = 0;
  int64_t rows_copied = 0;
  /// Nothing was committed: the table's txn for the app_id was at app_version or later,
  /// or a delete's predicate matched no row.
  bool skipped = false;
  /// The checkpoint written after the commit (-1: none).
  int64_t checkpoint_version = -1;
};

/// Compaction as delta-spark's OPTIMIZE (without ZORDER BY) does it, by bin-packing.
struct DeltaCompactOptions {
  /// Only the partitions this filter (the `--where` syntax, naming partition columns
  /// only, as OPTIMIZE ... WHERE) selects; every partition when empty.
  std::string predicate;
  /// Files smaller than this are compacted (optimize.minFileSize, 1 GiB).
  int64_t min_file_size = int64_t{1} << 30;
  /// A bin's most input bytes, and its output file's target size (optimize.maxFileSize,
  /// 1 GiB).
  int64_t max_file_size = int64_t{1} << 30;
  /// Bins written at once (each bin by one write task, into one file); 0 (the default):
  /// one per core.
  int threads = 0;
  int64_t memory_limit = 0;  ///< As DeltaWriteOptions::memory_limit.
  int max_attempts = 10'000'000;
  std::shared_ptr<Committer> committer;
  bool write_checkpoints = true;
  Env* env = Env::Default();
};

/// Compacts the small files of each partition: they are sorted by size and packed into
/// bins of at most max_file_size bytes; every bin of two or more files is rewritten into
/// one file. One version commits every bin, its adds and removes with dataChange false,
/// as operation OPTIMIZE at SnapshotIsolation: concurrent appends never conflict with
/// it, but a concurrent remove of a file it compacts fails it (nothing committed, its
/// new files deleted). When no bin needs rewriting nothing is committed
/// (DeltaWriteResult::skipped). files_added/removed, rows and bytes describe the
/// rewrite.
arrow::Result<DeltaWriteResult> Compact(const std::shared_ptr<FileIO>& io,
                                        const std::string& table_root,
                                        const DeltaCompactOptions& options = {});

/// OK when floe writes `snapshot`'s table exactly as Delta writers do; NotSupported (a
/// decline, with every reason: feature and property names, never values) otherwise.
arrow::Status CheckWritable(const Snapshot& snapshot, DeltaWriteMode mode);

/// Writes `input` (columns by name, the table's types or ones that cast to them without
/// loss) into the table and commits one version. Before any file is written the table is
/// checked (CheckWritable); a failed write or commit leaves no file it wrote, except
/// after an unknown commit outcome (CommitStateUnknown), when the files stay for the
/// version that may hold them.
arrow::Result<DeltaWriteResult> Write(const std::shared_ptr<FileIO>& io,
                                      const std::string& table_root,
                                      arrow::RecordBatchReader& input,
                                      const DeltaWriteOptions& options = {});

}  // namespace floe::delta
