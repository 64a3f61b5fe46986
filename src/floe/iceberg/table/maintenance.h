// Table maintenance: expiring snapshots (remove-orphans is in orphan_files.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "floe/iceberg/table/table.h"

namespace floe::iceberg {

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
  /// snapshots and in the table's data or metadata folder.
  std::vector<std::string> data_files, manifests, manifest_lists, statistics_files;
  /// Files reachable only from expired snapshots but not the table's own: outside its
  /// folders, or another table's (below its folders or a table location nested in this
  /// one's, or referenced by it), or the catalog's. Never deleted.
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
/// any that is not the table's own (see ExpireSnapshotsReport::kept_outside). Fails
/// with ValidationFailed when gc.enabled is false, naming the property.
arrow::Result<ExpireSnapshotsReport> ExpireSnapshots(
    const Table& table, const ExpireSnapshotsOptions& options);

}  // namespace floe::iceberg
