// Table maintenance: removing files that no snapshot or metadata file references.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "floe/table/table.h"

namespace floe {

/// What remove-orphans found (and, unless a dry run, deleted).
struct OrphanFilesReport {
  std::vector<FileInfo> orphans;  ///< Sorted by location.
  int64_t referenced = 0;         ///< Files the table's metadata references.
  int64_t listed = 0;             ///< Files found under the table location.
  int64_t too_recent = 0;         ///< Unreferenced but younger than the threshold (kept).
  int64_t delete_failures = 0;    ///< Orphans that could not be deleted (logged).
};

/// Every location the table's metadata reaches: current and logged metadata files, every
/// snapshot's manifest list, manifests and the data and delete files their entries name
/// (live or not), and statistics files. Locations are canonical (see CanonicalLocation).
arrow::Result<std::vector<std::string>> ReferencedLocations(const Table& table);

/// Lists the files under the table's own location that the table does not reference and
/// that were last modified more than `older_than_ms` ago, and deletes them unless
/// `dry_run`. Nothing outside the table location is ever listed or deleted; files younger
/// than the threshold are kept, so commits in flight are safe.
arrow::Result<OrphanFilesReport> RemoveOrphanFiles(const Table& table,
                                                   int64_t older_than_ms, bool dry_run);

}  // namespace floe
