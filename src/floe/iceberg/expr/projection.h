// Projections of a row filter onto an Iceberg partition spec (iceberg-java's
// Projections.inclusive and Projections.strict), and a partition transform applied to
// one value. Filters must be bound and NOT-free (Bind() gives that).
#pragma once

#include "arrow/result.h"
#include "floe/expr/expression.h"
#include "floe/iceberg/spec/partition_spec.h"
#include "floe/types/schema.h"

namespace floe::iceberg {

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

}  // namespace floe::iceberg
