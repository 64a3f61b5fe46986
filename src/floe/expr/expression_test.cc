#include <functional>
#include <map>

#include <gtest/gtest.h>

#include "arrow/api.h"
#include "arrow/compute/api.h"
#include "floe/expr/binder.h"
#include "floe/expr/evaluators.h"
#include "floe/expr/parser.h"
#include "floe/expr/row_filter.h"
#include "floe/testing/random_filters.h"
#include "floe/testing/temp_directory.h"
#include "floe/types/schema.h"
#include "floe/types/type.h"
#include "floe/util/error.h"

namespace floe {
namespace {

// The schema the schema text "id long, f double, s string, d decimal(9, 2), dt date, ts
// timestamptz, b boolean, req int not null, st struct<x: int, y: string>, l
// list<struct<z: int>>, u uuid" reads: the top-level fields 1 to 11, then st's (12, 13),
// then l's element (14) and its field (15).
SchemaPtr TestSchema() {
  return *Schema::Make(
      0,
      {types::Optional(1, "id", types::Long()), types::Optional(2, "f", types::Double()),
       types::Optional(3, "s", types::String()),
       types::Optional(4, "d", types::Decimal(9, 2)),
       types::Optional(5, "dt", types::Date()),
       types::Optional(6, "ts", types::TimestampTz()),
       types::Optional(7, "b", types::Boolean()), types::Required(8, "req", types::Int()),
       types::Optional(9, "st",
                       types::Struct({types::Optional(12, "x", types::Int()),
                                      types::Optional(13, "y", types::String())})),
       types::Optional(
           10, "l",
           types::List(14, types::Struct({types::Optional(15, "z", types::Int())}),
                       /*element_required=*/false)),
       types::Optional(11, "u", types::Uuid())});
}

std::string Bound(const std::string& text, const Schema& schema) {
  auto parsed = ParseFilter(text);
  if (!parsed.ok()) return "parse error: " + parsed.status().message();
  auto bound = Bind(*parsed, schema);
  if (!bound.ok()) return "bind error: " + bound.status().message();
  return (*bound)->ToString();
}

TEST(FilterParserTest, ParsesTheSyntaxAndRoundTrips) {
  const std::pair<const char*, const char*> cases[] = {
      {"id = 5", "id = 5"},
      {"5 < id", "id > 5"},
      {"ID >= -3 and not (s is null)", "(ID >= -3 AND NOT s IS NULL)"},
      {"s IN ('a', 'it''s')", "s IN ('a', 'it''s')"},
      {"s not in ('a')", "s NOT IN ('a')"},
      {"s LIKE 'ab%'", "s LIKE 'ab%'"},
      {"s LIKE 'a\\%b%'", "s LIKE 'a\\%b%'"},
      {"s LIKE 'exact'", "s = 'exact'"},
      {"starts_with(s, 'x')", "s LIKE 'x%'"},
      {"f IS NOT NAN OR f <> 1.5e3", "(f IS NOT NAN OR f != 1.5e3)"},
      {"id BETWEEN 1 AND 3", "(id >= 1 AND id <= 3)"},
      {"dt >= DATE '2024-01-01'", "dt >= '2024-01-01'"},
      {"\"odd name\" = 1 or `x`.y = X'0aFF'", "(\"odd name\" = 1 OR x.y = X'0aFF')"},
      {"true", "TRUE"},
      // Found by fuzz_parser: names that are not plain identifiers print quoted whole.
      {R"(5=".".".5")", "\"...5\" = 5"},
      {R"("and" = 1 AND "1x".y = 2)", R"(("and" = 1 AND "1x.y" = 2))"},
      {"b = true", "b = true"},
  };
  for (const auto& [text, expected] : cases) {
    auto parsed = ParseFilter(text);
    ASSERT_TRUE(parsed.ok()) << text << ": " << parsed.status().ToString();
    EXPECT_EQ((*parsed)->ToString(), expected) << text;
    // The printed form parses back to the same print.
    auto again = ParseFilter((*parsed)->ToString());
    ASSERT_TRUE(again.ok()) << (*parsed)->ToString();
    EXPECT_EQ((*again)->ToString(), expected);
  }
}

TEST(FilterParserTest, RejectsMalformedFiltersWithThePosition) {
  const std::pair<const char*, const char*> cases[] = {
      {"id =", "position 5: expected a literal"},
      {"id = 5 and", "position 11: expected a predicate, found the end"},
      {"(id = 5", "expected ')'"},
      {"id = 'unterminated", "unterminated '"},
      {"id == NULL", "use IS NULL"},
      {"s LIKE '%a'", "prefix patterns only"},
      {"s LIKE 'a_b%'", "prefix patterns only"},
      {"id ~ 3", "unexpected character '~'"},
      {"5 = 5", "needs a column"},
      {"id = 5abc", "must not run into a name"},
      {"id IS 5", "expected NULL or NAN"},
      // Found by fuzz_parser: an empty quoted name printed as "a..b", which did not
      // parse.
      {"dvai.arst.\"\".ar.a= 4", "a quoted name must not be empty"},
      // Found by fuzz_parser: a quote inside X'...' printed as an unbalanced literal.
      {"x = X'h(s='')'", "hex digits only"},
  };
  for (const auto& [text, expected] : cases) {
    auto parsed = ParseFilter(text);
    ASSERT_FALSE(parsed.ok()) << text;
    EXPECT_EQ(KindOf(parsed.status()), ErrorKind::kInvalidInput);
    EXPECT_NE(parsed.status().message().find(expected), std::string::npos)
        << text << ": " << parsed.status().message();
  }
  std::string deep(300, '(');
  deep += "id = 1" + std::string(300, ')');
  EXPECT_FALSE(ParseFilter(deep).ok());
  std::string nots;
  for (int i = 0; i < 300; ++i) nots += "NOT ";
  EXPECT_FALSE(ParseFilter(nots + "id = 1").ok());
}

TEST(FilterBinderTest, ConvertsLiteralsToTheColumnType) {
  auto schema = TestSchema();
  const std::pair<const char*, const char*> cases[] = {
      {"id = 5", "id = 5"},
      {"id = '5'", "id = 5"},
      {"id = 5.0", "id = 5"},
      {"d = 1.5", "d = 1.50"},
      {"d < -0.10", "d < -0.10"},
      {"d = 1.500000", "d = 1.50"},
      {"f = 1", "f = 1.0"},
      {"f < '-Infinity'", "f < -Infinity"},
      {"dt = '1969-12-31'", "dt = '1969-12-31'"},
      {"dt = '-0044-03-15'", "dt = '-044-03-15'"},
      {"ts >= '2024-02-29T12:00:00+01:00'", "ts >= '2024-02-29T11:00:00Z'"},
      {"ts < '1969-12-31 23:59:59.999999'", "ts < '1969-12-31T23:59:59.999999Z'"},
      {"ts = '2024-01-01'", "ts = '2024-01-01T00:00:00Z'"},
      {"st.x = 1", "st.x = 1"},
      {"u = '6ba7b810-9dad-11d1-80b4-00c04fd430c8'",
       "u = '6ba7b810-9dad-11d1-80b4-00c04fd430c8'"},
      {"s in ('b', 'a', 'b')", "s IN ('a', 'b')"},
      {"s in ('a')", "s = 'a'"},
      // Negation is pushed to the predicates; NaN fails x < v and x >= v alike.
      {"NOT (id < 3 AND s = 'a')", "(id >= 3 OR s != 'a')"},
      {"NOT f < 3", "(f >= 3.0 OR f IS NAN)"},
      {"NOT NOT f < 3", "f < 3.0"},
      // Literals beyond the type's range decide the comparison for every non-null value.
      {"id < 99999999999999999999", "id IS NOT NULL"},
      {"id > 99999999999999999999", "FALSE"},
      {"NOT id > 99999999999999999999", "id IS NOT NULL"},
      {"NOT id < 99999999999999999999", "FALSE"},
      {"d = 12345678.9", "FALSE"},
      {"id IN (99999999999999999999, 1)", "id = 1"},
      {"req IS NULL", "FALSE"},
      {"req IS NOT NULL or id = 1", "TRUE"},
      {"st IS NULL", "st IS NULL"},
      // As Spark SQL reads numbers too small for a double (1e-400 is 0.0), and casts a
      // quoted number beyond its range to the infinity of its sign.
      {"f < 1e-400", "f < 0.0"},
      {"f > -1e-400", "f > -0.0"},
      {"f >= '1e400'", "f >= Infinity"},
      {"f < '-1e400'", "f < -Infinity"},
      {"f < 1.7976931348623157e308", "f < 1.7976931348623157E308"},
  };
  for (const auto& [text, expected] : cases) {
    EXPECT_EQ(Bound(text, *schema), expected) << text;
  }
}

// Spark's SQL parser refuses an unquoted number beyond double's range
// (INVALID_NUMERIC_LITERAL_RANGE; tests/interop/test_delta_spark.py checks Spark itself):
// it was read as 0, so "price >= 1e400" selected every row with price >= 0.
TEST(FilterBinderTest, RefusesANumberBeyondDoublesRangeAsSparkDoes) {
  auto schema = TestSchema();
  for (const char* text : {"f >= 1e400", "f < -1e400", "f = 1e309", "f IN (1, 2e308)",
                           "f <> 1.7976931348623159e308", "d < 1e400", "id < 1e400"}) {
    const std::string bound = Bound(text, *schema);
    EXPECT_EQ(bound.rfind("bind error: ", 0), 0u) << text << " gave " << bound;
    if (std::string(text).starts_with("f")) {
      EXPECT_NE(bound.find("outside the range of a double"), std::string::npos) << bound;
    }
  }
  // The message quotes a long literal shortened, never whole.
  const std::string long_literal = "1" + std::string(10'000, '0');
  const std::string bound = Bound("f = " + long_literal, *schema);
  EXPECT_LT(bound.size(), 400u) << bound.substr(0, 400);
}

TEST(FilterBinderTest, RejectsWhatCannotBeAnsweredNamingTheColumn) {
  auto schema = TestSchema();
  const std::pair<const char*, const char*> cases[] = {
      {"nope = 1", "no column 'nope'"},
      {"l.z = 1", "inside a list or map"},
      {"id IS NAN", "IS NAN applies to float and double columns, not 'id'"},
      {"id LIKE 'a%'", "LIKE and starts_with apply to string columns"},
      {"f = 'NaN'", "use IS NAN"},
      {"d = 1.234", "more digits after the point"},
      {"id = 1.5", "not an integer"},
      {"s = 5", "quote strings"},
      {"dt = '2023-02-29'", "expected 'yyyy-mm-dd'"},
      {"ts = '2024-01-01T00:00:00.0000001Z'", "finer than the column's microseconds"},
      {"st = 1", "which filters can only test with IS NULL"},
      {"u = 'xyz'", "not a UUID"},
  };
  for (const auto& [text, expected] : cases) {
    std::string result = Bound(text, *schema);
    EXPECT_NE(result.find("bind error"), std::string::npos) << text << ": " << result;
    EXPECT_NE(result.find(expected), std::string::npos) << text << ": " << result;
  }
  // The schema text "t timestamp": one optional column without a zone.
  auto unzoned = *Schema::Make(0, {types::Optional(1, "t", types::Timestamp())});
  EXPECT_NE(Bound("t = '2024-01-01T00:00:00Z'", *unzoned).find("takes no offset"),
            std::string::npos);
}

// ---- Property tests: Arrow's Kleene kernels are the oracle. ----

using testing::FlatSchema;
using testing::Generator;
using testing::Rows;
using testing::Selected;
using testing::Summarise;

// The oracle: the parsed tree evaluated as written (NOT as Kleene inversion), each
// predicate bound on its own.
arrow::Result<std::shared_ptr<arrow::Array>> Oracle(
    const ExpressionPtr& parsed, const Schema& schema,
    const std::shared_ptr<arrow::RecordBatch>& batch) {
  namespace cp = arrow::compute;
  switch (parsed->op) {
    case Operation::kAnd:
    case Operation::kOr: {
      ARROW_ASSIGN_OR_RAISE(auto left, Oracle(parsed->left, schema, batch));
      ARROW_ASSIGN_OR_RAISE(auto right, Oracle(parsed->right, schema, batch));
      ARROW_ASSIGN_OR_RAISE(
          auto result,
          cp::CallFunction(parsed->op == Operation::kAnd ? "and_kleene" : "or_kleene",
                           {left, right}));
      return result.make_array();
    }
    case Operation::kNot: {
      ARROW_ASSIGN_OR_RAISE(auto child, Oracle(parsed->left, schema, batch));
      ARROW_ASSIGN_OR_RAISE(auto result, cp::CallFunction("invert", {child}));
      return result.make_array();
    }
    default: {
      ARROW_ASSIGN_OR_RAISE(auto bound, Bind(parsed, schema));
      return EvaluateFilter(*bound, batch);
    }
  }
}

// Pushing NOT down and folding never changes which rows pass.
TEST(FilterPropertyTest, BoundFiltersSelectWhatTheWrittenFilterSelects) {
  Generator gen;
  auto schema = FlatSchema();
  auto batch = Rows(*schema, &gen, 200);
  for (int i = 0; i < 400; ++i) {
    std::string text = gen.Filter(3);
    SCOPED_TRACE(text);
    FLOE_ASSIGN_OR_FAIL(auto parsed, ParseFilter(text));
    FLOE_ASSIGN_OR_FAIL(auto bound, Bind(parsed, *schema));
    ASSERT_TRUE(ReferencedFieldIds(*bound).size() <= 6);
    FLOE_ASSIGN_OR_FAIL(auto mask, EvaluateFilter(*bound, batch));
    FLOE_ASSIGN_OR_FAIL(auto expected, Oracle(parsed, *schema, batch));
    EXPECT_EQ(Selected(*mask), Selected(*expected)) << bound->ToString();
  }
}

// `files` random files of 1 to `max_rows` rows, each with the summaries of its own
// rows, and 50 random filters on each: `check` gets each filter's text, its bound form,
// the file's summaries, its rows and the rows the filter selects.
using FileFilterCheck = std::function<void(
    const std::string& text, const Expression& bound, const SummaryLookup& lookup,
    const arrow::RecordBatch& rows, const arrow::Array& mask)>;
void ForRandomFilesAndFilters(int files, int max_rows, const FileFilterCheck& check) {
  Generator gen;
  auto schema = FlatSchema();
  for (int file = 0; file < files; ++file) {
    auto batch = Rows(*schema, &gen, 1 + gen.Pick(max_rows));
    std::map<int, ColumnSummary> summaries;
    for (int c = 0; c < 6; ++c) {
      summaries[schema->fields()[c].id] =
          Summarise(*batch->column(c), *schema->fields()[c].type, 0, batch->num_rows());
    }
    SummaryLookup lookup = [&](int id) -> const ColumnSummary* {
      return &summaries.at(id);
    };
    for (int i = 0; i < 50; ++i) {
      std::string text = gen.Filter(2);
      FLOE_ASSIGN_OR_FAIL(auto bound, Bind(*ParseFilter(text), *schema));
      FLOE_ASSIGN_OR_FAIL(auto mask, EvaluateFilter(*bound, batch));
      check(text, *bound, lookup, *batch, *mask);
    }
  }
}

// A decision "cannot match" is never wrong, and is made often enough to matter.
TEST(FilterPropertyTest, MetricsPruningNeverDropsAMatchingRow) {
  int pruned = 0;
  int checked = 0;
  ForRandomFilesAndFilters(
      40, 6,
      [&](const std::string& text, const Expression& bound, const SummaryLookup& lookup,
          const arrow::RecordBatch&, const arrow::Array& mask) {
        ++checked;
        if (!MightMatch(bound, lookup)) {
          ++pruned;
          EXPECT_TRUE(Selected(mask).empty()) << text << " pruned but matches rows";
        }
      });
  EXPECT_GT(pruned, checked / 10) << "pruning almost never decided anything";
}

// The strict evaluation never claims that every row matches when one does not (a null
// or NaN among them included), and does claim it often enough to matter.
TEST(FilterPropertyTest, StrictMetricsNeverClaimARowThatDoesNotMatch) {
  int proved = 0;
  int checked = 0;
  ForRandomFilesAndFilters(
      60, 4,
      [&](const std::string& text, const Expression& bound, const SummaryLookup& lookup,
          const arrow::RecordBatch& rows, const arrow::Array& mask) {
        ++checked;
        if (MustMatch(bound, lookup)) {
          ++proved;
          EXPECT_EQ(static_cast<int64_t>(Selected(mask).size()), rows.num_rows())
              << text << " proved for every row but does not match them all";
        }
      });
  EXPECT_GT(proved, checked / 50) << "the strict evaluation almost never proved anything";
}

}  // namespace
}  // namespace floe
