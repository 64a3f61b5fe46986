// Partition transforms applied to whole Arrow arrays.
#pragma once

#include <memory>

#include "arrow/type_fwd.h"
#include "floe/iceberg/spec/transform.h"

namespace floe::iceberg {

/// Applies `transform` to every value of `input`, an array holding values of Iceberg type
/// `source_type` in its Arrow form. The result holds the transform's result type in its
/// Arrow form (int32 for bucket/year/month/hour, date32 for day); nulls stay null; void
/// gives all nulls. A transform the source type does not allow gives InvalidInput.
arrow::Result<std::shared_ptr<arrow::Array>> ApplyTransform(
    const Transform& transform, const Type& source_type,
    const std::shared_ptr<arrow::Array>& input);

}  // namespace floe::iceberg
