// Applying a bound filter to rows (the residual of a scan), with Arrow's compute kernels.
#pragma once

#include <memory>

#include "arrow/record_batch.h"
#include "floe/expr/expression.h"

namespace floe {

/// The rows of `batch` for which `filter` is true (SQL semantics: unknown drops the row;
/// IEEE comparisons for floats). Columns are found by the PARQUET:field_id of the batch's
/// fields, at any struct depth; a filter column missing from the batch gives Invalid.
/// `filter` must be bound and NOT-free.
arrow::Result<std::shared_ptr<arrow::RecordBatch>> FilterBatch(
    const Expression& filter, const std::shared_ptr<arrow::RecordBatch>& batch);

/// The boolean mask FilterBatch selects by (null where the filter is unknown).
arrow::Result<std::shared_ptr<arrow::Array>> EvaluateFilter(
    const Expression& filter, const std::shared_ptr<arrow::RecordBatch>& batch);

}  // namespace floe
