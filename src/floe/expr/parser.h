// The filter syntax every `--where` takes: a small SQL-like language.
//
//   filter     := or
//   or         := and ( OR and )*
//   and        := unary ( AND unary )*
//   unary      := NOT unary | '(' filter ')' | TRUE | FALSE | predicate
//   predicate  := column op literal | literal op column          op: = == != <> < <= > >=
//               | column [NOT] IN ( literal, ... )
//               | column [NOT] BETWEEN literal AND literal
//               | column IS [NOT] NULL | column IS [NOT] NAN
//               | column [NOT] LIKE 'prefix%'                     (prefix patterns only)
//               | starts_with(column, 'prefix')
//   column     := name ( . name )*     name: letters, digits, _ ; or "quoted" / `quoted`
//   literal    := number | 'string' ('' inside for ') | X'hex' | TRUE | FALSE
//               | DATE 'yyyy-mm-dd' | TIME '...' | TIMESTAMP '...'
//
// Keywords are case-insensitive. Literals are converted to the column's type when the
// filter is bound (see binder.h), so '2024-01-01' compares with a date or timestamp
// column.
#pragma once

#include <string_view>

#include "arrow/result.h"
#include "floe/expr/expression.h"

namespace floe {

/// Parses a filter into an unbound expression. Errors are InvalidInput and give the
/// position and what was expected. Nesting deeper than 256 levels is refused.
arrow::Result<ExpressionPtr> ParseFilter(std::string_view text);

}  // namespace floe
