// The projections of row filters onto partition specs, checked against the writer's
// partition kernels on random rows and random filters, and against the projections
// iceberg-java's tests expect.
#include "floe/iceberg/expr/projection.h"

#include <algorithm>
#include <functional>
#include <map>
#include <variant>

#include <gtest/gtest.h>

#include "arrow/api.h"
#include "floe/expr/binder.h"
#include "floe/expr/evaluators.h"
#include "floe/expr/parser.h"
#include "floe/expr/row_filter.h"
#include "floe/iceberg/spec/partition_spec.h"
#include "floe/iceberg/transform/transform_kernels.h"
#include "floe/testing/random_filters.h"
#include "floe/testing/temp_directory.h"
#include "floe/types/arrow_value.h"
#include "floe/types/value.h"
#include "floe/util/error.h"

namespace floe::iceberg {
namespace {

using testing::FlatSchema;
using testing::Generator;
using testing::Rows;
using testing::Selected;

// Random rows partitioned by the writer's kernels under a spec of every transform, and
// random filters projected onto it by `project`: `check` gets, for each filter and each
// partition, the filter's text, its projection, the partition tuple's summaries, the
// partition's rows and the rows the filter selects.
using PartitionCheck = std::function<void(
    const std::string& text, const Expression& projected, const SummaryLookup& lookup,
    const std::vector<int64_t>& rows, const std::vector<int64_t>& matching)>;
void ForRandomPartitionsAndFilters(
    const std::function<ExpressionPtr(const ExpressionPtr&, const PartitionSpec&,
                                      const Schema&)>& project,
    const PartitionCheck& check) {
  Generator gen;
  auto schema = FlatSchema();
  auto spec = *ParsePartitionBy(
      "bucket(4, id), truncate(3, id), identity(f), truncate(1, s), truncate(100, d), "
      "month(dt), day(dt), day(ts), hour(ts), year(ts)",
      *schema);
  auto partition_type = *spec->PartitionType(*schema);
  for (int round = 0; round < 6; ++round) {
    auto batch = Rows(*schema, &gen, 300);
    // Partition tuples by the writer's kernels.
    std::vector<std::shared_ptr<arrow::Array>> transformed;
    for (const auto& field : spec->fields()) {
      int column = 0;
      while (schema->fields()[column].id != field.source_id) ++column;
      transformed.push_back(*ApplyTransform(
          field.transform, *schema->fields()[column].type, batch->column(column)));
    }
    std::map<std::string, std::vector<int64_t>> groups;
    std::map<std::string, std::map<int, ColumnSummary>> summaries;
    for (int64_t r = 0; r < batch->num_rows(); ++r) {
      std::string key;
      std::map<int, ColumnSummary> tuple;
      for (size_t p = 0; p < transformed.size(); ++p) {
        const Type& type = *partition_type->fields()[p].type;
        Value value = *ValueFromArrow(*transformed[p], r, type);
        key += ValueToString(value, type) + "|";
        tuple[spec->fields()[p].field_id] = SummaryFromValue(value, type);
      }
      groups[key].push_back(r);
      summaries[key] = std::move(tuple);
    }
    for (int i = 0; i < 60; ++i) {
      std::string text = gen.Filter(2);
      FLOE_ASSIGN_OR_FAIL(auto bound, Bind(*ParseFilter(text), *schema));
      ExpressionPtr projected = project(bound, *spec, *schema);
      ASSERT_NE(projected, nullptr) << text;
      FLOE_ASSIGN_OR_FAIL(auto mask, EvaluateFilter(*bound, batch));
      const auto matching = Selected(*mask);
      for (const auto& [key, rows] : groups) {
        const auto& tuple = summaries[key];
        SummaryLookup lookup = [&](int id) -> const ColumnSummary* {
          auto found = tuple.find(id);
          return found == tuple.end() ? nullptr : &found->second;
        };
        check(text + " -> " + projected->ToString() + " in partition " + key, *projected,
              lookup, rows, matching);
      }
    }
  }
}

// The inclusive projection onto a spec never prunes a partition holding a matching row.
TEST(FilterPropertyTest, PartitionProjectionNeverDropsAMatchingRow) {
  int pruned = 0;
  int checked = 0;
  ForRandomPartitionsAndFilters(
      [](const ExpressionPtr& bound, const PartitionSpec& spec, const Schema& schema) {
        auto projected = ProjectInclusive(bound, spec, schema);
        EXPECT_TRUE(projected.ok()) << projected.status().ToString();
        return projected.ok() ? *projected : nullptr;
      },
      [&](const std::string& what, const Expression& projected,
          const SummaryLookup& lookup, const std::vector<int64_t>& rows,
          const std::vector<int64_t>& matching) {
        ++checked;
        if (MightMatch(projected, lookup)) return;
        ++pruned;
        for (int64_t row : rows) {
          EXPECT_FALSE(std::binary_search(matching.begin(), matching.end(), row))
              << what << ": pruned, but row " << row << " matches";
        }
      });
  EXPECT_GT(pruned, checked / 10);
}

// The strict projection onto a spec never proves a partition that holds a row the filter
// does not match, and proves some often enough to matter.
TEST(FilterPropertyTest, StrictPartitionProjectionNeverClaimsARowThatDoesNotMatch) {
  int proved = 0;
  int checked = 0;
  ForRandomPartitionsAndFilters(
      [](const ExpressionPtr& bound, const PartitionSpec& spec, const Schema& schema) {
        return ProjectStrict(bound, spec, schema);
      },
      [&](const std::string& what, const Expression& projected,
          const SummaryLookup& lookup, const std::vector<int64_t>& rows,
          const std::vector<int64_t>& matching) {
        ++checked;
        if (!MustMatch(projected, lookup)) return;
        ++proved;
        for (int64_t row : rows) {
          EXPECT_TRUE(std::binary_search(matching.begin(), matching.end(), row))
              << what << ": proved, but row " << row << " does not match";
        }
      });
  EXPECT_GT(proved, checked / 50) << "the strict projection almost never proved anything";
}

// The strict projections iceberg-java's TestTimestampsProjection and TestDatesProjection
// expect (testDayStrictEpoch, testNegativeDayStrictLowerBound, ...): day(ts) bounds fixed
// for pre-1970 files, day(dt) not; truncate of a long; a bucket keeps only !=.
TEST(ProjectStrictTest, MatchesIcebergJavasProjections) {
  auto schema = FlatSchema();
  auto project = [&](const std::string& partition_by, const std::string& filter) {
    auto spec = *ParsePartitionBy(partition_by, *schema);
    auto bound = Bind(*ParseFilter(filter), *schema);
    EXPECT_TRUE(bound.ok()) << filter;
    ExpressionPtr projected = ProjectStrict(*bound, *spec, *schema);
    std::string text = std::string(OperationSymbol(projected->op));
    for (const auto& value : projected->values) {
      text += " " + std::to_string(std::holds_alternative<int32_t>(value)
                                       ? std::get<int32_t>(value)
                                       : std::get<int64_t>(value));
    }
    return text;
  };
  const std::string epoch = "TIMESTAMP '1970-01-01 00:00:00'";
  EXPECT_EQ(project("day(ts)", "ts < " + epoch), "< 0");
  EXPECT_EQ(project("day(ts)", "ts <= " + epoch), "< 0");
  EXPECT_EQ(project("day(ts)", "ts > " + epoch), "> 1");
  EXPECT_EQ(project("day(ts)", "ts >= " + epoch), "> 0");
  EXPECT_EQ(project("day(ts)", "ts != " + epoch), "!= 0");
  EXPECT_EQ(OperationSymbol(Operation::kFalse), project("day(ts)", "ts = " + epoch));
  const std::string before = "TIMESTAMP '1969-01-01 00:00:00'";  // day -365
  EXPECT_EQ(project("day(ts)", "ts < " + before), "< -365");
  EXPECT_EQ(project("day(ts)", "ts > " + before), "> -364");
  EXPECT_EQ(project("day(ts)", "ts >= " + before), "> -365");
  EXPECT_EQ(project("day(ts)", "ts != " + before), "NOT IN -365 -364");
  // Dates' day is exact: no fix.
  EXPECT_EQ(project("day(dt)", "dt >= DATE '1969-01-01'"), "> -366");
  EXPECT_EQ(project("month(dt)", "dt >= DATE '1969-01-01'"), "> -12");
  EXPECT_EQ(project("truncate(10, id)", "id <= 59"), "< 60");
  EXPECT_EQ(project("truncate(10, id)", "id >= 75"), "> 70");
  EXPECT_EQ(OperationSymbol(Operation::kFalse), project("truncate(10, id)", "id = 5"));
  EXPECT_EQ(OperationSymbol(Operation::kFalse), project("bucket(4, id)", "id < 5"));
  EXPECT_EQ(project("bucket(4, id)", "id != 5").substr(0, 2), "!=");
}

// iceberg-java's inclusive projections of strict bounds through truncate: over longs and
// decimals the bound closes first (ProjectionUtil.truncateLong: id < 40 plans id_trunc
// <= 30, not partition 40); over strings it cannot (truncateArray).
TEST(ProjectInclusiveTest, StrictBoundsThroughTruncateCloseFirstOverIntegers) {
  auto schema = FlatSchema();
  auto project = [&](const std::string& partition_by, const std::string& filter) {
    auto spec = *ParsePartitionBy(partition_by, *schema);
    auto projected =
        ProjectInclusive(*Bind(*ParseFilter(filter), *schema), *spec, *schema);
    EXPECT_TRUE(projected.ok()) << filter;
    return (*projected)->ToString();
  };
  EXPECT_EQ(project("truncate(10, id)", "id < 40"), "id_trunc <= 30");
  EXPECT_EQ(project("truncate(10, id)", "id > 39"), "id_trunc >= 40");
  EXPECT_EQ(project("truncate(10, id)", "id <= 40"), "id_trunc <= 40");
  EXPECT_EQ(project("truncate(100, d)", "d < 3.00"), "d_trunc <= 2.00");
  EXPECT_EQ(project("truncate(1, s)", "s < 'b'"), "s_trunc <= 'b'");
}

}  // namespace
}  // namespace floe::iceberg
