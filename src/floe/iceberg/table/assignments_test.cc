// An update's --set parsed and evaluated on a batch: literals and arithmetic of the row's
// columns, checked against values computed here in plain C++, and the refusals.
#include "floe/iceberg/table/assignments_internal.h"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "arrow/api.h"
#include "floe/iceberg/spec/schema_ddl.h"
#include "floe/types/arrow_schema.h"
#include "floe/util/error.h"

namespace floe::iceberg {
namespace {

class AssignmentsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    schema_ = *ParseSchemaText(
        "qty int, total long not null, price double, ratio float, amount decimal(9, 2), "
        "name string");
    auto arrow_schema = *ToArrowSchema(*schema_);
    arrow::Int32Builder qty;
    arrow::Int64Builder total;
    arrow::DoubleBuilder price;
    arrow::FloatBuilder ratio;
    arrow::Decimal128Builder amount(arrow::decimal128(9, 2));
    arrow::StringBuilder name;
    ASSERT_TRUE(qty.AppendValues({3, -7}).ok());
    ASSERT_TRUE(qty.AppendNull().ok());
    ASSERT_TRUE(qty.Append(std::numeric_limits<int32_t>::max()).ok());
    ASSERT_TRUE(total.AppendValues({10, 20, 30, 40}).ok());
    ASSERT_TRUE(price.AppendValues({1.5, -0.0, 2.25}).ok());
    ASSERT_TRUE(price.AppendNull().ok());
    ASSERT_TRUE(ratio.AppendValues({0.5f, 1.0f, 2.0f, 4.0f}).ok());
    for (int64_t cents : {125, -1, 0, 99999}) {
      ASSERT_TRUE(amount.Append(arrow::Decimal128(cents)).ok());
    }
    ASSERT_TRUE(name.AppendValues({"a", "b", "c", "d"}).ok());
    batch_ =
        arrow::RecordBatch::Make(arrow_schema, 4,
                                 {*qty.Finish(), *total.Finish(), *price.Finish(),
                                  *ratio.Finish(), *amount.Finish(), *name.Finish()});
  }

  // The values `text`'s one assignment gives for the batch's first `rows` rows.
  std::shared_ptr<arrow::Array> Values(const std::string& text, int64_t rows = 4) {
    auto assignments = ParseAssignments(text, *schema_);
    EXPECT_TRUE(assignments.ok()) << assignments.status().ToString();
    if (!assignments.ok()) return nullptr;
    EXPECT_EQ(assignments->size(), 1u);
    auto value = (*assignments)[0].evaluate(*batch_->Slice(0, rows));
    EXPECT_TRUE(value.ok()) << value.status().ToString();
    if (!value.ok()) return nullptr;
    if (value->is_array()) return value->make_array();
    return *arrow::MakeArrayFromScalar(*value->scalar(), rows);
  }

  // The InvalidInput ParseAssignments gives `text`.
  std::string Refused(const std::string& text) {
    auto assignments = ParseAssignments(text, *schema_);
    EXPECT_FALSE(assignments.ok()) << text;
    if (assignments.ok()) return "";
    EXPECT_EQ(KindOf(assignments.status()), ErrorKind::kInvalidInput);
    return assignments.status().message();
  }

  SchemaPtr schema_;
  std::shared_ptr<arrow::RecordBatch> batch_;
};

TEST_F(AssignmentsTest, LiteralsConvertAsFilterLiterals) {
  auto values = Values("price = -0.0");
  ASSERT_TRUE(values);
  const auto& doubles = static_cast<const arrow::DoubleArray&>(*values);
  EXPECT_TRUE(std::signbit(doubles.Value(0)));
  auto names = Values("name = 'it''s, (odd)'");
  ASSERT_TRUE(names);
  EXPECT_EQ(static_cast<const arrow::StringArray&>(*names).GetString(3), "it's, (odd)");
  auto nulls = Values("qty = NULL");
  ASSERT_TRUE(nulls);
  EXPECT_EQ(nulls->null_count(), 4);
}

