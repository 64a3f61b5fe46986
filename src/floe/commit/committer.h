// The committer: collects the TaskCommit messages of a write's tasks as they finish and
// commits exactly once, or aborts and deletes every file the tasks wrote.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "floe/commit/fast_append.h"
#include "floe/commit/overwrite_files.h"

namespace floe {

/// What an overwrite commits besides the tasks' new files (see OverwriteFiles).
struct OverwriteRequest {
  /// Data files the operation removes (copy-on-write rewrites, static overwrites).
  std::vector<std::string> delete_paths;
  /// Dynamic overwrite: replace the partitions the new files fall in.
  bool replace_partitions = false;
  /// The snapshot the operation read (nullopt: an empty table).
  std::optional<int64_t> read_snapshot_id;
  /// The rows it read (bound, NOT-free, over `schema`); null: every row.
  ExpressionPtr conflict_filter;
  SchemaPtr schema;
  IsolationLevel isolation = IsolationLevel::kSerializable;
  /// A compaction: the new files hold the deleted files' rows ("replace" snapshot).
  bool rewrite = false;
};

/// Thread-safe: tasks on several threads may hand in messages at once.
class Committer {
 public:
  /// A committer appending to the table `target` names, whose state at plan time was
  /// `base`. Only files under `data_location` (the write's data location) are accepted
  /// from tasks and ever deleted: a corrupt or hostile message cannot make the committer
  /// delete anything else.
  Committer(CommitTarget target, TableState base, std::string data_location);
  ~Committer();

  /// Takes ownership of a task's files: first the locations (so they can be deleted
  /// whatever happens next), then the manifest's data files. A corrupt message, or one
  /// naming a file outside the data location, gives InvalidMetadata; the locations of the
  /// message that are under the data location stay owned.
  arrow::Status Add(std::string_view message);

  /// Makes the commit an overwrite instead of an append.
  void SetOverwrite(OverwriteRequest request) { overwrite_ = std::move(request); }

  /// Commits everything added as one snapshot (an append, or the overwrite set). On a
  /// cleanable failure the data files of every message are deleted; after
  /// CommitStateUnknown nothing is.
  arrow::Result<CommitReport> Commit();

  /// Deletes the files of every message received (the job failed); commits nothing.
  /// Returns the number of files that could not be deleted (logged, never an error).
  int Abort();

  int64_t files() const;
  int64_t records() const;

 private:
  arrow::Status OutsideDataLocation(const std::string& location) const;

  CommitTarget target_;
  TableState base_;
  std::string data_location_;
  mutable std::mutex mutex_;
  std::vector<std::string> owned_locations_;
  std::vector<DataFile> data_files_;
  std::optional<OverwriteRequest> overwrite_;
  bool done_ = false;
};

}  // namespace floe
