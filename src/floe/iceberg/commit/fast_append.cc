#include "floe/iceberg/commit/fast_append.h"

#include "floe/iceberg/transform/partition_path.h"
#include "floe/util/error.h"

namespace floe::iceberg {

arrow::Result<std::vector<ManifestFile>> FastAppend::Apply(const TableMetadata& base,
                                                           const Snapshot* parent) {
  if (!new_manifests_) {
    ARROW_ASSIGN_OR_RAISE(new_manifests_, WriteAddedManifests(base, files_));
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

}  // namespace floe::iceberg