TEST_F(AssignmentsTest, ArithmeticOfTheRowsColumns) {
  // Integers: + - * with precedence and parentheses; NULL stays NULL (the fourth row
  // would overflow: OverflowFailsWhenEvaluated).
  auto qty = Values("qty = (qty + 1) * 2 - -3", 3);
  ASSERT_TRUE(qty);
  const auto& ints = static_cast<const arrow::Int32Array&>(*qty);
  EXPECT_EQ(ints.Value(0), (3 + 1) * 2 + 3);
  EXPECT_EQ(ints.Value(1), (-7 + 1) * 2 + 3);
  EXPECT_TRUE(ints.IsNull(2));
  // A long from an int column and a long column.
  auto total = Values("total = total * 3 + qty");
  ASSERT_TRUE(total);
  const auto& longs = static_cast<const arrow::Int64Array&>(*total);
  EXPECT_EQ(longs.Value(1), 20 * 3 - 7);
  EXPECT_EQ(longs.Value(3), 40 * 3 + int64_t{std::numeric_limits<int32_t>::max()});
  // Doubles: every operator, ints and floats widened, IEEE results bit for bit.
  auto price = Values("price = (price * -2.5 + qty) / ratio");
  ASSERT_TRUE(price);
  const auto& doubles = static_cast<const arrow::DoubleArray&>(*price);
  EXPECT_EQ(doubles.Value(0), (1.5 * -2.5 + 3) / 0.5);
  EXPECT_EQ(doubles.Value(1), (-0.0 * -2.5 + -7) / 1.0);
  EXPECT_TRUE(doubles.IsNull(2));  // qty is NULL
  EXPECT_TRUE(doubles.IsNull(3));  // price is NULL
  // Decimals: + and - in the column's scale.
  auto amount = Values("amount = amount + 1.25 - amount");
  ASSERT_TRUE(amount);
  EXPECT_EQ(amount->type()->ToString(), "decimal128(9, 2)");
  EXPECT_EQ(static_cast<const arrow::Decimal128Array&>(*amount).FormatValue(2), "1.25");
}

TEST_F(AssignmentsTest, OverflowFailsWhenEvaluated) {
  auto assignments = ParseAssignments("qty = qty * 2", *schema_);
  ASSERT_TRUE(assignments.ok()) << assignments.status().ToString();
  auto value = (*assignments)[0].evaluate(*batch_);
  ASSERT_FALSE(value.ok());  // INT32_MAX * 2, as Spark's ANSI mode refuses it
  EXPECT_NE(value.status().message().find("overflow"), std::string::npos)
      << value.status().ToString();
  auto decimal = ParseAssignments("amount = amount + 9999999.99", *schema_);
  ASSERT_TRUE(decimal.ok()) << decimal.status().ToString();
  EXPECT_FALSE((*decimal)[0].evaluate(*batch_).ok());  // 999.99 + 9999999.99: 10 digits
}

// Decimal arithmetic as Spark computes it: exact + - *, / rounded half up at its result
// scale (max(6, s1 + p2 + 1)), the result rounded half up to the column's scale; values
// worked out by hand with Python's decimal module. An integer column's / computes in
// double and truncates towards zero, as Spark's double division and ANSI cast do.
TEST_F(AssignmentsTest, DecimalsAndIntegerDivisionAsSparkComputesThem) {
  auto text = [](const std::shared_ptr<arrow::Array>& values, int64_t row) {
    return static_cast<const arrow::Decimal128Array&>(*values).FormatValue(row);
  };
  // amount: 1.25, -0.01, 0.00, 999.99 (decimal(9, 2)).
  auto scaled = Values("amount = amount * 1.1 + 2");
  ASSERT_TRUE(scaled);
  EXPECT_EQ(scaled->type()->ToString(), "decimal128(9, 2)");
  EXPECT_EQ(text(scaled, 0), "3.38");  // 3.375, half up
  EXPECT_EQ(text(scaled, 1), "1.99");  // 1.989
  EXPECT_EQ(text(scaled, 2), "2.00");
  EXPECT_EQ(text(scaled, 3), "1101.99");  // 1101.989
  auto divided = Values("amount = amount / 3");
  ASSERT_TRUE(divided);
  EXPECT_EQ(text(divided, 0), "0.42");  // 0.416667
  EXPECT_EQ(text(divided, 1), "0.00");  // -0.003333
  EXPECT_EQ(text(divided, 3), "333.33");
  auto negative = Values("amount = -amount * 0.005");  // -0.00625 -> -0.01, half up
  ASSERT_TRUE(negative);
  EXPECT_EQ(text(negative, 0), "-0.01");
  EXPECT_EQ(text(negative, 3), "-5.00");                    // -4.99995
  auto mixed = Values("amount = amount * qty + total", 2);  // int and long columns
  ASSERT_TRUE(mixed);
  EXPECT_EQ(text(mixed, 0), "13.75");  // 1.25 * 3 + 10
  EXPECT_EQ(text(mixed, 1), "20.07");  // -0.01 * -7 + 20
  auto by_zero = ParseAssignments("amount = amount / (qty - qty)", *schema_);
  ASSERT_TRUE(by_zero.ok()) << by_zero.status().ToString();
  auto failed = (*by_zero)[0].evaluate(*batch_->Slice(0, 1));
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.status().message().find("division by zero"), std::string::npos);

  // qty: 3, -7, NULL, INT32_MAX.
  auto halved = Values("qty = qty / 2");
  ASSERT_TRUE(halved);
  const auto& ints = static_cast<const arrow::Int32Array&>(*halved);
  EXPECT_EQ(ints.Value(0), 1);   // 1.5
  EXPECT_EQ(ints.Value(1), -3);  // -3.5, towards zero
  EXPECT_TRUE(ints.IsNull(2));
  EXPECT_EQ(ints.Value(3), 1073741823);
  auto longs = Values("total = (total + qty) / 4 * 3");
  ASSERT_TRUE(longs);
  EXPECT_EQ(static_cast<const arrow::Int64Array&>(*longs).Value(0), 9);  // 9.75
  EXPECT_EQ(static_cast<const arrow::Int64Array&>(*longs).Value(1), 9);  // 9.75
  auto zero = ParseAssignments("qty = qty / 0", *schema_);
  ASSERT_TRUE(zero.ok()) << zero.status().ToString();
  EXPECT_FALSE((*zero)[0].evaluate(*batch_).ok());
  // 2^31 - 1 + 0.5 truncates to INT32_MAX; twice it overflows.
  auto overflow = ParseAssignments("qty = qty / 1 * 2", *schema_);
  ASSERT_TRUE(overflow.ok());
  auto too_big = (*overflow)[0].evaluate(*batch_);
  ASSERT_FALSE(too_big.ok());
  EXPECT_NE(too_big.status().message().find("out of the range of int"), std::string::npos)
      << too_big.status().ToString();
}

