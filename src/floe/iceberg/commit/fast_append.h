// Appending data files: new manifests for the files, kept on top of the parent's
// manifests (iceberg-java's FastAppend). Appends never conflict: they always rebase.
#pragma once

#include <optional>
#include <vector>

#include "floe/iceberg/commit/snapshot_producer.h"

namespace floe::iceberg {

class FastAppend final : public SnapshotProducer {
 public:
  /// `merge`: behave as iceberg-java's MergeAppend (table.newAppend(), what its Spark
  /// writer commits), merging manifests under commit.manifest-merge.enabled; otherwise as
  /// its FastAppend (newFastAppend()), which carries every manifest as it is.
  explicit FastAppend(CommitTarget target, bool merge = false)
      : SnapshotProducer(std::move(target)), merge_(merge) {}

  void AddDataFile(DataFile file) override { files_.push_back(std::move(file)); }
  size_t file_count() const { return files_.size(); }

 protected:
  std::string Operation() const override { return operations::kAppend; }
  bool MergesManifests() const override { return merge_; }
  arrow::Result<std::vector<ManifestFile>> Apply(const TableMetadata& base,
                                                 const Snapshot* parent) override;
  void Summarize(const TableMetadata& base, SnapshotSummaryBuilder* summary) override;
  std::vector<std::string> AddedFileLocations() const override {
    std::vector<std::string> locations;
    for (const auto& file : files_) locations.push_back(file.file_path);
    return locations;
  }

 private:
  bool merge_;
  std::vector<DataFile> files_;
  /// The manifests holding the new files, written on the first attempt and reused.
  std::optional<std::vector<ManifestFile>> new_manifests_;
};

}  // namespace floe::iceberg
