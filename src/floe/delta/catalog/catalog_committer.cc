#include "floe/delta/catalog/catalog_committer.h"

#include <cstdio>
#include <utility>

#include "floe/delta/log.h"
#include "floe/util/error.h"
#include "floe/util/location.h"
#include "floe/util/log.h"
#include "floe/util/test_hooks_internal.h"

namespace floe::delta {
namespace {

std::string BaseName(const std::string& location) {
  return location.substr(location.rfind('/') + 1);
}

// A staged commit's name as the coordinator gives it back: `<v:020>.<uuid>.json` of
// that version, nothing that could lead outside `_staged_commits/`.
arrow::Status CheckStagedName(int64_t version, const std::string& name,
                              const std::string& root) {
  char padded[32];
  std::snprintf(padded, sizeof(padded), "%020lld.", static_cast<long long>(version));
  const bool valid =
      name.size() == 20 + 1 + 36 + 5 && name.rfind(padded, 0) == 0 &&
      name.compare(name.size() - 5, 5, ".json") == 0 &&
      name.find_first_not_of("0123456789abcdef-.json") == std::string::npos;
  if (valid) return arrow::Status::OK();
  return MakeError(ErrorKind::kInvalidMetadata,
                   "the catalog of Delta table " + root +
                       " names a staged commit of version " + std::to_string(version) +
                       " that is not <version>.<uuid>.json: " + name);
}

}  // namespace

CatalogCommitter::CatalogCommitter(std::shared_ptr<FileIO> io,
                                   std::shared_ptr<CommitCoordinator> coordinator,
                                   std::string table_id, const std::string& table_root,
                                   std::optional<CatalogTableName> create_as, Env* env)
    : io_(std::move(io)),
      coordinator_(std::move(coordinator)),
      table_id_(std::move(table_id)),
      table_root_(StripTrailingSlash(table_root)),
      create_as_(std::move(create_as)),
      env_(env) {}

std::string CatalogCommitter::StagedLocation(const std::string& file_name) const {
  return table_root_ + "/_delta_log/_staged_commits/" + file_name;
}

arrow::Result<CommitResponse> CatalogCommitter::Create(const std::string& actions,
                                                       const CommitMetadata& metadata) {
  if (!create_as_) {
    return MakeError(ErrorKind::kInvalidInput,
                     "creating Delta table " + table_root_ +
                         " through its catalog needs the name to register it under");
  }
  // Version 0 is published directly: nothing can read the table before the catalog
  // registers it, and registration is the step that can lose (the name taken).
  const std::string target = metadata.published_path();
  arrow::Status put = PutIfAbsent(*io_, target, actions);
  if (KindOf(put) == ErrorKind::kAlreadyExists) return Conflict{0};
  if (KindOf(put) == ErrorKind::kCommitStateUnknown) {
    // Version 0 was written but may not last; no catalog names it yet, so take it back
    // and fail: nothing was committed.
    DeleteBestEffort(*io_, target, "commit", "that could not be made durable");
    return arrow::Status::IOError("creating Delta table ", table_root_, ": ",
                                  put.message());
  }
  ARROW_RETURN_NOT_OK(WithContext(put, "creating Delta table " + table_root_));
  RegisteredDeltaTable table{create_as_->catalog_name, create_as_->table_namespace,
                             create_as_->table_name, table_id_, table_root_};
  arrow::Status registered = coordinator_->RegisterTable(table);
  if (!registered.ok()) {
    // Our version 0 (our bytes, just written) names no table: take it back.
    auto landed = io_->ReadAll(target);
    if (landed.ok() && *landed == actions)
      DeleteBestEffort(*io_, target, "commit", "after the table was not registered");
    return registered;
  }
  return Committed{target};
}

arrow::Result<CommitResponse> CatalogCommitter::Commit(const std::string& actions,
                                                       const CommitMetadata& metadata) {
  ARROW_RETURN_NOT_OK(
      ValidateCommitType(*this, metadata.commit_type(), metadata.table_root()));
  if (metadata.commit_type() == CommitType::kCatalogManagedCreate)
    return Create(actions, metadata);
  const std::string where =
      "version " + std::to_string(metadata.version()) + " of Delta table " + table_root_;
  // Stage. The name is this attempt's own (a fresh UUID), so "exists" cannot be another
  // writer's: it is an error like any other.
  const std::string& staged = metadata.staged_path();
  arrow::Status put = PutIfAbsent(*io_, staged, actions);
  if (KindOf(put) == ErrorKind::kCommitStateUnknown) {
    // Nothing names a staged file before ratification: not durable is plain failure.
    DeleteBestEffort(*io_, staged, "staged commit", "after a failed sync");
    return arrow::Status::IOError("staging ", where, ": ", put.message());
  }
  if (!put.ok()) return WithContext(put, "staging " + where);
  TestPausePoint("delta-staged");
  RatifiedCommit commit;
  commit.version = metadata.version();
  commit.file_name = BaseName(staged);
  commit.file_size = static_cast<int64_t>(actions.size());
  commit.file_modification_ms = env_->NowMillis();
  commit.commit_timestamp_ms = metadata.in_commit_timestamp_ms();
  auto outcome = coordinator_->Ratify(table_id_, commit);
  if (!outcome.ok()) {
    // Unknown: the staged file stays, for the version that may name it.
    if (KindOf(outcome.status()) != ErrorKind::kCommitStateUnknown)
      DeleteBestEffort(*io_, staged, "staged commit", "after a failed ratification");
    return WithContext(outcome.status(), "ratifying " + where);
  }
  if (*outcome == RatifyOutcome::kConflict) {
    // Never ratified, so never published: this attempt's file is garbage.
    DeleteBestEffort(*io_, staged, "staged commit", "after losing the version");
    return Conflict{metadata.version()};
  }
  TestPausePoint("delta-ratified");
  // The version is ours. Publish it and any backlog before it; a failure here leaves
  // the backlog to the next writer (or `floe` reader that publishes), never undoes it.
  arrow::Status published = PublishBacklog(metadata.commit_type(), metadata.version());
  if (!published.ok()) {
    Log(LogLevel::kWarning, where +
                                " is committed (ratified by the catalog) but not yet "
                                "published to _delta_log: " +
                                published.message() + "; the next writer publishes it");
  }
  return Committed{staged};
}

arrow::Status CatalogCommitter::Publish(const PublishMetadata& metadata) {
  ARROW_RETURN_NOT_OK(
      ValidateCommitType(*this, metadata.commit_type, metadata.table_root));
  const std::vector<CatalogCommit>& commits = metadata.commits;
  for (size_t i = 0; i < commits.size(); ++i) {
    const CatalogCommit& commit = commits[i];
    if (i > 0 && commit.version != commits[i - 1].version + 1) {
      return MakeError(ErrorKind::kInvalidInput,
                       "ratified commits of Delta table " + table_root_ +
                           " are published in version order, without gaps: version " +
                           std::to_string(commit.version) + " follows " +
                           std::to_string(commits[i - 1].version));
    }
    ARROW_ASSIGN_OR_RAISE(std::string text, io_->ReadAll(commit.staged_location));
    arrow::Status put = PutIfAbsent(*io_, commit.published_location, text);
    if (KindOf(put) == ErrorKind::kAlreadyExists) {
      // Another writer published it first: the same bytes, or the log is corrupt.
      ARROW_ASSIGN_OR_RAISE(std::string there, io_->ReadAll(commit.published_location));
      if (there != text) {
        return MakeError(ErrorKind::kInvalidMetadata,
                         commit.published_location +
                             " differs from the commit its catalog ratified as version " +
                             std::to_string(commit.version) + " (" +
                             commit.staged_location + ")");
      }
      // Its publisher may have stopped before making it durable.
      ARROW_RETURN_NOT_OK(SyncPut(*io_, commit.published_location));
      continue;
    }
    ARROW_RETURN_NOT_OK(WithContext(put, "publishing version " +
                                             std::to_string(commit.version) +
                                             " of Delta table " + table_root_));
  }
  return arrow::Status::OK();
}

arrow::Status CatalogCommitter::PublishBacklog(std::optional<CommitType> type,
                                               int64_t up_to) {
  ARROW_ASSIGN_OR_RAISE(CoordinatedLog log, coordinator_->GetLog(table_id_));
  std::vector<CatalogCommit> commits;
  for (const auto& ratified : log.unpublished) {
    if (up_to >= 0 && ratified.version > up_to) break;
    ARROW_RETURN_NOT_OK(
        CheckStagedName(ratified.version, ratified.file_name, table_root_));
    commits.push_back({ratified.version, StagedLocation(ratified.file_name),
                       CommitLocation(table_root_, ratified.version)});
  }
  if (commits.empty()) return arrow::Status::OK();
  if (!type) {
    SnapshotOptions options;
    ARROW_ASSIGN_OR_RAISE(options.tail, Tail());
    ARROW_ASSIGN_OR_RAISE(Snapshot snapshot, LoadSnapshot(*io_, table_root_, options));
    type = CommitTypeOf(snapshot.protocol, /*create=*/false);
  }
  ARROW_RETURN_NOT_OK(Publish({table_root_, *type, commits}));
  // Only after every copy is in place: the coordinator's rows are the only other record.
  return coordinator_->MarkPublished(table_id_, commits.back().version);
}

arrow::Result<std::optional<LogTail>> CatalogCommitter::Tail() {
  ARROW_ASSIGN_OR_RAISE(CoordinatedLog log, coordinator_->GetLog(table_id_));
  LogTail tail;
  tail.latest_version = log.latest_ratified_version;
  for (const auto& ratified : log.unpublished) {
    ARROW_RETURN_NOT_OK(
        CheckStagedName(ratified.version, ratified.file_name, table_root_));
    tail.commits.push_back({ratified.version, StagedLocation(ratified.file_name),
                            ratified.file_modification_ms});
  }
  return tail;
}

}  // namespace floe::delta
