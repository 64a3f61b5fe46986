// Pruning: deciding from summaries (manifest partition summaries, a data file's metrics,
// a Parquet row group's statistics, a partition tuple) that no row can match a filter
// (or that every row does). Projections onto an Iceberg partition spec are in
// floe/iceberg/expr/projection.h.
//
// Every decision is "cannot match" or "might match"; a missing or unreadable summary
// always means "might match". Filters must be bound and NOT-free (Bind() gives that).
#pragma once

#include <functional>
#include <optional>

#include "arrow/result.h"
#include "floe/expr/expression.h"
#include "floe/types/schema.h"

namespace floe {

/// What is known about one column (or partition field) over some rows. Bounds hold no NaN
/// and no null: lower <= every non-null, non-NaN value <= upper.
struct ColumnSummary {
  std::optional<Value> lower;
  std::optional<Value> upper;
  std::optional<bool> has_null;
  std::optional<bool> all_null;
  std::optional<bool> has_nan;
  std::optional<bool> all_nan;
  /// Every non-null row holds exactly `lower` (== `upper`), as in a partition tuple.
  bool exact = false;
};

/// The summary of a field id, or nullptr when nothing is known.
using SummaryLookup = std::function<const ColumnSummary*(int field_id)>;

/// False only when no summarised row can satisfy `filter`. IN lists longer than 200
/// values are not checked against bounds (iceberg-java's limit).
bool MightMatch(const Expression& filter, const SummaryLookup& lookup);

/// True only when every summarised row satisfies `filter` as floe evaluates rows (SQL's
/// three-valued logic: a null never satisfies a comparison, `!=`, NOT IN or NaN test):
/// iceberg-java's StrictMetricsEvaluator, never claiming more than the summary shows (a
/// column that may hold nulls or NaN, a missing bound, or a bound of another type than
/// the literal's proves nothing). IN lists longer than 200 values prove nothing.
bool MustMatch(const Expression& filter, const SummaryLookup& lookup);

/// From one value of a partition tuple.
ColumnSummary SummaryFromValue(const Value& value, const Type& type);

}  // namespace floe
