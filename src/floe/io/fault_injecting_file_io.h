// A FileIO that fails the n-th operation of a kind, for tests that prove no failure loses
// data or leaves files behind.
#pragma once

#include <array>
#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "floe/io/file_io.h"
#include "floe/util/mutex.h"

namespace floe {

enum class FileOperation { kCreate = 0, kWrite, kClose, kRename, kDelete, kSync };
inline constexpr int kFileOperationKinds = 6;
std::string_view FileOperationName(FileOperation operation);

/// Wraps another FileIO; counts every create (OpenOutput), write and close of an output
/// stream, rename, delete and folder sync, and fails the one chosen with an IOError whose
/// message starts with "injected fault". Thread-safe.
class FaultInjectingFileIO final : public FileIO {
 public:
  explicit FaultInjectingFileIO(std::shared_ptr<FileIO> inner);

  /// Fails the `nth` (from 1) operation of `kind` from now on counting from the last
  /// Reset(); 0 disables.
  void FailNth(FileOperation kind, int64_t nth);
  /// Zeroes the counters (the chosen fault stays chosen).
  void Reset();
  int64_t Count(FileOperation kind) const {
    return counts_[static_cast<size_t>(kind)].load();
  }
  /// The location the fault hit, empty if it has not fired.
  std::string fired_at() const;

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

  /// Counts one operation and returns the injected error if it is the chosen one.
  arrow::Status Check(FileOperation kind, const std::string& location);

 private:
  std::shared_ptr<FileIO> inner_;
  std::array<std::atomic<int64_t>, kFileOperationKinds> counts_{};
  std::atomic<int> fail_kind_{-1};
  std::atomic<int64_t> fail_nth_{0};
  mutable Mutex mutex_;
  std::string fired_at_ FLOE_GUARDED_BY(mutex_);
};

}  // namespace floe
