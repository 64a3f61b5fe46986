// Filter evaluation over Iceberg's manifests: the summaries MightMatch decides from,
// taken from a data file's metrics and a manifest's partition field summaries. Kept apart
// from expr/ so that the expression layer builds on no table format's files (Delta binds
// and evaluates filters through expr/ too).
#pragma once

#include "floe/expr/evaluators.h"
#include "floe/iceberg/manifest/data_file.h"
#include "floe/types/type.h"

namespace floe::iceberg {

/// From a data file's metrics for field `field_id` of type `type` (bounds that do not
/// decode, e.g. after a type promotion, are left out).
ColumnSummary SummaryFromMetrics(const DataFile& file, int field_id, const Type& type);
/// From one field summary of a manifest's partitions.
ColumnSummary SummaryFromPartitionSummary(const PartitionFieldSummary& summary,
                                          const Type& type);

}  // namespace floe::iceberg
