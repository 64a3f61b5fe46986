#include "floe/iceberg/commit/committer.h"

#include <algorithm>

#include "floe/io/file_io.h"
#include "floe/task/task_commit.h"
#include "floe/util/error.h"
#include "floe/util/location.h"
#include "floe/util/log.h"

namespace floe::iceberg {

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
    MutexLock lock(&mutex_);
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
  MutexLock lock(&mutex_);
  // The same message handed in twice (a retried hand-off, a caller's loop) would make
  // the snapshot list its files twice and every row read twice.
  std::set<std::string> incoming;
  for (const auto& entry : manifest->entries) {
    const std::string& path = entry.data_file.file_path;
    if (added_paths_.contains(path) || !incoming.insert(path).second) {
      return MakeError(
          ErrorKind::kInvalidInput,
          "data file " + path + " is in a task commit message already added");
    }
  }
  added_paths_.merge(incoming);
  for (auto& entry : manifest->entries) data_files_.push_back(std::move(entry.data_file));
  return arrow::Status::OK();
}

arrow::Result<CommitReport> Committer::Commit() {
  MutexLock lock(&mutex_);
  if (done_) return arrow::Status::Invalid("the committer already committed or aborted");
  if (abort_only_) {
    return MakeError(ErrorKind::kInvalidInput,
                     "this committer of table " + producer_->target().id.ToString() +
                         " was made to abort a write; it cannot commit");
  }
  done_ = true;
  for (const auto& file : data_files_) producer_->AddDataFile(file);
  arrow::Result<CommitReport> report = producer_->Commit(base_);
  if (!report.ok() && KindOf(report.status()) != ErrorKind::kCommitStateUnknown) {
    std::set<std::string> committed;
    if (!CommittedElsewhere("of a failed commit", &committed)) return report;
    for (const auto& location : owned_locations_) {
      if (committed.contains(CanonicalLocation(location))) continue;
      DeleteBestEffort(*producer_->target().io, location, "", "after a failed commit");
    }
    if (!operation_id_.empty()) {
      DeleteUnreported(ListUnreported(committed), "of a failed commit's unreported task");
    }
  } else if (report.ok() && !operation_id_.empty()) {
    DeleteUncommittedTaskFiles(report->state);
  }
  return report;
}

int Committer::Abort() {
  MutexLock lock(&mutex_);
  done_ = true;
  std::set<std::string> committed;
  if (!CommittedElsewhere("of the aborted write", &committed)) {
    const int kept = static_cast<int>(owned_locations_.size());
    owned_locations_.clear();
    return kept;
  }
  int failures = 0;
  for (const auto& location : owned_locations_) {
    if (committed.contains(CanonicalLocation(location))) continue;
    if (!DeleteBestEffort(*producer_->target().io, location, "", "of an aborted write"))
      ++failures;
  }
  owned_locations_.clear();
  if (!operation_id_.empty()) {
    failures += DeleteUnreported(ListUnreported(committed),
                                 "of an aborted write's unreported task");
  }
  return failures;
}

bool Committer::CommittedElsewhere(const char* what, std::set<std::string>* committed) {
  if (!referenced_) return true;  // a local write: no other committer has its files
  // A split write's plan may serve several committers (a streaming query's epochs, a
  // caller committing in parts, Spark's abort after a commit whose outcome was unknown):
  // files of this plan that the table references now are committed and stay.
  const CommitTarget& target = producer_->target();
  arrow::Result<TableState> current = target.catalog->LoadTable(target.id);
  arrow::Result<std::set<std::string>> referenced =
      current.ok() ? referenced_(*current) : current.status();
  if (!referenced.ok()) {
    Log(LogLevel::kWarning,
        "keeping the files " + std::string(what) + " to table " + target.id.ToString() +
            ": what it references could not be read: " + referenced.status().message());
    return false;
  }
  *committed = std::move(*referenced);
  return true;
}

void Committer::DeleteUnreportedFiles(std::string operation_id,
                                      ReferencedLocations referenced) {
  MutexLock lock(&mutex_);
  operation_id_ = std::move(operation_id);
  referenced_ = std::move(referenced);
}

arrow::Status Committer::SetSummaryProperty(const std::string& key,
                                            const std::string& value) {
  MutexLock lock(&mutex_);
  if (done_) return arrow::Status::Invalid("the committer already committed or aborted");
  return producer_->SetSummaryProperty(key, value);
}

void Committer::AbortOnly() {
  MutexLock lock(&mutex_);
  abort_only_ = true;
}

int64_t Committer::unreported_deleted() const {
  MutexLock lock(&mutex_);
  return unreported_deleted_;
}

void Committer::DeleteUncommittedTaskFiles(const TableState& state) {
  std::set<std::string> committed;
  for (const auto& file : data_files_)
    committed.insert(CanonicalLocation(file.file_path));
  std::vector<std::string> candidates = ListUnreported(committed);
  if (candidates.empty() || !referenced_) return;
  // The common case ends above: no task attempt was lost. Otherwise only what the table,
  // as the commit left it, does not reference is deleted.
  auto referenced = referenced_(state);
  if (!referenced.ok()) {
    Log(LogLevel::kWarning,
        "keeping " + std::to_string(candidates.size()) +
            " unreported task files of table " + producer_->target().id.ToString() +
            ": its metadata could not be read: " + referenced.status().message());
    return;
  }
  std::vector<std::string> unreferenced;
  for (auto& location : candidates) {
    if (!referenced->contains(CanonicalLocation(location)))
      unreferenced.push_back(std::move(location));
  }
  const int failures =
      DeleteUnreported(unreferenced, "of a committed write's lost task attempt");
  unreported_deleted_ = static_cast<int64_t>(unreferenced.size()) - failures;
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

std::vector<std::string> Committer::ListUnreported(
    const std::set<std::string>& keep) const {
  auto listed = producer_->target().io->List(data_location_);
  if (!listed.ok()) return {};  // nothing written yet: no data folder
  std::vector<std::string> out;
  for (const auto& file : *listed) {
    if (file.symbolic_link) continue;
    std::string_view name = file.location;
    name = name.substr(name.find_last_of('/') + 1);
    if (!IsTaskFileOf(name, operation_id_)) continue;
    if (keep.contains(CanonicalLocation(file.location))) continue;
    out.push_back(file.location);
  }
  return out;
}

int Committer::DeleteUnreported(const std::vector<std::string>& files, const char* why) {
  return static_cast<int>(
      DeleteAllWithinBestEffort(*producer_->target().io, data_location_, files, why));
}

int64_t Committer::files() const {
  MutexLock lock(&mutex_);
  return static_cast<int64_t>(data_files_.size());
}

int64_t Committer::records() const {
  MutexLock lock(&mutex_);
  int64_t total = 0;
  for (const auto& file : data_files_) total += file.record_count;
  return total;
}

}  // namespace floe::iceberg
