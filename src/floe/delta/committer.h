// The Delta committer contract: what turns one version's actions into a version of the
// log. A writer builds the actions (commitInfo first) and a CommitMetadata for the
// version it read plus one; the committer makes them that version or reports that
// another writer has it (Conflict, never an error: the writer re-reads the winners,
// re-validates and retries at the next version with the same data files). Only transient
// I/O (an IOError) may be retried as it is.
//
// Two kinds exist. A filesystem committer owns path-based tables: `_delta_log/<v>.json`
// created only if absent. A catalog committer owns catalog-managed tables (table feature
// catalogManaged or catalogOwned-preview): it stages the actions as
// `_delta_log/_staged_commits/<v>.<uuid>.json`, has its catalog ratify them, and
// publishes ratified versions to `_delta_log/<v>.json` in order. ValidateCommitType
// refuses either kind on the other kind of table.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "arrow/result.h"
#include "floe/delta/log.h"
#include "floe/io/file_io.h"
#include "floe/util/env.h"

namespace floe::delta {

enum class CommitType {
  kPathBasedCreate,
  kPathBasedWrite,
  kCatalogManagedCreate,
  kCatalogManagedWrite,
};

/// Whether the protocol marks the table catalog-managed (catalogManaged, or its preview
/// name catalogOwned-preview, as a reader or writer feature).
bool IsCatalogManaged(const Protocol& protocol);

/// The commit type of creating a table with `protocol`, or of writing to one.
CommitType CommitTypeOf(const Protocol& protocol, bool create);

/// Everything a committer needs to know about one attempt at one version. Built once per
/// attempt: the staged path's UUID is minted by the constructor, so a retry (at another
/// version, or the same one after an error) never reuses a staged file.
class CommitMetadata {
 public:
  CommitMetadata(const std::string& table_root, int64_t version, CommitType type,
                 int64_t in_commit_timestamp_ms, int64_t max_published_version,
                 Env* env = Env::Default());

  const std::string& table_root() const { return table_root_; }
  int64_t version() const { return version_; }
  CommitType commit_type() const { return type_; }
  /// The commit's in-commit timestamp when ICT is on, else its commitInfo.timestamp.
  int64_t in_commit_timestamp_ms() const { return in_commit_timestamp_ms_; }
  /// The newest version published as `_delta_log/<v>.json` when the snapshot was read
  /// (-1: none).
  int64_t max_published_version() const { return max_published_version_; }
  /// `_delta_log/<v:020>.json`.
  std::string published_path() const;
  /// `_delta_log/_staged_commits/<v:020>.<uuid>.json`, the same on every call.
  const std::string& staged_path() const { return staged_path_; }

 private:
  std::string table_root_;
  int64_t version_;
  CommitType type_;
  int64_t in_commit_timestamp_ms_;
  int64_t max_published_version_;
  std::string staged_path_;
};

/// The version is this writer's: `file` is the commit file written (the published file
/// for a filesystem committer, the staged one for a catalog committer).
struct Committed {
  std::string file;
};
/// Another writer has `version`.
struct Conflict {
  int64_t version = -1;
};
using CommitResponse = std::variant<Committed, Conflict>;

/// A ratified commit to publish: its staged file and where it is published.
struct CatalogCommit {
  int64_t version = -1;
  std::string staged_location;
  std::string published_location;
};

/// What Publish is given: the ratified commits to publish and the kind of table they
/// belong to (as the snapshot being published sees it), so that the pairing of committer
/// and table is enforced at publish as at commit.
struct PublishMetadata {
  std::string table_root;
  CommitType commit_type = CommitType::kCatalogManagedWrite;
  std::vector<CatalogCommit> commits;
};

class Committer {
 public:
  virtual ~Committer() = default;
  /// Makes `actions` (newline-delimited JSON, every line one action, written unchanged)
  /// version `metadata.version()`. Conflict when another writer has the version; an
  /// IOError only for a transient storage failure (retry as is); any other error is
  /// final. CommitStateUnknown when the outcome cannot be known.
  virtual arrow::Result<CommitResponse> Commit(const std::string& actions,
                                               const CommitMetadata& metadata) = 0;
  virtual bool IsCatalogCommitter() const = 0;
  /// Copies ratified commits to their published locations, in version order; an already
  /// published version counts as published. `commits` must be contiguous and ascending.
  /// Refused as Commit is (ValidateCommitType) when the committer and the table's kind
  /// do not pair.
  virtual arrow::Status Publish(const PublishMetadata& metadata) = 0;
  /// A catalog committer's view of the log now: the ratified, unpublished commits and
  /// the latest ratified version, for LoadSnapshot and for a loser reading its winners.
  /// nullopt for a filesystem committer (the published log is the whole truth).
  virtual arrow::Result<std::optional<LogTail>> Tail() { return std::nullopt; }
};

/// InvalidInput when `committer` may not commit `type`: a filesystem committer on a
/// catalog-managed table, or a catalog committer on a path-based one. `table_root` names
/// the table in the error.
arrow::Status ValidateCommitType(const Committer& committer, CommitType type,
                                 const std::string& table_root);

/// Path-based tables: `_delta_log/<v>.json` written only if absent (PutIfAbsent: on disk
/// a temporary file renamed without replacing, on object storage a conditional PUT); a
/// name already taken is Conflict.
/// It never publishes: Publish refuses any commit, and a catalog-managed table.
class FilesystemCommitter : public Committer {
 public:
  explicit FilesystemCommitter(std::shared_ptr<FileIO> io);
  arrow::Result<CommitResponse> Commit(const std::string& actions,
                                       const CommitMetadata& metadata) override;
  bool IsCatalogCommitter() const override { return false; }
  arrow::Status Publish(const PublishMetadata& metadata) override;

 private:
  std::shared_ptr<FileIO> io_;
};

/// Writes `text` as `target` only if no file is there (FileIO::WriteIfAbsent: a
/// temporary file renamed without replacing on disk, a conditional PUT on object
/// storage), then makes it durable (SyncPut). AlreadyExists when another writer has the
/// name.
arrow::Status PutIfAbsent(FileIO& io, const std::string& target, const std::string& text);
/// Makes the file just put at `target` durable (SyncNewFiles). A failure is
/// CommitStateUnknown: the file is visible but may not survive a power cut.
arrow::Status SyncPut(FileIO& io, const std::string& target);

}  // namespace floe::delta
