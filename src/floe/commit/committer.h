// The committer: collects the TaskCommit messages of a write's tasks as they finish and
// commits exactly once, or aborts and deletes every file the tasks wrote.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
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

  /// Tells the committer the write's operation id (WritePlan::operation_id), so that
  /// Abort (and a commit that failed cleanably) also deletes the files of task attempts
  /// whose messages never arrived (a worker killed mid-write, a lost speculative
  /// attempt): every regular file below the data location named as this write's tasks
  /// name theirs,
  /// "<partition>-<attempt>-<operation id>-<count>.parquet". Only this write's tasks give
  /// such names: the operation id is a random UUID drawn at plan time.
  void DeleteUnreportedFilesOnAbort(std::string operation_id);

  int64_t files() const;
  int64_t records() const;

 private:
  arrow::Status OutsideDataLocation(const std::string& location) const;
  /// Deletes the unreported task files of the write (see DeleteUnreportedFilesOnAbort);
  /// returns the number that could not be deleted. The mutex is held.
  int DeleteUnreported();

  std::unique_ptr<SnapshotProducer> producer_;  ///< Its target is the committer's.
  TableState base_;
  std::string data_location_;
  mutable std::mutex mutex_;
  std::vector<std::string> owned_locations_;
  std::vector<DataFile> data_files_;
  std::string operation_id_;
  bool done_ = false;
};

}  // namespace floe
