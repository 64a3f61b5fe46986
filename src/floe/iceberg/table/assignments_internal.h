// An update's `--set`: which columns it sets and how each new value is computed from the
// row it updates.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "arrow/compute/api.h"
#include "arrow/result.h"
#include "floe/types/schema.h"

namespace floe::iceberg {

/// One column an update sets, on the rows it selects.
struct Assignment {
  int field_id = 0;
  /// "column = value" as given (errors quote it).
  std::string text;
  /// The column is required: a NULL value for a row the update changes is an error.
  bool required = false;
  /// The new values for a batch of rows holding every column of the table (by field id,
  /// as the rows were before the update): an array or a scalar of the column's Arrow
  /// type.
  std::function<arrow::Result<arrow::Datum>(const arrow::RecordBatch&)> evaluate;
};

/// Parses `text`, "column = value[, column = value ...]" over top-level primitive columns
/// of `schema`, where a value is
///   - a literal of the filter syntax (expr/parser.h), converted to the column's type as
///   a
///     filter's literal is, or NULL (optional columns only);
///   - or, for a numeric column, arithmetic of the row's numeric columns and numbers:
///     `+ - * /`, unary minus and parentheses, as in `price = price * 1.1 + 2` or
///     `total = qty * unit`, computed as Spark's UPDATE computes it under ANSI mode. For
///     an integer or floating-point column every operand takes the column's type (a
///     column of a narrower type of the same kind is widened; int and long also widen to
///     float and double; a number must be a literal of the column's type); integer
///     overflow is an error; an integer column's `/` computes in double and the result
///     truncates towards zero. For a decimal column the arithmetic is exact with Spark's
///     decimal result types (int and long columns take part as decimals), `/` and the
///     final value rounded half up; a value the column cannot hold and a division by
///     zero are errors. A NULL operand gives NULL.
/// Every value sees the row as it was before the update. An unknown, nested or repeated
/// column, a literal that does not fit, or an expression outside the above gives
/// InvalidInput quoting the assignment, before any row is read.
arrow::Result<std::vector<Assignment>> ParseAssignments(const std::string& text,
                                                        const Schema& schema);

}  // namespace floe::iceberg
