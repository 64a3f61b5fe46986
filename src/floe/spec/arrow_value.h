// Single Iceberg values to and from Arrow arrays and scalars.
#pragma once

#include <memory>

#include "arrow/type_fwd.h"
#include "floe/spec/value.h"

namespace floe {

/// The value at `index` of `array`, interpreted as Iceberg type `type` (the array must
/// have the Arrow type ToArrowType gives for it, or a compatible one: dictionary arrays,
/// large and view strings, any timestamp unit matching the type). Null slots give a null
/// Value.
arrow::Result<Value> ValueFromArrow(const arrow::Array& array, int64_t index,
                                    const Type& type);

/// An Arrow scalar of ToArrowType(type) holding `value` (null Value gives a null scalar).
arrow::Result<std::shared_ptr<arrow::Scalar>> ValueToArrowScalar(const Value& value,
                                                                 const Type& type);

}  // namespace floe
