// The manifests of a snapshot, read one way everywhere (scans, commits, maintenance).
#pragma once

#include <vector>

#include "arrow/result.h"
#include "floe/manifest/data_file.h"
#include "floe/spec/snapshot.h"

namespace floe {

class FileIO;

/// The manifests of `snapshot` as iceberg-java's BaseSnapshot reads them: the entries of
/// its manifest list; for a format-v1 snapshot without one, the manifests its
/// "manifests" field names, each as a data manifest of spec 0 added by the snapshot with
/// sequence number 0, its length from storage and its counts unknown. An unreadable list
/// gives its error naming the list.
arrow::Result<std::vector<ManifestFile>> ReadSnapshotManifests(FileIO& io,
                                                               const Snapshot& snapshot);

}  // namespace floe
