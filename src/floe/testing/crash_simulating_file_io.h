// A FileIO that models local disk behind a volatile page cache, for tests that cut the
// power at every I/O operation of a commit, as LevelDB's fault-injection Env does.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "floe/io/file_io.h"
#include "floe/util/mutex.h"

namespace floe::testing {

/// Files and directories kept in memory, by absolute path (or file: URI). What a power
/// cut keeps is what was made durable, as on a POSIX file system:
/// - a file's bytes, when its stream closed (ArrowFileIO fsyncs before closing);
/// - a name in a directory (a file or directory created, renamed in or out, deleted),
///   when that directory was synced (SyncFolder).
/// Everything else since then is lost: a file whose name is durable but whose bytes are
/// not comes back empty; a name that is not durable is gone, with everything below it.
///
/// The I/O operations that change storage are counted: creating a file, closing a
/// stream, renaming, deleting, syncing a folder (writes into an open stream are not: a
/// cut between two writes of a stream loses what a cut at its close loses). At the
/// operation chosen with CutPowerAt, the machine stops: that operation and every later
/// one, reads too, fail with an IOError starting "power cut". PowerCut then applies the
/// loss and starts the machine again. Thread-safe.
class CrashSimulatingFileIO final : public FileIO {
 public:
  CrashSimulatingFileIO();
  ~CrashSimulatingFileIO() override;

  /// Stops the machine at the `nth` counted operation from now (from 1); 0: never.
  void CutPowerAt(int64_t nth);
  /// Loses what was not durable, zeroes the count, and runs again.
  void PowerCut();
  /// A new disk holding what this one would keep at a power cut (its durable state),
  /// for runs that all start from one prepared state.
  std::shared_ptr<CrashSimulatingFileIO> CloneDurable() const;
  /// Counted operations since the last PowerCut (or construction).
  int64_t operations() const;
  /// True once the machine stopped.
  bool stopped() const;

  /// A mutation, for tests that prove each sync is needed: from now, the `ordinal`-th
  /// file or folder (from 1, in the order of TakeEffectiveSyncs) whose sync would make
  /// something durable is synced in vain, that time and every later time (a folder's
  /// SyncFolder, or the close of a file's stream, succeeds and keeps nothing). 0: none.
  void SkipSyncsOf(int64_t ordinal);
  /// Every folder and file whose sync made something durable (or would have, but for
  /// SkipSyncsOf), since the last call, in order, each once (files as they are named,
  /// folders without a trailing slash).
  std::vector<std::string> TakeEffectiveSyncs();

  arrow::Result<std::shared_ptr<arrow::io::RandomAccessFile>> OpenInput(
      const std::string& location) override;
  arrow::Result<std::shared_ptr<arrow::io::OutputStream>> OpenOutput(
      const std::string& location) override;
  arrow::Status Delete(const std::string& location) override;
  arrow::Result<bool> Exists(const std::string& location) override;
  arrow::Result<std::vector<FileInfo>> List(const std::string& prefix) override;
  arrow::Status DeleteWithin(const std::string& root,
                             const std::string& location) override;
  arrow::Status RenameNoReplace(const std::string& from, const std::string& to) override;
  arrow::Status SyncFolder(const std::string& folder) override;

  struct Node;
  class Stream;

 private:
  friend class Stream;
  /// Counts one operation; the IOError if the machine is (or now goes) down.
  arrow::Status Count(const std::string& location) FLOE_REQUIRES(mutex_);
  arrow::Status Alive(const std::string& location) const FLOE_REQUIRES(mutex_);
  std::shared_ptr<Node> Find(const std::string& path) const FLOE_REQUIRES(mutex_);
  arrow::Result<std::shared_ptr<Node>> Folder(const std::string& path, bool create)
      FLOE_REQUIRES(mutex_);
  /// Called when a sync of `location` would make something durable; false when the
  /// mutation (SkipSyncsOf) says it must not.
  bool Effective(const std::string& location) FLOE_REQUIRES(mutex_);

  // Guards the whole tree (the nodes too) and the counters.
  mutable Mutex mutex_;
  std::shared_ptr<Node> root_ FLOE_GUARDED_BY(mutex_);
  int64_t operations_ FLOE_GUARDED_BY(mutex_) = 0;
  int64_t cut_at_ FLOE_GUARDED_BY(mutex_) = 0;
  bool stopped_ FLOE_GUARDED_BY(mutex_) = false;
  int64_t skip_ordinal_ FLOE_GUARDED_BY(mutex_) = 0;
  std::string skipped_ FLOE_GUARDED_BY(mutex_);
  std::vector<std::string> effective_ FLOE_GUARDED_BY(mutex_);
  std::set<std::string> effective_seen_ FLOE_GUARDED_BY(mutex_);
};

}  // namespace floe::testing
