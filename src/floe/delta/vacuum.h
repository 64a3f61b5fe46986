// VACUUM of a path-based Delta table: deletes the data files in the table's folder that
// no version within the retention period can need, as delta-spark's VACUUM chooses them
// (not referenced by the latest snapshot, not removed within
// delta.deletedFileRetentionDuration, last modified before it), and only those that are
// the table's own: never a symbolic link, never a file of a table nested in this one's
// folder, never a hidden path (`_delta_log`, `_change_data`, `.crc` files), and only
// names Delta writers give data files (`*.parquet`) unless asked otherwise. A log that
// names a missing data file deletes nothing.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "arrow/result.h"
#include "floe/delta/log.h"
#include "floe/io/file_io.h"
#include "floe/util/env.h"

namespace floe::delta {

struct VacuumOptions {
  /// How long removed files stay; the table's delta.deletedFileRetentionDuration (a
  /// week) when unset. Shorter than the table's is refused unless `check_retention` is
  /// false (delta-spark's spark.databricks.delta.retentionDurationCheck.enabled).
  std::optional<int64_t> retention_ms;
  bool check_retention = true;
  /// List what would be deleted; delete nothing.
  bool dry_run = false;
  /// Also files whose names Delta writers never give (not `*.parquet`).
  bool any_name = false;
  Env* env = Env::Default();
};

/// A file vacuum left in place, and why.
struct KeptFile {
  std::string location;
  std::string reason;
};

struct VacuumResult {
  int64_t version = -1;  ///< The snapshot the files were compared with.
  int64_t retention_ms = 0;
  /// Deleted (or, with dry_run, to delete), in location order.
  std::vector<FileInfo> deleted;
  int64_t bytes = 0;
  /// Unreferenced files left alone because they are not the table's to delete, or too
  /// young.
  std::vector<KeptFile> kept;
  /// Deletes that failed (the file stays), with why.
  std::vector<KeptFile> failed;
};

/// Vacuums the Delta table at `table_root`. InvalidInput for a catalog-managed table
/// (only its catalog may allow maintenance) or a retention shorter than the table's;
/// NotSupported naming a reader or writer feature vacuum does not know (the
/// vacuumProtocolCheck rule: a feature may reference files another way); InvalidMetadata
/// when the latest snapshot names a data file below the root that is missing.
arrow::Result<VacuumResult> Vacuum(const std::shared_ptr<FileIO>& io,
                                   const std::string& table_root,
                                   const VacuumOptions& options = {});

}  // namespace floe::delta
