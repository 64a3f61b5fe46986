// The committer: collects the TaskCommit messages of a write's tasks as they finish and
// commits exactly once, or aborts and deletes every file the tasks wrote.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "floe/commit/snapshot_producer.h"

namespace floe {

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
  /// naming a file outside the data location, gives InvalidMetadata; the locations of the
  /// message that are under the data location stay owned.
  arrow::Status Add(std::string_view message);

  /// Commits the producer's snapshot with every file added. On a
  /// cleanable failure the data files of every message are deleted; after
  /// CommitStateUnknown nothing is.
  arrow::Result<CommitReport> Commit();

  /// Deletes the files of every message received (the job failed); commits nothing.
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
  ///  - Abort and a commit that failed cleanably delete all of them.
  ///  - A successful commit deletes those it did not commit and that the table's
  ///    metadata after the commit does not reference (`referenced`, asked only when
  ///    there is such a file; when it fails nothing is deleted). The check keeps a file
  ///    that another committer of the same plan committed.
  void DeleteUnreportedFiles(std::string operation_id, ReferencedLocations referenced);

  /// From now on Commit fails (InvalidInput) and only Abort is possible. Such an Abort
  /// (a failed job's, in a process other than the commit's) first reads what the table
  /// references (DeleteUnreportedFiles' `referenced`) and keeps those files: a commit
  /// whose outcome was unknown may have gone through. If that cannot be read, it deletes
  /// nothing.
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
  std::vector<std::string> ListUnreported(const std::set<std::string>& keep) const;
  /// Deletes `files` (from ListUnreported); returns the number that could not be
  /// deleted.
  int DeleteUnreported(const std::vector<std::string>& files, const char* why);
  /// After a successful commit that left `state`.
  void DeleteUncommittedTaskFiles(const TableState& state);

  std::unique_ptr<SnapshotProducer> producer_;  ///< Its target is the committer's.
  TableState base_;
  std::string data_location_;
  mutable std::mutex mutex_;
  std::vector<std::string> owned_locations_;
  std::vector<DataFile> data_files_;
  std::string operation_id_;
  ReferencedLocations referenced_;
  int64_t unreported_deleted_ = 0;
  bool abort_only_ = false;
  bool done_ = false;
};

}  // namespace floe
