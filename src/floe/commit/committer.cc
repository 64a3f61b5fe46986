#include "floe/commit/committer.h"

#include "floe/util/error.h"
#include "floe/util/log.h"
#include "floe/write/task_commit.h"

namespace floe {

Committer::Committer(CommitTarget target, TableState base)
    : target_(std::move(target)), base_(std::move(base)) {}

Committer::~Committer() {
  if (!done_) Abort();
}

arrow::Status Committer::Add(std::string_view message) {
  ARROW_ASSIGN_OR_RAISE(auto locations, DecodeTaskCommitLocations(message));
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (done_) return arrow::Status::Invalid("the committer already committed or aborted");
    for (auto& location : locations) owned_locations_.push_back(std::move(location));
  }
  ARROW_ASSIGN_OR_RAISE(auto decoded, DecodeTaskCommit(message));
  if (decoded.manifest.empty()) return arrow::Status::OK();
  auto manifest = ReadManifest(decoded.manifest);
  if (!manifest.ok()) return WithContext(manifest.status(), "task commit message");
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto& entry : manifest->entries) data_files_.push_back(std::move(entry.data_file));
  return arrow::Status::OK();
}

arrow::Result<CommitReport> Committer::Commit() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (done_) return arrow::Status::Invalid("the committer already committed or aborted");
  done_ = true;
  FastAppend append(target_);
  for (const auto& file : data_files_) append.AppendFile(file);
  auto report = append.Commit(base_);
  if (!report.ok() && KindOf(report.status()) != ErrorKind::kCommitStateUnknown) {
    for (const auto& location : owned_locations_) {
      auto status = target_.io->Delete(location);
      if (!status.ok() && KindOf(status) != ErrorKind::kNotFound) {
        Log(LogLevel::kWarning, "could not delete " + location + " after a failed commit");
      }
    }
  }
  return report;
}

int Committer::Abort() {
  std::lock_guard<std::mutex> lock(mutex_);
  done_ = true;
  int failures = 0;
  for (const auto& location : owned_locations_) {
    auto status = target_.io->Delete(location);
    if (!status.ok() && KindOf(status) != ErrorKind::kNotFound) {
      ++failures;
      Log(LogLevel::kWarning, "could not delete " + location + " of an aborted write");
    }
  }
  owned_locations_.clear();
  return failures;
}

int64_t Committer::files() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return static_cast<int64_t>(data_files_.size());
}

int64_t Committer::records() const {
  std::lock_guard<std::mutex> lock(mutex_);
  int64_t total = 0;
  for (const auto& file : data_files_) total += file.record_count;
  return total;
}

}  // namespace floe
