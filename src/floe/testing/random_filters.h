// Random filters and rows for the property tests of the shared expressions and of
// Iceberg's partition projections: a seeded generator of filter text over the columns of
// FlatSchema(), rows of that schema full of nulls, NaN, both zeros, pre-1970 and unicode
// values, the rows a mask selects, and summaries of rows.
#pragma once

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "arrow/type_fwd.h"
#include "floe/expr/evaluators.h"
#include "floe/types/schema.h"
#include "floe/types/type.h"

namespace floe::testing {

/// Random filter text over FlatSchema()'s columns (and random picks for Rows()), from a
/// fixed seed: the same calls give the same sequence every run.
struct Generator {
  std::mt19937 rng{20261129};
  int Pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng); }
  template <typename T>
  const T& PickFrom(const std::vector<T>& items) {
    return items[Pick(static_cast<int>(items.size()))];
  }

  const std::vector<std::string> longs = {"-3", "-1", "0", "1", "2", "7", "100"};
  const std::vector<std::string> doubles = {"-1.5", "-0.0",       "0.0",        "0.5",
                                            "2",    "'Infinity'", "'-Infinity'"};
  const std::vector<std::string> strings = {"''",  "'a'", "'ab'", "'abc'",
                                            "'b'", "'ü'", "'a%'"};
  const std::vector<std::string> decimals = {"-1.25", "0", "1.50", "3", "-0.01"};
  const std::vector<std::string> dates = {"'1969-12-31'", "'1970-01-01'", "'2024-02-29'",
                                          "'1900-01-01'"};
  const std::vector<std::string> stamps = {
      "'1969-12-31T23:59:59.999999Z'", "'1970-01-01T00:00:00Z'",
      "'2024-02-29T12:00:00+01:00'", "'1969-12-31T23:00:00Z'"};

  /// A literal for `column` (one of id, f, s, d, dt, ts).
  std::string Literal(const std::string& column);
  /// One random predicate over one of the columns.
  std::string Predicate();
  /// A random filter of AND, OR and NOT nested up to `depth` deep.
  std::string Filter(int depth);
};

/// The schema the generated filters and rows are over, as the schema text
/// "id long, f double, s string, d decimal(9, 2), dt date, ts timestamptz" reads (ids 1
/// to 6, every column optional).
SchemaPtr FlatSchema();

/// `count` rows of the first six columns of `schema` (FlatSchema()'s columns), with
/// nulls, NaN, both zeros, pre-1970 and unicode values.
std::shared_ptr<arrow::RecordBatch> Rows(const Schema& schema, Generator* gen, int count);

/// The indices of the rows a boolean mask selects (true, not null).
std::vector<int64_t> Selected(const arrow::Array& mask);

/// Summaries computed from the rows [begin, end) of `column` themselves: min/max over
/// non-null non-NaN values, counts.
ColumnSummary Summarise(const arrow::Array& column, const Type& type, int64_t begin,
                        int64_t end);

}  // namespace floe::testing
