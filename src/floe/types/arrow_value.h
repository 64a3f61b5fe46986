// Single Iceberg values to and from Arrow arrays and scalars.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "arrow/type_fwd.h"
#include "floe/types/value.h"

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

/// Appends the value at `row` of `array` (null, or a primitive: boolean, number, decimal,
/// date/time, string, binary, fixed) to `key`, so that two values give equal bytes
/// exactly when iceberg-java's StructLike comparisons (partition keys, equality deletes)
/// consider them equal: null equals null, every NaN is the same NaN, -0.0 and 0.0 differ
/// (Double.equals compares bits), strings are length-prefixed.
void AppendValueKey(const arrow::Array& array, int64_t row, std::string* key);

}  // namespace floe
