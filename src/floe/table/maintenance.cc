#include "floe/table/maintenance.h"

#include <algorithm>
#include <set>

#include <nlohmann/json.hpp>

#include "floe/manifest/manifest.h"
#include "floe/util/error.h"
#include "floe/util/log.h"

namespace floe {

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
    std::vector<std::string> manifests = snapshot->manifests;
    if (!snapshot->manifest_list.empty()) {
      referenced.insert(CanonicalLocation(snapshot->manifest_list));
      ARROW_ASSIGN_OR_RAISE(std::string bytes, io->ReadAll(snapshot->manifest_list));
      auto list = ReadManifestList(bytes);
      if (!list.ok())
        return WithContext(list.status(), "manifest list " + snapshot->manifest_list);
      for (const auto& manifest : list->manifests)
        manifests.push_back(manifest.manifest_path);
    }
    for (const auto& path : manifests) {
      if (!manifests_seen.insert(path).second) continue;  // shared by later snapshots
      referenced.insert(CanonicalLocation(path));
      ARROW_ASSIGN_OR_RAISE(std::string bytes, io->ReadAll(path));
      auto contents = ReadManifest(bytes);
      if (!contents.ok()) return WithContext(contents.status(), "manifest " + path);
      for (const auto& entry : contents->entries) {
        referenced.insert(CanonicalLocation(entry.data_file.file_path));
      }
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

}  // namespace floe
