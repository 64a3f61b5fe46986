#include "lineitem.h"

#include <array>
#include <string>

#include "arrow/builder.h"
#include "arrow/util/decimal.h"
#include "floe/util/date_time.h"

namespace floe::bench {
namespace {

// splitmix64: small, fast and fully deterministic.
class Random {
 public:
  explicit Random(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  int64_t Uniform(int64_t low, int64_t high) {  // inclusive
    return low + static_cast<int64_t>(Next() % static_cast<uint64_t>(high - low + 1));
  }

 private:
  uint64_t state_;
};

constexpr std::array<const char*, 3> kFlags = {"R", "A", "N"};
constexpr std::array<const char*, 2> kStatus = {"O", "F"};
constexpr std::array<const char*, 4> kInstructions = {"DELIVER IN PERSON", "COLLECT COD",
                                                      "NONE", "TAKE BACK RETURN"};
constexpr std::array<const char*, 7> kModes = {"REG AIR", "AIR",  "RAIL", "SHIP",
                                               "TRUCK",   "MAIL", "FOB"};
constexpr std::array<const char*, 16> kWords = {
    "furiously", "quickly",  "carefully",   "blithely", "slyly",    "ironic",
    "final",     "regular",  "express",     "pending",  "deposits", "requests",
    "packages",  "accounts", "theodolites", "pinto"};

class LineitemReader final : public arrow::RecordBatchReader {
 public:
  LineitemReader(int64_t rows, int64_t batch_rows, int days, uint64_t seed)
      : rows_(rows), batch_rows_(batch_rows), days_(days), random_(seed) {}

  std::shared_ptr<arrow::Schema> schema() const override { return LineitemSchema(); }

  arrow::Status ReadNext(std::shared_ptr<arrow::RecordBatch>* out) override {
    if (next_ >= rows_) {
      *out = nullptr;
      return arrow::Status::OK();
    }
    int64_t count = std::min(batch_rows_, rows_ - next_);
    arrow::Int64Builder orderkey, partkey, suppkey;
    arrow::Int32Builder linenumber;
    auto money = arrow::decimal128(15, 2);
    arrow::Decimal128Builder quantity(money), price(money), discount(money), tax(money);
    arrow::StringBuilder returnflag, linestatus, instruct, mode, comment;
    arrow::Date32Builder shipdate, commitdate, receiptdate;
    const auto base = static_cast<int32_t>(DaysFromCivil(1995, 1, 1));
    std::string text;
    for (int64_t i = 0; i < count; ++i) {
      int64_t row = next_ + i;
      ARROW_RETURN_NOT_OK(orderkey.Append(row / 4 + 1));
      ARROW_RETURN_NOT_OK(partkey.Append(random_.Uniform(1, 200000)));
      ARROW_RETURN_NOT_OK(suppkey.Append(random_.Uniform(1, 10000)));
      ARROW_RETURN_NOT_OK(linenumber.Append(static_cast<int32_t>(row % 4 + 1)));
      int64_t units = random_.Uniform(1, 50);
      ARROW_RETURN_NOT_OK(quantity.Append(arrow::Decimal128(units * 100)));
      ARROW_RETURN_NOT_OK(
          price.Append(arrow::Decimal128(units * random_.Uniform(90000, 210000))));
      ARROW_RETURN_NOT_OK(discount.Append(arrow::Decimal128(random_.Uniform(0, 10))));
      ARROW_RETURN_NOT_OK(tax.Append(arrow::Decimal128(random_.Uniform(0, 8))));
      ARROW_RETURN_NOT_OK(
          returnflag.Append(kFlags[static_cast<size_t>(random_.Uniform(0, 2))]));
      ARROW_RETURN_NOT_OK(
          linestatus.Append(kStatus[static_cast<size_t>(random_.Uniform(0, 1))]));
      // Ship dates rise with the row number: the input arrives clustered by day.
      int32_t ship = base + static_cast<int32_t>(row * days_ / rows_);
      ARROW_RETURN_NOT_OK(shipdate.Append(ship));
      ARROW_RETURN_NOT_OK(
          commitdate.Append(ship + static_cast<int32_t>(random_.Uniform(-30, 60))));
      ARROW_RETURN_NOT_OK(
          receiptdate.Append(ship + static_cast<int32_t>(random_.Uniform(1, 30))));
      ARROW_RETURN_NOT_OK(
          instruct.Append(kInstructions[static_cast<size_t>(random_.Uniform(0, 3))]));
      ARROW_RETURN_NOT_OK(
          mode.Append(kModes[static_cast<size_t>(random_.Uniform(0, 6))]));
      text.clear();
      int64_t words = random_.Uniform(3, 6);
      for (int64_t w = 0; w < words; ++w) {
        if (w > 0) text.push_back(' ');
        text += kWords[static_cast<size_t>(random_.Uniform(0, 15))];
      }
      ARROW_RETURN_NOT_OK(comment.Append(text));
    }
    arrow::ArrayVector columns(16);
    ARROW_RETURN_NOT_OK(orderkey.Finish(&columns[0]));
    ARROW_RETURN_NOT_OK(partkey.Finish(&columns[1]));
    ARROW_RETURN_NOT_OK(suppkey.Finish(&columns[2]));
    ARROW_RETURN_NOT_OK(linenumber.Finish(&columns[3]));
    ARROW_RETURN_NOT_OK(quantity.Finish(&columns[4]));
    ARROW_RETURN_NOT_OK(price.Finish(&columns[5]));
    ARROW_RETURN_NOT_OK(discount.Finish(&columns[6]));
    ARROW_RETURN_NOT_OK(tax.Finish(&columns[7]));
    ARROW_RETURN_NOT_OK(returnflag.Finish(&columns[8]));
    ARROW_RETURN_NOT_OK(linestatus.Finish(&columns[9]));
    ARROW_RETURN_NOT_OK(shipdate.Finish(&columns[10]));
    ARROW_RETURN_NOT_OK(commitdate.Finish(&columns[11]));
    ARROW_RETURN_NOT_OK(receiptdate.Finish(&columns[12]));
    ARROW_RETURN_NOT_OK(instruct.Finish(&columns[13]));
    ARROW_RETURN_NOT_OK(mode.Finish(&columns[14]));
    ARROW_RETURN_NOT_OK(comment.Finish(&columns[15]));
    next_ += count;
    *out = arrow::RecordBatch::Make(LineitemSchema(), count, std::move(columns));
    return arrow::Status::OK();
  }

