#include "floe/delta/committer.h"

#include <cstdio>
#include <utility>

#include "floe/util/error.h"
#include "floe/util/location.h"
#include "floe/util/log.h"
#include "floe/util/uuid.h"

namespace floe::delta {

bool IsCatalogManaged(const Protocol& protocol) {
  for (const char* name : {"catalogManaged", "catalogOwned-preview"}) {
    if (protocol.HasReaderFeature(name) || protocol.HasWriterFeature(name)) return true;
  }
  return false;
}

CommitType CommitTypeOf(const Protocol& protocol, bool create) {
  if (IsCatalogManaged(protocol)) {
    return create ? CommitType::kCatalogManagedCreate : CommitType::kCatalogManagedWrite;
  }
  return create ? CommitType::kPathBasedCreate : CommitType::kPathBasedWrite;
}

CommitMetadata::CommitMetadata(const std::string& table_root, int64_t version,
                               CommitType type, int64_t in_commit_timestamp_ms,
                               int64_t max_published_version, Env* env)
    : table_root_(StripTrailingSlash(table_root)),
      version_(version),
      type_(type),
      in_commit_timestamp_ms_(in_commit_timestamp_ms),
      max_published_version_(max_published_version) {
  char padded[32];
  std::snprintf(padded, sizeof(padded), "%020lld", static_cast<long long>(version));
  staged_path_ = table_root_ + "/_delta_log/_staged_commits/" + padded + "." +
                 Uuid::Random(env).ToString() + ".json";
}

std::string CommitMetadata::published_path() const {
  return CommitLocation(table_root_, version_);
}

arrow::Status ValidateCommitType(const Committer& committer, CommitType type,
                                 const std::string& table_root) {
  const bool catalog_table = type == CommitType::kCatalogManagedCreate ||
                             type == CommitType::kCatalogManagedWrite;
  if (catalog_table && !committer.IsCatalogCommitter()) {
    return MakeError(ErrorKind::kInvalidInput,
                     "Delta table " + table_root +
                         " is catalog-managed and requires a catalog committer: commit "
                         "to it through its catalog, not by path");
  }
  if (!catalog_table && committer.IsCatalogCommitter()) {
    return MakeError(ErrorKind::kInvalidInput,
                     "Delta table " + table_root +
                         " is path-based and cannot be committed to with a catalog "
                         "committer");
  }
  return arrow::Status::OK();
}

arrow::Status PutIfAbsent(FileIO& io, const std::string& target,
                          const std::string& text) {
  ARROW_RETURN_NOT_OK(io.WriteIfAbsent(target, text));
  return SyncPut(io, target);
}

arrow::Status SyncPut(FileIO& io, const std::string& target) {
  arrow::Status synced = SyncNewFiles(io, {target});
  if (synced.ok()) return synced;
  // The file is in place and visible, but may not survive a power cut.
  return MakeError(
      ErrorKind::kCommitStateUnknown,
      "wrote " + target + " but could not make it durable: " + synced.message());
}

FilesystemCommitter::FilesystemCommitter(std::shared_ptr<FileIO> io)
    : io_(std::move(io)) {}

arrow::Result<CommitResponse> FilesystemCommitter::Commit(
    const std::string& actions, const CommitMetadata& metadata) {
  ARROW_RETURN_NOT_OK(
      ValidateCommitType(*this, metadata.commit_type(), metadata.table_root()));
  const std::string target = metadata.published_path();
  arrow::Status put = PutIfAbsent(*io_, target, actions);
  if (put.ok()) return Committed{target};
  if (KindOf(put) == ErrorKind::kAlreadyExists) return Conflict{metadata.version()};
  if (KindOf(put) == ErrorKind::kCommitStateUnknown) return put;  // landed, not durable
  // The rename failed, or said it did: what is at the name now decides. Our own bytes
  // (every commit holds a fresh txnId) mean it landed; another writer's mean a conflict.
  auto landed = io_->ReadAll(target);
  if (landed.ok()) {
    if (*landed != actions) return Conflict{metadata.version()};
    ARROW_RETURN_NOT_OK(SyncPut(*io_, target));
    return Committed{target};
  }
  if (KindOf(landed.status()) == ErrorKind::kNotFound) {
    return WithContext(put, "committing " + target);
  }
  return MakeError(ErrorKind::kCommitStateUnknown,
                   "the commit of version " + std::to_string(metadata.version()) +
                       " of Delta table " + metadata.table_root() +
                       " may or may not have happened: " + put.message() +
                       "; reading it back: " + landed.status().message());
}

arrow::Status FilesystemCommitter::Publish(const PublishMetadata& metadata) {
  ARROW_RETURN_NOT_OK(
      ValidateCommitType(*this, metadata.commit_type, metadata.table_root));
  if (metadata.commits.empty()) return arrow::Status::OK();
  return MakeError(ErrorKind::kInvalidInput,
                   "a filesystem committer publishes nothing: " +
                       std::to_string(metadata.commits.size()) +
                       " ratified commits belong to a catalog-managed table, not to "
                       "Delta table " +
                       metadata.table_root);
}

}  // namespace floe::delta
