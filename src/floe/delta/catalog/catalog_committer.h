// The committer of catalog-managed Delta tables: stage, ratify, publish. A commit's
// actions are written to `_delta_log/_staged_commits/<v>.<uuid>.json` (put-if-absent,
// the name minted once per attempt), ratified by the table's CommitCoordinator as
// version v (only after v - 1, at most once), and then every ratified version not yet
// published, ours last, is copied to `_delta_log/<v>.json` in version order
// (put-if-absent: "already there with these bytes" is success) and recorded as
// published. Only then is the version reported. A lost ratification is Conflict and
// deletes the staged file; a publication that fails leaves the version committed (it is
// ratified) and the backlog for the next writer, which publishes it first.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "floe/delta/catalog/coordinator.h"
#include "floe/delta/committer.h"
#include "floe/io/file_io.h"
#include "floe/util/env.h"

namespace floe::delta {

/// The catalog's name for a table a CatalogCommitter creates (version 0 is published
/// directly and the table registered under this name).
struct CatalogTableName {
  std::string catalog_name;
  std::string table_namespace;
  std::string table_name;
};

class CatalogCommitter final : public Committer {
 public:
  /// Commits to the table `table_id` at `table_root`; with `create_as`, creates it
  /// (version 0 published directly, then registered with the coordinator).
  CatalogCommitter(std::shared_ptr<FileIO> io,
                   std::shared_ptr<CommitCoordinator> coordinator, std::string table_id,
                   const std::string& table_root,
                   std::optional<CatalogTableName> create_as = std::nullopt,
                   Env* env = Env::Default());

  arrow::Result<CommitResponse> Commit(const std::string& actions,
                                       const CommitMetadata& metadata) override;
  bool IsCatalogCommitter() const override { return true; }
  arrow::Status Publish(const PublishMetadata& metadata) override;
  arrow::Result<std::optional<LogTail>> Tail() override;

  /// Publishes every ratified, unpublished version up to `up_to` (all of them when -1)
  /// and records the newest published one with the coordinator. `type` is the table's
  /// kind as the caller's snapshot has it; when not given and there is something to
  /// publish, the table's snapshot (its published log and this catalog's tail) is
  /// loaded to tell.
  arrow::Status PublishBacklog(std::optional<CommitType> type = std::nullopt,
                               int64_t up_to = -1);

 private:
  arrow::Result<CommitResponse> Create(const std::string& actions,
                                       const CommitMetadata& metadata);
  std::string StagedLocation(const std::string& file_name) const;

  std::shared_ptr<FileIO> io_;
  std::shared_ptr<CommitCoordinator> coordinator_;
  std::string table_id_;
  std::string table_root_;
  std::optional<CatalogTableName> create_as_;
  Env* env_;
};

}  // namespace floe::delta
