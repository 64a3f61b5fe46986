#include "floe/commit/fast_append.h"

#include <map>

#include "floe/transform/partition_path.h"
#include "floe/util/error.h"

namespace floe {

arrow::Result<std::vector<ManifestFile>> FastAppend::Apply(const TableMetadata& base,
                                                           const Snapshot* parent) {
  if (!new_manifests_) {
    std::map<int, std::vector<ManifestEntry>> by_spec;
    for (const auto& file : files_) {
      ManifestEntry entry;
      entry.status = EntryStatus::kAdded;
      entry.snapshot_id = snapshot_id();
      entry.data_file = file;
      by_spec[file.spec_id].push_back(std::move(entry));
    }
    std::vector<ManifestFile> written;
    for (const auto& [spec_id, entries] : by_spec) {
      auto spec = base.SpecById(spec_id);
      if (spec == nullptr) {
        return MakeError(ErrorKind::kValidationFailed,
                         "cannot append to " + target().id.ToString() +
                             ": partition spec " + std::to_string(spec_id) +
                             " is not in the table");
      }
      ARROW_ASSIGN_OR_RAISE(auto manifest, WriteManifest(base, *spec, entries));
      written.push_back(std::move(manifest));
    }
    new_manifests_ = std::move(written);
  }
  std::vector<ManifestFile> manifests = *new_manifests_;
  if (parent != nullptr) {
    ARROW_ASSIGN_OR_RAISE(auto existing, ManifestsOf(*parent));
    for (auto& manifest : existing) manifests.push_back(std::move(manifest));
  }
  return manifests;
}

void FastAppend::Summarize(const TableMetadata& base, SnapshotSummaryBuilder* summary) {
  auto schema = base.CurrentSchema();
  for (const auto& file : files_) {
    std::string path;
    auto spec = base.SpecById(file.spec_id);
    if (spec != nullptr && !spec->fields().empty()) {
      auto type = spec->PartitionType(*schema);
      if (type.ok()) path = PartitionToPath(*spec, **type, file.partition);
    }
    summary->AddedFile(file, path);
  }
}

}  // namespace floe
