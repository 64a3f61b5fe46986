// The committer: collects the TaskCommit messages of a write's tasks as they finish and
// commits exactly once, or aborts and deletes every file the tasks wrote.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "floe/iceberg/commit/snapshot_producer.h"
#include "floe/util/mutex.h"

namespace floe::iceberg {

/// Thread-safe: tasks on several threads may hand in messages at once.
/// True when `name` (a file name, no folder) is one a task of the write with
/// `operation_id` gives its data files.
bool IsTaskFileOf(std::string_view name, std::string_view operation_id);

class Committer {
 public:
  /// A committer for `producer` (a FastAppend, an OverwriteFiles set up as the operation
  /// needs), which commits to the table its target names, whose state at plan time was
  /// `base`; the data files of the tasks' messages are added to it. Only files under
  /// `data_location` (the write's data location) are accepted from tasks and ever
  /// deleted: a corrupt or hostile message cannot make the committer delete anything
  /// else.
  Committer(std::unique_ptr<SnapshotProducer> producer, TableState base,
            std::string data_location);
  ~Committer();

  /// Takes ownership of a task's files: first the locations (so they can be deleted
  /// whatever happens next), then the manifest's data files. A corrupt message, or one
  /// naming a file outside the data location, gives InvalidMetadata; a message with a
  /// data file already added gives InvalidInput. The locations of the message that are
  /// under the data location stay owned.
  arrow::Status Add(std::string_view message);

  /// Commits the producer's snapshot with every file added. On a cleanable failure the
  /// data files of every message are deleted (but see DeleteUnreportedFiles); after
  /// CommitStateUnknown nothing is.
  arrow::Result<CommitReport> Commit();

  /// Deletes the files of every message received (the job failed; but see
  /// DeleteUnreportedFiles); commits nothing.
  /// Returns the number of files that could not be deleted (logged, never an error).
  int Abort();

  /// What a table's metadata references after a commit (canonical locations), as
  /// table/file_ownership's ReadReferencedFiles reads it.
  using ReferencedLocations =
      std::function<arrow::Result<std::set<std::string>>(const TableState&)>;

  /// Tells the committer the write's operation id (WritePlan::operation_id), so that it
  /// also deletes the files of task attempts whose messages never arrived (a worker
  /// killed mid-write, a lost speculative attempt, a retried task's first attempt):
  /// every regular file below the data location named as this write's tasks name
  /// theirs, "<partition>-<attempt>-<operation id>-<count>.parquet". Only this write's
  /// tasks give such names: the operation id is a random UUID drawn at plan time.
  ///
  /// One plan may serve several committers (a streaming query's epochs, a caller who
  /// commits in parts, a failed job's abort in another process after a commit whose
  /// outcome was unknown), so nothing the table references is ever deleted:
  ///  - Abort and a commit that failed cleanably first load the table's current state
  ///    and read what it references (`referenced`); those files stay, reported or not,
  ///    and the rest of the write's files go. When that cannot be read, nothing is
  ///    deleted (logged).
  ///  - A successful commit deletes the unreported files it did not commit and that the
  ///    table's metadata after the commit does not reference (`referenced` is asked
  ///    only when there is such a file; when it fails nothing is deleted).
  void DeleteUnreportedFiles(std::string operation_id, ReferencedLocations referenced);

  /// From now on Commit fails (InvalidInput) and only Abort is possible: a failed job's
  /// committer, made in a process other than the commit's.
  void AbortOnly();

  /// A summary property of the commit (SnapshotProducer::SetSummaryProperty).
  arrow::Status SetSummaryProperty(const std::string& key, const std::string& value);

  /// After a successful Commit: how many unreported task files it deleted.
  int64_t unreported_deleted() const;

  int64_t files() const;
  int64_t records() const;

 private:
  arrow::Status OutsideDataLocation(const std::string& location) const;
  /// The unreported task files of the write (see DeleteUnreportedFiles) below the data
  /// location, except those in `keep` (canonical locations). The mutex is held.
  std::vector<std::string> ListUnreported(const std::set<std::string>& keep) const
      FLOE_REQUIRES(mutex_);
  /// Deletes `files` (from ListUnreported); returns the number that could not be
  /// deleted.
  int DeleteUnreported(const std::vector<std::string>& files, const char* why);
  /// Before a failure path deletes anything: with `referenced` set, loads the table's
  /// current state and fills `committed` with what it references; false (logged, with
  /// `what`) when that cannot be read, and then nothing may be deleted. True with
  /// nothing filled for a committer without `referenced`. The mutex is held.
  bool CommittedElsewhere(const char* what, std::set<std::string>* committed)
      FLOE_REQUIRES(mutex_);
  /// After a successful commit that left `state`.
  void DeleteUncommittedTaskFiles(const TableState& state) FLOE_REQUIRES(mutex_);

  std::unique_ptr<SnapshotProducer> producer_;  ///< Its target is the committer's.
  TableState base_;
  std::string data_location_;
  mutable Mutex mutex_;
  std::vector<std::string> owned_locations_ FLOE_GUARDED_BY(mutex_);
  std::vector<DataFile> data_files_ FLOE_GUARDED_BY(mutex_);
  std::set<std::string> added_paths_ FLOE_GUARDED_BY(mutex_);  ///< data_files_' paths.
  std::string operation_id_ FLOE_GUARDED_BY(mutex_);
  ReferencedLocations referenced_ FLOE_GUARDED_BY(mutex_);
  int64_t unreported_deleted_ FLOE_GUARDED_BY(mutex_) = 0;
  bool abort_only_ FLOE_GUARDED_BY(mutex_) = false;
  bool done_ FLOE_GUARDED_BY(mutex_) = false;
};

}  // namespace floe::iceberg
