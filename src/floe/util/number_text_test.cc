#include "floe/util/number_text.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <clocale>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace floe {
namespace {

// The C library's strtoll, with the checks Java's Long.parseLong makes around it: the
// independent reference for the integer parsers.
std::optional<int64_t> ReferenceLong(const std::string& text) {
  if (text.empty()) return std::nullopt;
  size_t first = (text[0] == '+' || text[0] == '-') ? 1 : 0;
  if (first == text.size()) return std::nullopt;
  for (size_t i = first; i < text.size(); ++i) {
    if (text[i] < '0' || text[i] > '9') return std::nullopt;
  }
  errno = 0;
  char* end = nullptr;
  long long value = std::strtoll(text.c_str(), &end, 10);
  if (errno == ERANGE || end != text.c_str() + text.size()) return std::nullopt;
  return static_cast<int64_t>(value);
}

// Texts at and around every edge: int32's and int64's limits, one past them, 20-digit
// numbers, leading zeros, signs, spaces, empty, lone signs and doubled signs.
std::vector<std::string> IntegerTexts() {
  std::vector<std::string> texts = {
      "0",
      "-0",
      "+0",
      "00000000000000000000000000000000042",
      "-000000000000000000000000000000042",
      "2147483647",
      "2147483648",
      "-2147483648",
      "-2147483649",
      "9223372036854775807",
      "9223372036854775808",
      "-9223372036854775808",
      "-9223372036854775809",
      "+9223372036854775807",
      "18446744073709551615",
      "18446744073709551616",
      "99999999999999999999",
      "-99999999999999999999",
      "00009223372036854775807",
      "100000000000000000000000000000000000000000",
      "",
      "+",
      "-",
      "--1",
      "+-1",
      "-+1",
      "++1",
      " 1",
      "1 ",
      "1_000",
      "1.0",
      "1e3",
      "0x10",
      "\xd9\xa1",  // ARABIC-INDIC DIGIT ONE: Java reads it, floe does not
      "12a",
  };
  std::mt19937_64 random(20261206);
  for (int i = 0; i < 2000; ++i) {
    std::string text;
    switch (random() % 3) {
      case 0:
        text = std::to_string(static_cast<int64_t>(random()));
        break;
      case 1:
        text = std::to_string(static_cast<int32_t>(random())) +
               std::string(random() % 3, '0');
        break;
      default:
        text = std::string(random() % 2 ? "-" : "") + std::to_string(random()) +
               std::to_string(random() % 1000);
        break;
    }
    texts.push_back(text);
  }
  return texts;
}

TEST(NumberTextTest, LongsAndIntsAsJavaParsesThem) {
  for (const std::string& text : IntegerTexts()) {
    const auto expected = ReferenceLong(text);
    EXPECT_EQ(ParseJavaLong(text), expected) << "'" << text << "'";
    std::optional<int32_t> expected_int;
    if (expected && *expected >= std::numeric_limits<int32_t>::min() &&
        *expected <= std::numeric_limits<int32_t>::max()) {
      expected_int = static_cast<int32_t>(*expected);
    }
    EXPECT_EQ(ParseJavaInt(text), expected_int) << "'" << text << "'";
    const bool unsigned_digits = !text.empty() && text[0] != '+' && text[0] != '-';
    EXPECT_EQ(ParseDigits(text), unsigned_digits ? expected : std::nullopt)
        << "'" << text << "'";
  }
  EXPECT_EQ(ParseJavaLong("-9223372036854775808"), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(ParseJavaLong("9223372036854775807"), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(ParseDigits("0000000000010"), 10);
}

TEST(NumberTextTest, JavaBooleansAreTrueInAnyCaseAndFalseOtherwise) {
  EXPECT_TRUE(ParseJavaBoolean("true"));
  EXPECT_TRUE(ParseJavaBoolean("TRUE"));
  EXPECT_TRUE(ParseJavaBoolean("tRuE"));
  for (const char* text : {"", "1", "yes", "t", "true ", " true", "truth", "TRUE\n"}) {
    EXPECT_FALSE(ParseJavaBoolean(text)) << "'" << text << "'";
  }
}

// strtod in the C locale is the reference for every number within range; beyond it,
// floe reports the overflow (which strtod gives as HUGE_VAL with ERANGE).
TEST(NumberTextTest, DoublesAsStrtodReadsThemWithOverflowReported) {
  ASSERT_NE(std::setlocale(LC_NUMERIC, "C"), nullptr);
  std::vector<std::string> texts = {
      "0",
      "-0",
      "-0.0",
      "1",
      "+1.5",
      "1.",
      ".5",
      "-.5e-3",
      "1e308",
      "-1e308",
      "1.7976931348623157e308",
      "1.7976931348623158e308",  // rounds to DBL_MAX, as Java's parser does
      "1.7976931348623159e308",  // rounds past it
      "1e309",
      "-1e309",
      "1e400",
      "-1e400",
      "1e-400",
      "-1e-400",
      "4.9e-324",
      "2.4703282292062328e-324",  // just above half the smallest subnormal: rounds up
      "2e-324",                   // below it: zero
      "2.2250738585072014e-308",
      "0.000000000000000000000000000000000000000000000000000001e-300",
      "100000000000000000000000000000000000000000000000000000000e300",
      "0e999999999999999999999",
      "1e-999999999999999999999",
      "9223372036854775808",
      "-9223372036854775809",
      "123456789012345678901234567890",
      "1E5",
      "1e+5",
  };
  std::mt19937_64 random(7);
  for (int i = 0; i < 2000; ++i) {
    std::uniform_int_distribution<int> exponent(-340, 320);
    texts.push_back(std::to_string(static_cast<int64_t>(random() % 1000000)) + "." +
                    std::to_string(random() % 100000) + "e" +
                    std::to_string(exponent(random)));
  }
  for (const std::string& text : texts) {
    auto parsed = ParseDecimalDouble(text);
    ASSERT_TRUE(parsed.has_value()) << text;
    errno = 0;
    const double expected = std::strtod(text.c_str(), nullptr);
    const bool overflow = errno == ERANGE && std::isinf(expected);
    EXPECT_EQ(parsed->out_of_range, overflow) << text;
    if (overflow) {
      EXPECT_TRUE(std::isinf(parsed->value)) << text;
      EXPECT_EQ(std::signbit(parsed->value), text[0] == '-') << text;
    } else {
      EXPECT_EQ(parsed->value, expected) << text;
      EXPECT_EQ(std::signbit(parsed->value), std::signbit(expected)) << text;
    }
  }
}

TEST(NumberTextTest, DoublesRefuseWhatIsNotADecimalNumber) {
  for (const char* text : {"",   "+",  "-",   ".",        "e5",   "1e",    "1e+", "1.2.3",
                           " 1", "1 ", "inf", "Infinity", "-inf", "nan",   "NaN", "0x1p3",
                           "1d", "1f", "1_0", "--1",      "+-1",  "1e5.5", "1ee5"}) {
    EXPECT_FALSE(ParseDecimalDouble(text).has_value()) << "'" << text << "'";
  }
}

}  // namespace
}  // namespace floe
