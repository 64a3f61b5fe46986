#include "floe/testing/random_filters.h"

#include <cmath>
#include <limits>
#include <variant>

#include <gtest/gtest.h>

#include "arrow/api.h"
#include "arrow/array/builder_base.h"
#include "floe/types/arrow_schema.h"
#include "floe/types/arrow_value.h"
#include "floe/types/value.h"

namespace floe::testing {

std::string Generator::Literal(const std::string& column) {
  if (column == "id") return PickFrom(longs);
  if (column == "f") return PickFrom(doubles);
  if (column == "s") return PickFrom(strings);
  if (column == "d") return PickFrom(decimals);
  if (column == "dt") return PickFrom(dates);
  return PickFrom(stamps);
}

std::string Generator::Predicate() {
  static const std::vector<std::string> kColumns = {"id", "f", "s", "d", "dt", "ts"};
  const std::string& column = PickFrom(kColumns);
  switch (Pick(12)) {
    case 0:
      return column + " IS NULL";
    case 1:
      return column + " IS NOT NULL";
    case 2:
      return column == "f" ? "f IS NAN" : column + " = " + Literal(column);
    case 3:
      return column == "f" ? "f IS NOT NAN" : column + " != " + Literal(column);
    case 4:
      return column + " IN (" + Literal(column) + ", " + Literal(column) + ")";
    case 5:
      return column + " NOT IN (" + Literal(column) + ", " + Literal(column) + ")";
    case 6:
      return column == "s" ? "s LIKE 'a%'" : column + " < " + Literal(column);
    case 7:
      return column == "s" ? "s NOT LIKE 'ab%'" : column + " >= " + Literal(column);
    case 8:
      return column + " BETWEEN " + Literal(column) + " AND " + Literal(column);
    default: {
      static const std::vector<std::string> kOps = {"=", "!=", "<", "<=", ">", ">="};
      return column + " " + PickFrom(kOps) + " " + Literal(column);
    }
  }
}

std::string Generator::Filter(int depth) {
  if (depth == 0 || Pick(3) == 0) return Predicate();
  switch (Pick(3)) {
    case 0:
      return "(" + Filter(depth - 1) + ") AND (" + Filter(depth - 1) + ")";
    case 1:
      return "(" + Filter(depth - 1) + ") OR (" + Filter(depth - 1) + ")";
    default:
      return "NOT (" + Filter(depth - 1) + ")";
  }
}

SchemaPtr FlatSchema() {
  return *Schema::Make(0, {types::Optional(1, "id", types::Long()),
                           types::Optional(2, "f", types::Double()),
                           types::Optional(3, "s", types::String()),
                           types::Optional(4, "d", types::Decimal(9, 2)),
                           types::Optional(5, "dt", types::Date()),
                           types::Optional(6, "ts", types::TimestampTz())});
}

std::shared_ptr<arrow::RecordBatch> Rows(const Schema& schema, Generator* gen,
                                         int count) {
  auto arrow_schema = *ToArrowSchema(schema);
  const std::vector<Value> longs = {Value{},    int64_t{-3}, int64_t{-1},
                                    int64_t{0}, int64_t{1},  int64_t{7}};
  const std::vector<Value> doubles = {
      Value{}, -1.5, -0.0,         0.0,
      0.5,     2.0,  std::nan(""), std::numeric_limits<double>::infinity()};
  const std::vector<Value> strings = {
      Value{},           std::string(""),    std::string("a"),
      std::string("ab"), std::string("abc"), std::string("b"),
      std::string("ü"),  std::string("a%")};
  const std::vector<Value> decimals = {Value{},      Decimal{-125}, Decimal{0},
                                       Decimal{150}, Decimal{300},  Decimal{-1}};
  const std::vector<Value> dates = {Value{}, int32_t{-1}, int32_t{0}, int32_t{19782},
                                    int32_t{-25567}};
  const std::vector<Value> stamps = {Value{},
                                     int64_t{-1},
                                     int64_t{0},
                                     int64_t{1709204400000000},
                                     int64_t{-3600000000},
                                     int64_t{-86400000001}};
  std::vector<const std::vector<Value>*> pools = {&longs,    &doubles, &strings,
                                                  &decimals, &dates,   &stamps};
  arrow::ArrayVector columns;
  for (size_t c = 0; c < pools.size(); ++c) {
    const auto& field = schema.fields()[c];
    auto builder = *arrow::MakeBuilder(arrow_schema->field(static_cast<int>(c))->type());
    for (int r = 0; r < count; ++r) {
      auto scalar = *ValueToArrowScalar(gen->PickFrom(*pools[c]), *field.type);
      EXPECT_TRUE(builder->AppendScalar(*scalar).ok());
    }
    columns.push_back(*builder->Finish());
  }
  arrow::FieldVector fields(arrow_schema->fields().begin(),
                            arrow_schema->fields().begin() + 6);
  return arrow::RecordBatch::Make(arrow::schema(fields), count, columns);
}

std::vector<int64_t> Selected(const arrow::Array& mask) {
  const auto& booleans = static_cast<const arrow::BooleanArray&>(mask);
  std::vector<int64_t> rows;
  for (int64_t i = 0; i < booleans.length(); ++i) {
    if (booleans.IsValid(i) && booleans.Value(i)) rows.push_back(i);
  }
  return rows;
}

ColumnSummary Summarise(const arrow::Array& column, const Type& type, int64_t begin,
                        int64_t end) {
  ColumnSummary summary;
  int64_t nulls = 0;
  int64_t nans = 0;
  for (int64_t r = begin; r < end; ++r) {
    Value value = *ValueFromArrow(column, r, type);
    if (IsNull(value)) {
      ++nulls;
      continue;
    }
    if ((std::holds_alternative<double>(value) && std::isnan(std::get<double>(value)))) {
      ++nans;
      continue;
    }
    if (!summary.lower || CompareValues(value, *summary.lower) < 0) summary.lower = value;
    if (!summary.upper || CompareValues(value, *summary.upper) > 0) summary.upper = value;
  }
  summary.has_null = nulls > 0;
  summary.all_null = nulls == end - begin;
  summary.has_nan = nans > 0;
  summary.all_nan = nans == end - begin;
  return summary;
}

}  // namespace floe::testing
