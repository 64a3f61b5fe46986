#include "floe/iceberg/table/maintenance.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "floe/iceberg/commit/snapshot_producer.h"
#include "floe/iceberg/manifest/manifest.h"
#include "floe/iceberg/table/file_ownership.h"
#include "floe/util/error.h"
#include "floe/util/log.h"
#include "floe/util/text.h"

namespace floe::iceberg {

namespace {

struct ExpirePlan {
  std::set<int64_t> expire;
  std::vector<std::string> removed_refs;
  bool empty() const { return expire.empty() && removed_refs.empty(); }
};

// iceberg-java's RemoveSnapshots.internalApply over `base` at time `now`.
arrow::Result<ExpirePlan> PlanExpiration(const TableMetadata& base,
                                         const TableIdentifier& id,
                                         const ExpireSnapshotsOptions& options,
                                         int64_t now) {
  const PropertyMap& props = base.properties;
  ARROW_ASSIGN_OR_RAISE(int64_t max_age, properties::kMaxSnapshotAgeMs.Parse(props));
  if (options.older_than_ms) max_age = *options.older_than_ms;
  ARROW_ASSIGN_OR_RAISE(int64_t min_keep, properties::kMinSnapshotsToKeep.Parse(props));
  if (options.retain_last) min_keep = *options.retain_last;
  if (min_keep < 1) {
    return MakeError(ErrorKind::kInvalidInput,
                     "the number of snapshots to retain must be at least 1 (table " +
                         id.ToString() + ")");
  }
  ARROW_ASSIGN_OR_RAISE(int64_t max_ref_age, properties::kMaxRefAgeMs.Parse(props));
  const int64_t expire_older_than = now - max_age;
  auto ancestors = [&](int64_t head, const std::function<bool(const Snapshot&)>& visit) {
    for (SnapshotPtr snapshot = base.SnapshotById(head); snapshot;) {
      if (!visit(*snapshot) || !snapshot->parent_snapshot_id) return;
      snapshot = base.SnapshotById(*snapshot->parent_snapshot_id);
    }
  };

  ExpirePlan plan;
  std::map<std::string, SnapshotRef> retained_refs;
  for (const auto& [name, ref] : base.refs) {
    SnapshotPtr head = base.SnapshotById(ref.snapshot_id);
    int64_t ref_max_age = ref.max_ref_age_ms.value_or(max_ref_age);
    if (name == kMainBranch || (head && now - head->timestamp_ms <= ref_max_age)) {
      retained_refs.emplace(name, ref);
    } else {
      plan.removed_refs.push_back(name);
    }
  }
  std::set<int64_t> retain;
  std::map<int64_t, std::vector<std::string>> heads;
  for (const auto& [name, ref] : retained_refs) {
    retain.insert(ref.snapshot_id);
    heads[ref.snapshot_id].push_back(name);
  }
  for (int64_t snapshot_id : options.snapshot_ids) {
    if (!base.SnapshotById(snapshot_id)) {
      return MakeError(
          ErrorKind::kInvalidInput,
          "table " + id.ToString() + " has no snapshot " + std::to_string(snapshot_id));
    }
    if (auto found = heads.find(snapshot_id); found != heads.end()) {
      const std::string names = JoinText(found->second);
      return MakeError(ErrorKind::kValidationFailed,
                       "cannot expire snapshot " + std::to_string(snapshot_id) + " of " +
                           id.ToString() + ": still referenced by refs: " + names);
    }
    plan.expire.insert(snapshot_id);
  }
  std::set<int64_t> on_refs;  // ancestors of branches and heads of tags
  for (const auto& [name, ref] : retained_refs) {
    if (!ref.is_branch) {
      on_refs.insert(ref.snapshot_id);
      continue;
    }
    const int64_t older_than =
        ref.max_snapshot_age_ms ? now - *ref.max_snapshot_age_ms : expire_older_than;
    const int64_t keep = ref.min_snapshots_to_keep.value_or(static_cast<int>(min_keep));
    std::set<int64_t> kept;
    ancestors(ref.snapshot_id, [&](const Snapshot& snapshot) {
      if (static_cast<int64_t>(kept.size()) >= keep && snapshot.timestamp_ms < older_than)
        return false;
      kept.insert(snapshot.snapshot_id);
      return true;
    });
    retain.insert(kept.begin(), kept.end());
    ancestors(ref.snapshot_id, [&](const Snapshot& snapshot) {
      on_refs.insert(snapshot.snapshot_id);
      return true;
    });
  }
  for (const auto& snapshot : base.snapshots) {
    if (!on_refs.count(snapshot->snapshot_id) &&
        snapshot->timestamp_ms >= expire_older_than)
      retain.insert(snapshot->snapshot_id);
  }
  for (const auto& snapshot : base.snapshots) {
    if (!retain.count(snapshot->snapshot_id)) plan.expire.insert(snapshot->snapshot_id);
  }
  return plan;
}

// iceberg-java's ReachableFileCleanup: what only the snapshots of `before` that are gone
// from `after` reached. Files that are not the table's own (outside its folders, or
// another table's) are set aside, never deleted; finding out needs `tables`, the other
// tables of the catalog (loaded when there is something to delete).
arrow::Status PlanCleanup(FileIO& io, const TableMetadata& before,
                          const TableMetadata& after,
                          const std::function<arrow::Result<CatalogTables*>()>& tables,
                          ExpireSnapshotsReport* report) {
  std::set<int64_t> kept_ids;
  for (const auto& snapshot : after.snapshots) kept_ids.insert(snapshot->snapshot_id);
  std::set<std::string> lists, candidates, current, data, statistics;
  std::set<int64_t> expired_ids;
  for (const auto& snapshot : before.snapshots) {
    if (kept_ids.count(snapshot->snapshot_id)) continue;
    expired_ids.insert(snapshot->snapshot_id);
    if (!snapshot->manifest_list.empty()) lists.insert(snapshot->manifest_list);
    ARROW_ASSIGN_OR_RAISE(auto manifests, SnapshotManifestPaths(io, *snapshot));
    candidates.insert(manifests.begin(), manifests.end());
  }
  for (const auto& snapshot : after.snapshots) {
    ARROW_ASSIGN_OR_RAISE(auto manifests, SnapshotManifestPaths(io, *snapshot));
    for (const auto& manifest : manifests) {
      candidates.erase(manifest);
      current.insert(manifest);
    }
  }
  if (!candidates.empty()) {
    for (const auto& manifest : candidates) {
      ARROW_ASSIGN_OR_RAISE(auto files,
                            ManifestEntryPaths(io, manifest, /*live_only=*/true));
      data.insert(files.begin(), files.end());
    }
    for (const auto& manifest : current) {
      if (data.empty()) break;
      ARROW_ASSIGN_OR_RAISE(auto files,
                            ManifestEntryPaths(io, manifest, /*live_only=*/true));
      for (const auto& file : files) data.erase(file);
    }
  }
  auto statistics_json = nlohmann::json::parse(before.statistics_json, nullptr, false);
  if (statistics_json.is_array()) {
    for (const auto& item : statistics_json) {
      if (item.is_object() && item.value("snapshot-id", int64_t{-1}) >= 0 &&
          expired_ids.count(item.value("snapshot-id", int64_t{-1})) &&
          item.contains("statistics-path") && item["statistics-path"].is_string()) {
        statistics.insert(item["statistics-path"].get<std::string>());
      }
    }
  }
  const TableFolders folders = TableFolders::Of(before);
  CatalogTables* others = nullptr;
  const std::set<std::string>* referenced_by_others = nullptr;
  if (!data.empty() || !candidates.empty() || !lists.empty() || !statistics.empty()) {
    ARROW_ASSIGN_OR_RAISE(others, tables());
    ARROW_ASSIGN_OR_RAISE(referenced_by_others, others->ReferencedByOthers());
  }
  auto sort_into = [&](const std::set<std::string>& files,
                       std::vector<std::string>* out) {
    for (const auto& file : files) {
      if (folders.Contains(file) && !others->OwnerOtherThanSelf(file, folders) &&
          !referenced_by_others->count(CanonicalLocation(file))) {
        out->push_back(file);
      } else {
        report->kept_outside.push_back(file);
      }
    }
  };
  sort_into(data, &report->data_files);
  sort_into(candidates, &report->manifests);
  sort_into(lists, &report->manifest_lists);
  sort_into(statistics, &report->statistics_files);
  return arrow::Status::OK();
}

// The metadata of `base` without the snapshots and refs `plan` expires; `trimmed`, when
// given, receives the metadata log entries the build drops.
TableMetadataPtr UpdatedFrom(const Table& table, const TableState& base,
                             const ExpirePlan& plan,
                             std::vector<MetadataLogEntry>* trimmed) {
  TableMetadataBuilder builder(*base.metadata, base.metadata_location,
                               table.catalog()->env());
  for (const auto& name : plan.removed_refs) builder.RemoveRef(name);
  builder.RemoveSnapshots(std::vector<int64_t>(plan.expire.begin(), plan.expire.end()));
  return builder.Build(trimmed);
}

// Commits the expiration, planned afresh on each attempt (retried on commit conflicts):
// `plan` and `before` are those of the last attempt, `report` gets its state and the
// attempts made.
arrow::Status CommitExpiration(const Table& table, const ExpireSnapshotsOptions& options,
                               int64_t now, ExpirePlan* plan, TableMetadataPtr* before,
                               ExpireSnapshotsReport* report) {
  CommitTarget target = table.commit_target();
  TableState base = table.state();
  arrow::Status status = RetryOnCommitFailed(
      target, RetryPolicy::FromProperties(table.metadata()->properties), &base,
      [&](const TableState& current, int) -> arrow::Status {
        ARROW_ASSIGN_OR_RAISE(
            *plan, PlanExpiration(*current.metadata, table.id(), options, now));
        *before = current.metadata;
        if (plan->empty()) return arrow::Status::OK();
        std::vector<MetadataLogEntry> trimmed;
        auto updated = UpdatedFrom(table, current, *plan, &trimmed);
        ARROW_ASSIGN_OR_RAISE(report->state,
                              target.catalog->CommitTable(table.id(), current, *updated));
        DeleteTrimmedMetadataFiles(*target.io, *report->state.metadata, trimmed);
        return arrow::Status::OK();
      },
      &report->attempts);
  if (!status.ok()) {
    // After CommitStateUnknown the expiration may have happened: delete nothing.
    return WithContext(status, "expiring snapshots of " + table.id().ToString());
  }
  return arrow::Status::OK();
}

// Lists in `report`, ascending, the snapshots of `before` that `after` no longer has.
void ListExpired(const TableMetadata& before, const TableMetadata& after,
                 ExpireSnapshotsReport* report) {
  for (const auto& snapshot : before.snapshots) {
    if (!after.SnapshotById(snapshot->snapshot_id))
      report->expired.push_back(snapshot->snapshot_id);
  }
  std::sort(report->expired.begin(), report->expired.end());
}

// Plans the cleanup of what only the expired snapshots reached and, unless `dry_run`,
// deletes those files. A cleanup that cannot be planned leaves every file (the report
// says why) and is no error.
arrow::Status CleanExpiredFiles(const Table& table, const TableMetadata& before,
                                const TableMetadata& after, bool dry_run,
                                ExpireSnapshotsReport* report) {
  std::optional<CatalogTables> catalog_tables;
  auto load_tables = [&]() -> arrow::Result<CatalogTables*> {
    if (!catalog_tables) {
      ARROW_ASSIGN_OR_RAISE(catalog_tables,
                            CatalogTables::Load(table.catalog(), table.id()));
    }
    return &*catalog_tables;
  };
  auto planned = PlanCleanup(*table.io(), before, after, load_tables, report);
  if (!planned.ok()) {
    report->data_files.clear();
    report->manifests.clear();
    report->manifest_lists.clear();
    report->statistics_files.clear();
    report->kept_outside.clear();
    report->cleanup_error = planned.message();
    Log(LogLevel::kWarning, "expired snapshots of " + table.id().ToString() +
                                " but deleted no files: " + planned.message());
    return arrow::Status::OK();
  }
  for (const auto& file : report->kept_outside) {
    Log(LogLevel::kInfo, "not deleting " + file + ": it is not a file of " +
                             table.id().ToString() + "'s own folders");
  }
  if (dry_run) return arrow::Status::OK();
  const TableFolders folders = TableFolders::Of(before);
  std::vector<std::string> files;
  for (const auto* kind : {&report->data_files, &report->manifests,
                           &report->manifest_lists, &report->statistics_files}) {
    files.insert(files.end(), kind->begin(), kind->end());
  }
  // Never through a symbolic link: a link planted in a folder cannot redirect this.
  ARROW_ASSIGN_OR_RAISE(size_t failures, folders.DeleteFiles(*table.io(), files, ""));
  report->delete_failures += static_cast<int64_t>(failures);
  return arrow::Status::OK();
}

}  // namespace

arrow::Result<ExpireSnapshotsReport> ExpireSnapshots(
    const Table& table, const ExpireSnapshotsOptions& options) {
  ExpireSnapshotsReport report;
  report.state = table.state();
  const TableMetadata& start = *table.metadata();
  if (!properties::kGcEnabled.Get(start.properties)) {
    return MakeError(ErrorKind::kValidationFailed,
                     "cannot expire snapshots of " + table.id().ToString() +
                         ": property gc.enabled is false (deleting files may corrupt "
                         "other tables)");
  }
  const int64_t now = table.catalog()->env()->NowMillis();
  TableMetadataPtr before = table.metadata();
  TableMetadataPtr after;
  ExpirePlan plan;
  if (options.dry_run) {
    ARROW_ASSIGN_OR_RAISE(plan, PlanExpiration(start, table.id(), options, now));
    if (plan.empty()) return report;
    after = UpdatedFrom(table, table.state(), plan, nullptr);
  } else {
    ARROW_RETURN_NOT_OK(CommitExpiration(table, options, now, &plan, &before, &report));
    if (plan.empty()) {
      report.attempts = 0;
      return report;
    }
    // Like iceberg-java, clean against a fresh view: snapshots committed since still
    // protect what they reach.
    auto refreshed = table.catalog()->LoadTable(table.id());
    after = refreshed.ok() ? refreshed->metadata : report.state.metadata;
    if (refreshed.ok()) report.state = *refreshed;
  }
  ListExpired(*before, *after, &report);
  report.removed_refs = plan.removed_refs;
  if (!options.clean_files) return report;
  ARROW_RETURN_NOT_OK(
      CleanExpiredFiles(table, *before, *after, options.dry_run, &report));
  return report;
}

}  // namespace floe::iceberg
