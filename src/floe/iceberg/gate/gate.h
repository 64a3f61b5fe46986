// The eligibility gate: decides at plan time, before any file exists, whether floe can
// write a table the way iceberg-java would. It is an allow list: anything not known to be
// reproduced declines, with reasons that name properties (never their values).
#pragma once

#include <string>
#include <vector>

#include "floe/iceberg/spec/table_metadata.h"
#include "floe/iceberg/spec/table_properties.h"

namespace floe::iceberg {

/// The gate's answer. `reasons` is empty exactly when the write is supported; reasons are
/// sorted.
struct GateResult {
  std::vector<std::string> reasons;
  bool supported() const { return reasons.empty(); }
  /// "supported" or "unsupported: reason; reason".
  std::string ToString() const;
};

/// Checks a write to `metadata`'s table with per-write `options` overlaid on its
/// properties.
GateResult CheckWrite(const TableMetadata& metadata, const PropertyMap& options);

/// Operations that write existing rows anew (copy-on-write).
enum class RowRewrite {
  kDelete,      ///< A delete (by copy-on-write or merge-on-read, write.delete.mode).
  kCompaction,  ///< `floe rewrite`.
  kUpdate,      ///< An update (by copy-on-write or merge-on-read, write.update.mode).
  kMerge,       ///< An upsert (by copy-on-write or merge-on-read, write.merge.mode).
  /// `floe rewrite --position-deletes`: position delete files written anew (v2) or as
  /// deletion vectors (v3).
  kPositionDeletes,
};

/// CheckWrite, plus the rules a rewrite of existing rows must meet to be what
/// iceberg-java would write: under the operation's mode property (write.delete.mode,
/// write.update.mode, write.merge.mode) merge-on-read on format v1 (no delete files),
/// or with delete files floe does not write (not Parquet, an unknown
/// write.delete.granularity), and an unknown mode are declined; so are such delete files
/// for kPositionDeletes. (On
/// format v3 the rewritten rows keep their `_row_id` and `_last_updated_sequence_number`,
/// written into the new files as iceberg-java writes them:
/// WritePlanOptions::row_lineage.)
GateResult CheckRowRewrite(const TableMetadata& metadata, const PropertyMap& options,
                           RowRewrite kind);

}  // namespace floe::iceberg
