// Table maintenance: expiring snapshots and removing files that no snapshot or metadata
// file references.
#pragma once

#include <cstdint>
#include <optional>
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

/// What to expire (iceberg-java's ExpireSnapshots). Unset values come from the table's
/// history.expire.* properties, as in iceberg-java.
struct ExpireSnapshotsOptions {
  /// Snapshots older than now minus this may expire (history.expire.max-snapshot-age-ms,
  /// default 5 days; a branch's own max-snapshot-age-ms wins for its ancestors).
  std::optional<int64_t> older_than_ms;
  /// Each branch keeps at least this many of its newest ancestors
  /// (history.expire.min-snapshots-to-keep, default 1; at least 1).
  std::optional<int> retain_last;
  /// Also expire these snapshots, whatever their age (never a branch or tag head).
  std::vector<int64_t> snapshot_ids;
  /// Delete the files only the expired snapshots reached (iceberg-java's
  /// cleanExpiredFiles, on by default).
  bool clean_files = true;
  /// Say what would expire and be deleted, and change nothing.
  bool dry_run = false;
};

struct ExpireSnapshotsReport {
  std::vector<int64_t> expired;           ///< Snapshot ids, ascending.
  std::vector<std::string> removed_refs;  ///< Branches and tags past their max ref age.
  /// Files deleted (or, on a dry run, that would be): reachable only from expired
  /// snapshots and under the table location.
  std::vector<std::string> data_files, manifests, manifest_lists, statistics_files;
  /// Files reachable only from expired snapshots but outside the table location: never
  /// deleted (another table may own them).
  std::vector<std::string> kept_outside;
  int64_t delete_failures = 0;  ///< Deletes that failed (logged; the files are orphans).
  /// Set when the commit succeeded but finding the files to delete failed: nothing was
  /// deleted, and remove-orphans can collect the files later.
  std::string cleanup_error;
  TableState state;  ///< The table afterwards (unchanged on a dry run).
  int attempts = 0;  ///< Commit attempts (0 when nothing expired or on a dry run).
};

/// Expires snapshots as iceberg-java's ExpireSnapshots does: refs older than their max
/// ref age are removed (never main); each remaining branch keeps its ancestors newer than
/// the age limit and at least `retain_last` of them; snapshots on no branch are kept
/// while younger than the limit; explicitly named snapshots expire. The new metadata is
/// committed with refresh-and-retry; then the manifest lists, manifests, data and delete
/// files and statistics files that only expired snapshots reached are deleted, except
/// any outside the table's own location. Fails with ValidationFailed when gc.enabled is
/// false, naming the property.
arrow::Result<ExpireSnapshotsReport> ExpireSnapshots(
    const Table& table, const ExpireSnapshotsOptions& options);

}  // namespace floe
