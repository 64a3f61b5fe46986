#include "floe/task/batch_conformer.h"

#include <gtest/gtest.h>

#include "arrow/api.h"
#include "arrow/json/from_string.h"
#include "floe/testing/temp_directory.h"
#include "floe/util/error.h"

namespace floe {
namespace {

std::shared_ptr<arrow::Array> Ints(const std::string& json,
                                   const std::shared_ptr<arrow::DataType>& type) {
  return *arrow::json::ArrayFromJSONString(type, json);
}

// A table's schema as a format without Iceberg's types writes it (Delta's byte column),
// with a nested struct whose fields the input gives in another order.
std::shared_ptr<arrow::Schema> Target() {
  auto point = arrow::struct_(
      {arrow::field("x", arrow::float64(), false), arrow::field("y", arrow::float64())});
  return arrow::schema({arrow::field("id", arrow::int64(), false),
                        arrow::field("small", arrow::int8()), arrow::field("p", point),
                        arrow::field("note", arrow::utf8())});
}

TEST(BatchConformerTest, FitsColumnsByNameAtEveryDepthAndFillsMissingOptionalOnes) {
  auto input_point = arrow::struct_(
      {arrow::field("y", arrow::float64()), arrow::field("x", arrow::float64())});
  auto input = arrow::schema({arrow::field("p", input_point),
                              arrow::field("small", arrow::int64()),
                              arrow::field("id", arrow::int32())});
  auto points =
      *arrow::json::ArrayFromJSONString(input_point, R"([{"y": 2, "x": 1}, null])");
  auto batch = arrow::RecordBatch::Make(
      input, 2,
      {points, Ints("[7, -128]", arrow::int64()), Ints("[1, 2]", arrow::int32())});
  FLOE_ASSIGN_OR_FAIL(auto conformer, BatchConformer::Make(*input, Target(), "table t"));
  FLOE_ASSIGN_OR_FAIL(auto conformed, conformer->Conform(*batch));
  EXPECT_TRUE(conformed->schema()->Equals(*Target()));
  auto expected = arrow::RecordBatch::Make(
      Target(), 2,
      {Ints("[1, 2]", arrow::int64()), Ints("[7, -128]", arrow::int8()),
       *arrow::json::ArrayFromJSONString(Target()->field(2)->type(),
                                         R"([{"x": 1, "y": 2}, null])"),
       Ints("[null, null]", arrow::utf8())});
  EXPECT_TRUE(conformed->Equals(*expected)) << conformed->ToString();
  // The same rows through ConformBatch, which takes any schema batch by batch.
  FLOE_ASSIGN_OR_FAIL(auto again, ConformBatch(*batch, Target(), "table t"));
  EXPECT_TRUE(again->Equals(*expected));
}

TEST(BatchConformerTest, RefusesWhatDoesNotFitNamingTheTableAndColumn) {
  auto expect_refused = [](const arrow::RecordBatch& batch, const std::string& needle) {
    auto conformed = ConformBatch(batch, Target(), "Delta table /data/t");
    ASSERT_FALSE(conformed.ok()) << needle;
    EXPECT_EQ(KindOf(conformed.status()), ErrorKind::kInvalidInput);
    EXPECT_NE(conformed.status().message().find("Delta table /data/t, column '" + needle),
              std::string::npos)
        << conformed.status().message();
  };
  auto id = Ints("[1]", arrow::int64());
  // A column the table does not have.
  expect_refused(
      *arrow::RecordBatch::Make(arrow::schema({arrow::field("id", arrow::int64()),
                                               arrow::field("extra", arrow::int64())}),
                                1, {id, id}),
      "extra'");
  // A required column missing, and one holding a null.
  expect_refused(
      *arrow::RecordBatch::Make(arrow::schema({arrow::field("note", arrow::utf8())}), 1,
                                {Ints(R"(["a"])", arrow::utf8())}),
      "id'");
  expect_refused(
      *arrow::RecordBatch::Make(arrow::schema({arrow::field("id", arrow::int64())}), 1,
                                {Ints("[null]", arrow::int64())}),
      "id'");
  // A value out of the narrower column's range: an error, never a wrapped value.
  expect_refused(
      *arrow::RecordBatch::Make(arrow::schema({arrow::field("id", arrow::int64()),
                                               arrow::field("small", arrow::int64())}),
                                1, {id, Ints("[128]", arrow::int64())}),
      "small'");
  // A null in a nested required field.
  auto point = arrow::struct_({arrow::field("x", arrow::float64())});
  expect_refused(
      *arrow::RecordBatch::Make(
          arrow::schema({arrow::field("id", arrow::int64()), arrow::field("p", point)}),
          1, {id, *arrow::json::ArrayFromJSONString(point, R"([{"x": null}])")}),
      "p.x'");
}

TEST(BatchConformerTest, ABatchOfAnotherSchemaThanTheInputsIsRefused) {
  auto input = arrow::schema({arrow::field("id", arrow::int64())});
  FLOE_ASSIGN_OR_FAIL(auto conformer, BatchConformer::Make(*input, Target(), "table t"));
  auto other =
      arrow::RecordBatch::Make(arrow::schema({arrow::field("id", arrow::int32())}), 1,
                               {Ints("[1]", arrow::int32())});
  auto conformed = conformer->Conform(*other);
  ASSERT_FALSE(conformed.ok());
  EXPECT_NE(conformed.status().message().find("table t: a batch's schema differs"),
            std::string::npos);
}

}  // namespace
}  // namespace floe
