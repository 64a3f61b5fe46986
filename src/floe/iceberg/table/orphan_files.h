// remove-orphans: deleting the files in a table's folders that nothing references,
// without ever deleting a file that is not the table's own.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "floe/iceberg/table/table.h"

namespace floe::iceberg {

/// The shortest age remove-orphans accepts unless the caller says no write is running
/// (RemoveOrphanFilesOptions::no_concurrent_writes): iceberg-java's Spark procedure
/// remove_orphan_files refuses an interval under 24 hours, which "may corrupt the table
/// if other operations are happening at the same time": a running write's files are
/// unreferenced until it commits.
inline constexpr int64_t kMinOrphanAgeMs = int64_t{24} * 3600 * 1000;

struct RemoveOrphanFilesOptions {
  /// Only files last modified longer ago than this are orphans, so commits in flight
  /// are safe (iceberg-java's default: 3 days). Less than kMinOrphanAgeMs is refused
  /// unless `no_concurrent_writes`; a negative age always is.
  int64_t older_than_ms = int64_t{3} * 24 * 3600 * 1000;
  /// The caller vouches that no write to the table is running, allowing an age under
  /// kMinOrphanAgeMs (a commit then fails instead of publishing a deleted file, see
  /// SnapshotProducer, but the write is lost).
  bool no_concurrent_writes = false;
  /// List, delete nothing.
  bool dry_run = false;
  /// Also take unreferenced files whose names Iceberg writers never give (a user's
  /// notes, another program's output); by default they are kept and counted.
  bool any_name = false;
};

/// What remove-orphans found (and, unless a dry run, deleted).
struct OrphanFilesReport {
  std::vector<FileInfo> orphans;     ///< Sorted by location.
  std::vector<std::string> folders;  ///< The folders listed (data and metadata).
  int64_t referenced = 0;            ///< Files the table's metadata references.
  int64_t listed = 0;                ///< Files (and links) found in the folders.
  int64_t too_recent = 0;  ///< Unreferenced but younger than the threshold (kept).
  /// Unreferenced, kept: names no Iceberg writer gives (see IsIcebergDataFileName),
  /// unless RemoveOrphanFilesOptions::any_name.
  int64_t unrecognised = 0;
  int64_t hidden = 0;          ///< Unreferenced, kept: hidden paths (see IsHiddenPath).
  int64_t symbolic_links = 0;  ///< Never followed, never deleted.
  /// Unreferenced by this table, kept: the catalog's, or another table's (below its
  /// folders, below a table location nested in this one's, or referenced by it).
  int64_t other_tables = 0;
  int64_t delete_failures = 0;  ///< Orphans that could not be deleted (logged).
};

/// Every location the table's metadata reaches: current and logged metadata files, every
/// snapshot's manifest list, manifests and the data and delete files their entries name
/// (live or not), and statistics files. Locations are canonical (see CanonicalLocation).
arrow::Result<std::vector<std::string>> ReferencedLocations(const Table& table);

/// Lists the table's data and metadata folders (never following a symbolic link) and
/// deletes the files there that nothing references, that Iceberg writers would have
/// written (see IsIcebergDataFileName) and that are older than the threshold, unless a
/// dry run. Before it lists anything it refuses (InvalidInput, naming the reason, having
/// deleted nothing) when:
///  - the age is negative, or under kMinOrphanAgeMs without no_concurrent_writes;
///  - the table location is or holds the warehouse root, a folder holds the catalog's
///    files, overlaps another table's folders or holds another table's location, or a
///    folder (or the location above it) is a symbolic link;
///  - another table of the catalog cannot be loaded;
///  - the metadata lies or is corrupt: the current metadata file is not in the metadata
///    folder, or a file a snapshot needs (manifest list, manifest, live data or delete
///    file) is missing or outside the table's folders.
/// Files another table references or holds, and the catalog's files, are never orphans.
arrow::Result<OrphanFilesReport> RemoveOrphanFiles(
    const Table& table, const RemoveOrphanFilesOptions& options);

}  // namespace floe::iceberg