 private:
  int64_t rows_;
  int64_t batch_rows_;
  int days_;
  Random random_;
  int64_t next_ = 0;
};

}  // namespace

std::shared_ptr<arrow::Schema> LineitemSchema() {
  auto money = arrow::decimal128(15, 2);
  return arrow::schema({
      arrow::field("l_orderkey", arrow::int64(), false),
      arrow::field("l_partkey", arrow::int64(), false),
      arrow::field("l_suppkey", arrow::int64(), false),
      arrow::field("l_linenumber", arrow::int32(), false),
      arrow::field("l_quantity", money),
      arrow::field("l_extendedprice", money),
      arrow::field("l_discount", money),
      arrow::field("l_tax", money),
      arrow::field("l_returnflag", arrow::utf8()),
      arrow::field("l_linestatus", arrow::utf8()),
      arrow::field("l_shipdate", arrow::date32()),
      arrow::field("l_commitdate", arrow::date32()),
      arrow::field("l_receiptdate", arrow::date32()),
      arrow::field("l_shipinstruct", arrow::utf8()),
      arrow::field("l_shipmode", arrow::utf8()),
      arrow::field("l_comment", arrow::utf8()),
  });
}

std::shared_ptr<arrow::RecordBatchReader> MakeLineitemReader(int64_t rows,
                                                             int64_t batch_rows, int days,
                                                             uint64_t seed) {
  return std::make_shared<LineitemReader>(rows, batch_rows, days, seed);
}

const char* LineitemSchemaText() {
  return "l_orderkey long not null, l_partkey long not null, l_suppkey long not null, "
         "l_linenumber int not null, l_quantity decimal(15, 2), l_extendedprice "
         "decimal(15, 2), "
         "l_discount decimal(15, 2), l_tax decimal(15, 2), l_returnflag string, "
         "l_linestatus string, l_shipdate date, l_commitdate date, l_receiptdate date, "
         "l_shipinstruct string, l_shipmode string, l_comment string";
}

}  // namespace floe::bench
