// The manifests of a snapshot, and each manifest, read one way everywhere (scans,
// commits, maintenance).
#pragma once

#include <vector>

#include "arrow/result.h"
#include "floe/iceberg/manifest/data_file.h"
#include "floe/iceberg/manifest/manifest.h"
#include "floe/iceberg/spec/snapshot.h"
#include "floe/iceberg/spec/table_metadata.h"

namespace floe {
class FileIO;
}  // namespace floe

namespace floe::iceberg {

/// The manifests of `snapshot` as iceberg-java's BaseSnapshot reads them: the entries of
/// its manifest list; for a format-v1 snapshot without one, the manifests its
/// "manifests" field names, each as a data manifest of spec 0 added by the snapshot with
/// sequence number 0, its length from storage and its counts unknown. An unreadable list
/// gives its error naming the list.
arrow::Result<std::vector<ManifestFile>> ReadSnapshotManifests(FileIO& io,
                                                               const Snapshot& snapshot);

/// One manifest of a table read whole: partition tuples typed by the table's spec of the
/// manifest (`metadata`'s schema), the manifest's metadata inherited by its entries
/// (InheritManifestMetadata with `committed`). `spec` is the table's spec when it has the
/// manifest's, else the one the manifest's header gives (null when neither). Errors name
/// the manifest.
arrow::Result<ManifestContents> ReadTableManifest(FileIO& io,
                                                  const TableMetadata& metadata,
                                                  const ManifestFile& manifest,
                                                  bool committed = true);

}  // namespace floe::iceberg