// Integers past 2^53 widen to the nearest double, as Java's (double) does, instead of
// failing: 2^53 + 1 reads as 2^53.
TEST(AssignmentsWideningTest, LargeIntegersBecomeTheNearestDouble) {
  auto schema = *ParseSchemaText("big long, ratio double");
  arrow::Int64Builder big;
  arrow::DoubleBuilder ratio;
  ASSERT_TRUE(big.Append((int64_t{1} << 53) + 1).ok());
  ASSERT_TRUE(ratio.Append(0.5).ok());
  auto batch = arrow::RecordBatch::Make(*ToArrowSchema(*schema), 1,
                                        {*big.Finish(), *ratio.Finish()});
  for (const char* text : {"ratio = big * 1.0", "big = big / 1"}) {
    auto assignments = ParseAssignments(text, *schema);
    ASSERT_TRUE(assignments.ok()) << assignments.status().ToString();
    auto value = (*assignments)[0].evaluate(*batch);
    ASSERT_TRUE(value.ok()) << text << ": " << value.status().ToString();
    auto scalar = *value->make_array()->GetScalar(0);
    if (scalar->type->id() == arrow::Type::DOUBLE) {
      EXPECT_EQ(static_cast<const arrow::DoubleScalar&>(*scalar).value,
                9007199254740992.0);
    } else {
      EXPECT_EQ(static_cast<const arrow::Int64Scalar&>(*scalar).value,
                int64_t{9007199254740992});
    }
  }
}

TEST_F(AssignmentsTest, RefusesWhatItCannotComputeExactly) {
  EXPECT_NE(Refused("qty = 1.5").find("1.5"), std::string::npos);
  EXPECT_NE(Refused("qty = price").find("cannot stand in arithmetic"), std::string::npos);
  EXPECT_NE(Refused("qty = qty / 2.5").find("2.5"), std::string::npos);
  EXPECT_NE(Refused("amount = amount * price").find("Spark would compute in double"),
            std::string::npos);
  // decimal(9, 2) * decimal(36, 0) needs 46 digits: Spark would round it.
  EXPECT_NE(Refused("amount = amount * 100000000000000000000000000000000000")
                .find("more than 38 digits"),
            std::string::npos);
  EXPECT_NE(Refused("name = name + 1").find("name"), std::string::npos);
  EXPECT_NE(Refused("price = nope + 1").find("no top-level column nope"),
            std::string::npos);
  EXPECT_NE(Refused("price = price + 1)").find("unexpected ')'"), std::string::npos);
  EXPECT_NE(Refused("price = (price + 1").find("expected ')'"), std::string::npos);
  EXPECT_NE(Refused("price = price + 'x'").find("unexpected"), std::string::npos);
  EXPECT_NE(Refused("total = NULL").find("required"), std::string::npos);
  EXPECT_NE(Refused("price = 1, price = 2").find("twice"), std::string::npos);
  std::string deep = "price = ";
  for (int i = 0; i < 100; ++i) deep += "(";
  EXPECT_NE(Refused(deep + "1").find("nests too deeply"), std::string::npos);
}

}  // namespace
}  // namespace floe::iceberg
