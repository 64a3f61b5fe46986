#include "floe/table/maintenance.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "floe/commit/snapshot_producer.h"
#include "floe/manifest/manifest.h"
#include "floe/util/error.h"
#include "floe/util/log.h"

namespace floe {
namespace {

/// The manifests a snapshot lists (its manifest list, or the inline list of an old v1
/// snapshot).
arrow::Result<std::vector<std::string>> ManifestPaths(FileIO& io,
                                                      const Snapshot& snapshot) {
  std::vector<std::string> manifests = snapshot.manifests;
  if (!snapshot.manifest_list.empty()) {
    ARROW_ASSIGN_OR_RAISE(std::string bytes, io.ReadAll(snapshot.manifest_list));
    auto list = ReadManifestList(bytes);
    if (!list.ok()) {
      return WithContext(list.status(), "manifest list " + snapshot.manifest_list);
    }
    for (const auto& manifest : list->manifests)
      manifests.push_back(manifest.manifest_path);
  }
  return manifests;
}

/// Every file a manifest's entries name; with `live_only`, only added and existing ones
/// (iceberg-java's ManifestFiles.readPaths).
arrow::Result<std::vector<std::string>> EntryPaths(FileIO& io,
                                                   const std::string& manifest,
                                                   bool live_only) {
  ARROW_ASSIGN_OR_RAISE(std::string bytes, io.ReadAll(manifest));
  auto contents = ReadManifest(bytes);
  if (!contents.ok()) return WithContext(contents.status(), "manifest " + manifest);
  std::vector<std::string> paths;
  for (const auto& entry : contents->entries) {
    if (live_only && entry.status == EntryStatus::kDeleted) continue;
    paths.push_back(entry.data_file.file_path);
  }
  return paths;
}

}  // namespace

arrow::Result<std::vector<std::string>> ReferencedLocations(const Table& table) {
  const TableMetadata& metadata = *table.metadata();
  auto io = table.io();
  std::set<std::string> referenced;
  referenced.insert(CanonicalLocation(table.state().metadata_location));
  for (const auto& entry : metadata.metadata_log)
    referenced.insert(CanonicalLocation(entry.metadata_file));
  for (const auto& raw : {metadata.statistics_json, metadata.partition_statistics_json}) {
    auto statistics = nlohmann::json::parse(raw, nullptr, false);
    if (!statistics.is_array()) continue;
    for (const auto& item : statistics) {
      if (item.is_object() && item.contains("statistics-path") &&
          item["statistics-path"].is_string()) {
        referenced.insert(CanonicalLocation(item["statistics-path"].get<std::string>()));
      }
    }
  }
  std::set<std::string> manifests_seen;
  for (const auto& snapshot : metadata.snapshots) {
    if (!snapshot->manifest_list.empty())
      referenced.insert(CanonicalLocation(snapshot->manifest_list));
    ARROW_ASSIGN_OR_RAISE(auto manifests, ManifestPaths(*io, *snapshot));
    for (const auto& path : manifests) {
      if (!manifests_seen.insert(path).second) continue;  // shared by later snapshots
      referenced.insert(CanonicalLocation(path));
      ARROW_ASSIGN_OR_RAISE(auto files, EntryPaths(*io, path, /*live_only=*/false));
      for (const auto& file : files) referenced.insert(CanonicalLocation(file));
    }
  }
  return std::vector<std::string>(referenced.begin(), referenced.end());
}

arrow::Result<OrphanFilesReport> RemoveOrphanFiles(const Table& table,
                                                   int64_t older_than_ms, bool dry_run) {
  OrphanFilesReport report;
  ARROW_ASSIGN_OR_RAISE(auto referenced_list, ReferencedLocations(table));
  std::set<std::string> referenced(referenced_list.begin(), referenced_list.end());
  report.referenced = static_cast<int64_t>(referenced.size());
  const std::string& location = table.metadata()->location;
  ARROW_ASSIGN_OR_RAISE(auto files, table.io()->List(location));
  report.listed = static_cast<int64_t>(files.size());
  const int64_t cutoff = NowMillis() - older_than_ms;
  for (auto& file : files) {
    if (!IsLocationUnder(file.location, location)) continue;  // never outside the table
    std::string canonical = CanonicalLocation(file.location);
    if (referenced.count(canonical)) continue;
    // The Hadoop-layout version hint is metadata of the table itself.
    if (canonical.size() >= 18 &&
        canonical.compare(canonical.size() - 18, 18, "/version-hint.text") == 0) {
      continue;
    }
    if (file.modified_ms > cutoff) {
      ++report.too_recent;
      continue;
    }
    report.orphans.push_back(std::move(file));
  }
  if (!dry_run) {
    for (const auto& orphan : report.orphans) {
      auto status = table.io()->Delete(orphan.location);
      if (!status.ok() && KindOf(status) != ErrorKind::kNotFound) {
        ++report.delete_failures;
        Log(LogLevel::kWarning,
            "could not delete orphan file " + orphan.location + ": " + status.message());
      }
    }
  }
  return report;
}

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
      std::string names;
      for (const auto& name : found->second) names += (names.empty() ? "" : ", ") + name;
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
// from `after` reached. Files outside the table location are set aside, never deleted.
arrow::Status PlanCleanup(FileIO& io, const TableMetadata& before,
                          const TableMetadata& after, ExpireSnapshotsReport* report) {
  std::set<int64_t> kept_ids;
  for (const auto& snapshot : after.snapshots) kept_ids.insert(snapshot->snapshot_id);
  std::set<std::string> lists, candidates, current, data, statistics;
  std::set<int64_t> expired_ids;
  for (const auto& snapshot : before.snapshots) {
    if (kept_ids.count(snapshot->snapshot_id)) continue;
    expired_ids.insert(snapshot->snapshot_id);
    if (!snapshot->manifest_list.empty()) lists.insert(snapshot->manifest_list);
    ARROW_ASSIGN_OR_RAISE(auto manifests, ManifestPaths(io, *snapshot));
    candidates.insert(manifests.begin(), manifests.end());
  }
  for (const auto& snapshot : after.snapshots) {
    ARROW_ASSIGN_OR_RAISE(auto manifests, ManifestPaths(io, *snapshot));
    for (const auto& manifest : manifests) {
      candidates.erase(manifest);
      current.insert(manifest);
    }
  }
  if (!candidates.empty()) {
    for (const auto& manifest : candidates) {
      ARROW_ASSIGN_OR_RAISE(auto files, EntryPaths(io, manifest, /*live_only=*/true));
      data.insert(files.begin(), files.end());
    }
    for (const auto& manifest : current) {
      if (data.empty()) break;
      ARROW_ASSIGN_OR_RAISE(auto files, EntryPaths(io, manifest, /*live_only=*/true));
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
  auto sort_into = [&](const std::set<std::string>& files,
                       std::vector<std::string>* out) {
    for (const auto& file : files) {
      if (IsLocationUnder(file, before.location)) {
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
  const int64_t now = NowMillis();
  auto updated_from = [&](const TableState& base, const ExpirePlan& plan,
                          std::vector<MetadataLogEntry>* trimmed) {
    TableMetadataBuilder builder(*base.metadata, base.metadata_location);
    for (const auto& name : plan.removed_refs) builder.RemoveRef(name);
    builder.RemoveSnapshots(std::vector<int64_t>(plan.expire.begin(), plan.expire.end()));
    return builder.Build(trimmed);
  };

  TableMetadataPtr before = table.metadata();
  TableMetadataPtr after;
  ExpirePlan plan;
  if (options.dry_run) {
    ARROW_ASSIGN_OR_RAISE(plan, PlanExpiration(start, table.id(), options, now));
    if (plan.empty()) return report;
    after = updated_from(table.state(), plan, nullptr);
  } else {
    CommitTarget target{table.catalog(), table.id(), table.io()};
    TableState base = table.state();
    arrow::Status status = RetryOnCommitFailed(
        target, RetryPolicy::FromProperties(start.properties), &base,
        [&](const TableState& current, int) -> arrow::Status {
          ARROW_ASSIGN_OR_RAISE(
              plan, PlanExpiration(*current.metadata, table.id(), options, now));
          before = current.metadata;
          if (plan.empty()) return arrow::Status::OK();
          std::vector<MetadataLogEntry> trimmed;
          auto updated = updated_from(current, plan, &trimmed);
          ARROW_ASSIGN_OR_RAISE(
              report.state, target.catalog->CommitTable(table.id(), current, *updated));
          DeleteTrimmedMetadataFiles(*target.io, *report.state.metadata, trimmed);
          return arrow::Status::OK();
        },
        &report.attempts);
    if (!status.ok()) {
      // After CommitStateUnknown the expiration may have happened: delete nothing.
      return WithContext(status, "expiring snapshots of " + table.id().ToString());
    }
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
  for (const auto& snapshot : before->snapshots) {
    if (!after->SnapshotById(snapshot->snapshot_id))
      report.expired.push_back(snapshot->snapshot_id);
  }
  std::sort(report.expired.begin(), report.expired.end());
  report.removed_refs = plan.removed_refs;
  if (!options.clean_files) return report;
  auto planned = PlanCleanup(*table.io(), *before, *after, &report);
  if (!planned.ok()) {
    report.data_files.clear();
    report.manifests.clear();
    report.manifest_lists.clear();
    report.statistics_files.clear();
    report.kept_outside.clear();
    report.cleanup_error = planned.message();
    Log(LogLevel::kWarning, "expired snapshots of " + table.id().ToString() +
                                " but deleted no files: " + planned.message());
    return report;
  }
  for (const auto& file : report.kept_outside) {
    Log(LogLevel::kInfo, "not deleting " + file + ": it is outside the location of " +
                             table.id().ToString());
  }
  if (options.dry_run) return report;
  for (const auto* files : {&report.data_files, &report.manifests, &report.manifest_lists,
                            &report.statistics_files}) {
    for (const auto& file : *files) {
      auto status = table.io()->Delete(file);
      if (!status.ok() && KindOf(status) != ErrorKind::kNotFound) {
        ++report.delete_failures;
        Log(LogLevel::kWarning, "could not delete " + file + ": " + status.message());
      }
    }
  }
  return report;
}

}  // namespace floe
