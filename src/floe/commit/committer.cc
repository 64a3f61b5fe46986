#include "floe/commit/committer.h"

#include <algorithm>

#include "floe/io/file_io.h"
#include "floe/task/task_commit.h"
#include "floe/util/error.h"

namespace floe {

Committer::Committer(std::unique_ptr<SnapshotProducer> producer, TableState base,
                     std::string data_location)
    : producer_(std::move(producer)),
      base_(std::move(base)),
      data_location_(std::move(data_location)) {}

Committer::~Committer() {
  if (!done_) Abort();
}

arrow::Status Committer::OutsideDataLocation(const std::string& location) const {
  return MakeError(ErrorKind::kInvalidMetadata,
                   "task commit message for table " + producer_->target().id.ToString() +
                       " names " + location +
                       ", which is outside the write's data location " + data_location_);
}

arrow::Status Committer::Add(std::string_view message) {
  ARROW_ASSIGN_OR_RAISE(auto locations, DecodeTaskCommitLocations(message));
  std::string outside;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (done_)
      return arrow::Status::Invalid("the committer already committed or aborted");
    for (auto& location : locations) {
      if (IsLocationUnder(location, data_location_)) {
        owned_locations_.push_back(std::move(location));
      } else if (outside.empty()) {
        outside = std::move(location);
      }
    }
  }
  if (!outside.empty()) return OutsideDataLocation(outside);
  ARROW_ASSIGN_OR_RAISE(auto decoded, DecodeTaskCommit(message));
  if (decoded.files.empty()) return arrow::Status::OK();
  auto manifest = ReadManifest(decoded.files);
  if (!manifest.ok()) return WithContext(manifest.status(), "task commit message");
  for (const auto& entry : manifest->entries) {
    if (!IsLocationUnder(entry.data_file.file_path, data_location_)) {
      return OutsideDataLocation(entry.data_file.file_path);
    }
  }
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto& entry : manifest->entries) data_files_.push_back(std::move(entry.data_file));
  return arrow::Status::OK();
}

arrow::Result<CommitReport> Committer::Commit() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (done_) return arrow::Status::Invalid("the committer already committed or aborted");
  done_ = true;
  for (const auto& file : data_files_) producer_->AddDataFile(file);
  arrow::Result<CommitReport> report = producer_->Commit(base_);
  if (!report.ok() && KindOf(report.status()) != ErrorKind::kCommitStateUnknown) {
    for (const auto& location : owned_locations_) {
      DeleteBestEffort(*producer_->target().io, location, "", "after a failed commit");
    }
    if (!operation_id_.empty()) DeleteUnreported();
  }
  return report;
}

int Committer::Abort() {
  std::lock_guard<std::mutex> lock(mutex_);
  done_ = true;
  int failures = 0;
  for (const auto& location : owned_locations_) {
    if (!DeleteBestEffort(*producer_->target().io, location, "", "of an aborted write"))
      ++failures;
  }
  owned_locations_.clear();
  if (!operation_id_.empty()) failures += DeleteUnreported();
  return failures;
}

void Committer::DeleteUnreportedFilesOnAbort(std::string operation_id) {
  std::lock_guard<std::mutex> lock(mutex_);
  operation_id_ = std::move(operation_id);
}

bool IsTaskFileOf(std::string_view name, std::string_view operation_id) {
  // "%05d-%d-<operation id>-%05d.parquet", as IcebergWriteFormat::FileLocation names.
  auto digits = [](std::string_view text) {
    return !text.empty() && std::all_of(text.begin(), text.end(),
                                        [](char c) { return c >= '0' && c <= '9'; });
  };
  const std::string infix = "-" + std::string(operation_id) + "-";
  const size_t at = name.find(infix);
  if (at == std::string_view::npos || !name.ends_with(".parquet")) return false;
  std::string_view head = name.substr(0, at);
  std::string_view tail = name.substr(at + infix.size());
  tail.remove_suffix(std::string_view(".parquet").size());
  const size_t dash = head.find('-');
  return dash != std::string_view::npos && digits(head.substr(0, dash)) &&
         digits(head.substr(dash + 1)) && digits(tail);
}

int Committer::DeleteUnreported() {
  FileIO& io = *producer_->target().io;
  auto listed = io.List(data_location_);
  if (!listed.ok()) return 0;  // nothing written yet: no data folder
  int failures = 0;
  for (const auto& file : *listed) {
    if (file.symbolic_link) continue;
    std::string_view name = file.location;
    name = name.substr(name.find_last_of('/') + 1);
    if (!IsTaskFileOf(name, operation_id_)) continue;
    if (!DeleteWithinBestEffort(io, data_location_, file.location,
                                "of an aborted write's unreported task"))
      ++failures;
  }
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
