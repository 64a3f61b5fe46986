// Binding a parsed filter to a schema: names to field ids, literals to the column's type.
#pragma once

#include "arrow/result.h"
#include "floe/expr/expression.h"
#include "floe/types/schema.h"

namespace floe {

/// Resolves every column of `expression` in `schema` (full dotted names or iceberg-java's
/// short forms) and converts its literals to the column's type. The result is simplified:
/// constant branches fold, and a literal outside the column type's range folds to what it
/// implies (x < 1e30 on an int column is x IS NOT NULL). Errors are InvalidInput and name
/// the column and the literal: an unknown column, a column inside a list or map, a
/// literal that does not convert (text, precision, range of a date), IS NAN on a
/// non-floating column, LIKE on a non-string column, a comparison with NaN.
arrow::Result<ExpressionPtr> Bind(const ExpressionPtr& expression, const Schema& schema);

/// Converts one literal to a value of `type`. `overflow` is set to -1 or +1 (and the
/// value left null) when the literal is a number beyond the type's range; InvalidInput
/// when it does not convert at all.
arrow::Result<Value> ConvertLiteral(const LiteralText& literal, const Type& type,
                                    int* overflow);

/// Microseconds (`units_per_second` 1e6) or nanoseconds (1e9) of an ISO-8601 timestamp:
/// "yyyy-mm-dd", "yyyy-mm-ddThh:mm[:ss[.fffffffff]]" (a space may replace the T), with an
/// optional "Z" or "+hh:mm"/"-hh:mm" offset when `with_zone` (no offset means UTC). A
/// fraction finer than the unit, an offset on a timestamp without zone, or a value
/// outside the type's range gives InvalidInput.
arrow::Result<int64_t> ParseIsoTimestamp(std::string_view text, int64_t units_per_second,
                                         bool with_zone);

}  // namespace floe
