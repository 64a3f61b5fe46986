// The eligibility gate: decides at plan time, before any file exists, whether floe can
// write a table the way iceberg-java would. It is an allow list: anything not known to be
// reproduced declines, with reasons that name properties (never their values).
#pragma once

#include <string>
#include <vector>

#include "floe/spec/table_metadata.h"
#include "floe/spec/table_properties.h"

namespace floe {

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
  kDelete,      ///< A delete that keeps some rows of a file it removes.
  kCompaction,  ///< `floe rewrite`.
};

/// CheckWrite, plus the rules a rewrite of existing rows must meet to be what
/// iceberg-java would write: a delete under write.delete.mode=merge-on-read writes delete
/// files instead (declined). (On format v3 the rewritten rows keep their `_row_id` and
/// `_last_updated_sequence_number`, written into the new files as iceberg-java writes
/// them: WritePlanOptions::row_lineage.)
GateResult CheckRowRewrite(const TableMetadata& metadata, const PropertyMap& options,
                           RowRewrite kind);

}  // namespace floe
