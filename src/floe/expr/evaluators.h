// Pruning: deciding from summaries (manifest partition summaries, a data file's metrics,
// a Parquet row group's statistics, a partition tuple) that no row can match a filter,
// and the inclusive projection of a row filter onto a partition spec.
//
// Every decision is "cannot match" or "might match"; a missing or unreadable summary
// always means "might match". Filters must be bound and NOT-free (Bind() gives that).
#pragma once

#include <functional>
#include <optional>

#include "arrow/result.h"
#include "floe/expr/expression.h"
#include "floe/spec/partition_spec.h"
#include "floe/spec/schema.h"

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

/// The inclusive projection of a row filter onto `spec` (iceberg-java's
/// Projections.inclusive): a filter over the partition fields (their field ids, and their
/// result types) that the partition tuple of every row matching `filter` satisfies.
/// Predicates a transform cannot project become TRUE. Temporal projections of pre-1970
/// values are widened by one, as iceberg-java does for files that older writers
/// partitioned by truncating toward zero.
arrow::Result<ExpressionPtr> ProjectInclusive(const ExpressionPtr& filter,
                                              const PartitionSpec& spec,
                                              const Schema& schema);

/// The strict projection of a row filter onto `spec` (iceberg-java's Projections.strict):
/// a filter over the partition fields (their field ids and result types) that a
/// partition tuple satisfies only when every row with that tuple satisfies `filter`, as
/// Spark proves a delete by metadata. A predicate holds when any of its column's fields'
/// projections does (an identity field keeps it; truncate and the temporal transforms
/// keep strict orders and `!=`; a bucket keeps only `!=` and NOT IN); one with none, or a
/// literal a transform cannot take, is FALSE. Temporal projections are fixed for files
/// old writers partitioned by truncating pre-1970 values toward zero, as iceberg-java
/// fixes them.
ExpressionPtr ProjectStrict(const ExpressionPtr& filter, const PartitionSpec& spec,
                            const Schema& schema);

/// `transform` applied to one value of type `source` (the same kernels the writer uses).
arrow::Result<Value> TransformValue(const Transform& transform, const TypePtr& source,
                                    const Value& value);

}  // namespace floe
