#include "floe/iceberg/manifest/snapshot_manifests.h"

#include "arrow/io/interfaces.h"
#include "floe/iceberg/manifest/manifest.h"
#include "floe/io/file_io.h"
#include "floe/util/error.h"

namespace floe::iceberg {

arrow::Result<std::vector<ManifestFile>> ReadSnapshotManifests(FileIO& io,
                                                               const Snapshot& snapshot) {
  if (!snapshot.manifest_list.empty()) {
    // ReadAll's errors name the list already.
    ARROW_ASSIGN_OR_RAISE(std::string bytes, io.ReadAll(snapshot.manifest_list));
    auto list = ReadManifestList(bytes);
    if (!list.ok())
      return WithContext(list.status(), "manifest list " + snapshot.manifest_list);
    return std::move(list->manifests);
  }
  std::vector<ManifestFile> manifests;
  for (const auto& path : snapshot.manifests) {
    ManifestFile manifest;
    manifest.manifest_path = path;
    auto file = io.OpenInput(path);
    if (!file.ok()) return WithContext(file.status(), "manifest " + path);
    auto length = (*file)->GetSize();
    if (!length.ok()) return WithContext(length.status(), "manifest " + path);
    manifest.manifest_length = *length;
    manifest.partition_spec_id = 0;
    manifest.content = ManifestContent::kData;
    manifest.sequence_number = 0;
    manifest.min_sequence_number = 0;
    manifest.added_snapshot_id = snapshot.snapshot_id;
    manifests.push_back(std::move(manifest));
  }
  return manifests;
}

arrow::Result<ManifestContents> ReadTableManifest(FileIO& io,
                                                  const TableMetadata& metadata,
                                                  const ManifestFile& manifest,
                                                  bool committed) {
  ARROW_ASSIGN_OR_RAISE(std::string bytes, io.ReadAll(manifest.manifest_path));
  auto spec = metadata.SpecById(manifest.partition_spec_id);
  std::shared_ptr<const StructType> partition_type;
  if (spec) {
    auto type = spec->PartitionType(*metadata.CurrentSchema());
    if (type.ok()) partition_type = *type;
  }
  auto contents = ReadManifest(bytes, partition_type.get());
  if (!contents.ok())
    return WithContext(contents.status(), "manifest " + manifest.manifest_path);
  if (spec) contents->spec = std::move(spec);
  InheritManifestMetadata(manifest, metadata.format_version, &contents->entries,
                          committed);
  return contents;
}

}  // namespace floe::iceberg
