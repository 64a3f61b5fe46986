#include "floe/util/java_text.h"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "floe/util/date_time.h"

namespace floe {
namespace {

// Expected strings are java.net.URLEncoder and Double.toString outputs (JDK 19+), as
// listed in the iceberg-java reference.
TEST(JavaTextTest, UrlEncodesLikeJava) {
  EXPECT_EQ(JavaUrlEncode("a/b/c/d"), "a%2Fb%2Fc%2Fd");
  EXPECT_EQ(JavaUrlEncode("\"esc\"#1"), "%22esc%22%231");
  EXPECT_EQ(JavaUrlEncode("a b"), "a+b");
  EXPECT_EQ(JavaUrlEncode(":+=~!'()"), "%3A%2B%3D%7E%21%27%28%29");
  EXPECT_EQ(JavaUrlEncode("ü"), "%C3%BC");
  EXPECT_EQ(JavaUrlEncode("AZaz09.-*_"), "AZaz09.-*_");
  EXPECT_EQ(JavaUrlEncode("2017-11-16T22:31:08+00:00"),
            "2017-11-16T22%3A31%3A08%2B00%3A00");
}

TEST(JavaTextTest, FormatsDoublesLikeJava) {
  EXPECT_EQ(JavaDoubleToString(1.0), "1.0");
  EXPECT_EQ(JavaDoubleToString(-0.0), "-0.0");
  EXPECT_EQ(JavaDoubleToString(0.0), "0.0");
  EXPECT_EQ(JavaDoubleToString(1.0e-5), "1.0E-5");
  EXPECT_EQ(JavaDoubleToString(1.0e7), "1.0E7");
  EXPECT_EQ(JavaDoubleToString(1.23456789e8), "1.23456789E8");
  EXPECT_EQ(JavaDoubleToString(9999999.0), "9999999.0");
  EXPECT_EQ(JavaDoubleToString(0.001), "0.001");
  EXPECT_EQ(JavaDoubleToString(0.0001), "1.0E-4");
  EXPECT_EQ(JavaDoubleToString(123.456), "123.456");
  EXPECT_EQ(JavaDoubleToString(-1.5), "-1.5");
  EXPECT_EQ(JavaDoubleToString(std::nan("")), "NaN");
  EXPECT_EQ(JavaDoubleToString(std::numeric_limits<double>::infinity()), "Infinity");
  EXPECT_EQ(JavaDoubleToString(-std::numeric_limits<double>::infinity()), "-Infinity");
  EXPECT_EQ(JavaDoubleToString(2e23),
            "2.0E23");  // JDK 19+ (JDK 17 prints 1.9999999999999998E23)
  EXPECT_EQ(JavaFloatToString(0.1f), "0.1");
  EXPECT_EQ(JavaFloatToString(1.0e10f), "1.0E10");
}

// The smallest subnormals: one shortest digit, but a two-digit decimal closer to the
// value (printed by JDK 25.0.3's Double.toString and Float.toString).
TEST(JavaTextTest, SubnormalsTakeTheClosestOfOneOrTwoDigits) {
  const double min = std::numeric_limits<double>::denorm_min();
  EXPECT_EQ(JavaDoubleToString(min), "4.9E-324");
  EXPECT_EQ(JavaDoubleToString(-min), "-4.9E-324");
  EXPECT_EQ(JavaDoubleToString(2 * min), "9.9E-324");  // JDK 17: 1.0E-323
  EXPECT_EQ(JavaDoubleToString(3 * min), "1.5E-323");
  EXPECT_EQ(JavaDoubleToString(10 * min), "4.9E-323");
  const float min_float = std::numeric_limits<float>::denorm_min();
  EXPECT_EQ(JavaFloatToString(min_float), "1.4E-45");
  EXPECT_EQ(JavaFloatToString(2 * min_float), "2.8E-45");
  EXPECT_EQ(JavaFloatToString(3 * min_float), "4.2E-45");
  EXPECT_EQ(JavaFloatToString(std::numeric_limits<float>::min()), "1.1754944E-38");
  EXPECT_EQ(JavaFloatToString(8.589973e9f), "8.589974E9");
  EXPECT_EQ(JavaDoubleToString(std::numeric_limits<double>::max()),
            "1.7976931348623157E308");
}

TEST(JavaTextTest, Base64WithPadding) {
  EXPECT_EQ(Base64Encode(std::string("\0\1\2\3", 4)), "AAECAw==");
  EXPECT_EQ(Base64Encode("ab"), "YWI=");
  EXPECT_EQ(Base64Encode("abc"), "YWJj");
  EXPECT_EQ(Base64Encode(""), "");
}

TEST(DateTimeTest, CivilConversionsOverTheWholeRange) {
  EXPECT_EQ(CivilFromDays(0), (CivilDate{1970, 1, 1}));
  EXPECT_EQ(CivilFromDays(-1), (CivilDate{1969, 12, 31}));
  EXPECT_EQ(CivilFromDays(17486), (CivilDate{2017, 11, 16}));
  // The largest Iceberg date (int max days) is 5881580-07-11; the smallest
  // -5877641-06-23.
  EXPECT_EQ(CivilFromDays(2147483647), (CivilDate{5881580, 7, 11}));
  EXPECT_EQ(CivilFromDays(-2147483648LL), (CivilDate{-5877641, 6, 23}));
  for (int64_t days = -800000; days <= 800000; days += 997) {
    CivilDate date = CivilFromDays(days);
    EXPECT_EQ(DaysFromCivil(date.year, date.month, date.day), days);
  }
  EXPECT_EQ(FormatDate(-719529), "-001-12-31");  // astronomical year -1
  EXPECT_EQ(FormatIsoDateTime(1510871468123456, 1000000), "2017-11-16T22:31:08.123456");
  EXPECT_EQ(FormatIsoDateTime(100000, 1000000), "1970-01-01T00:00:00.1");
  EXPECT_EQ(FormatIsoDateTime(0, 1000000), "1970-01-01T00:00:00");
  EXPECT_EQ(FormatIsoDateTime(-1, 1000000), "1969-12-31T23:59:59.999999");
  EXPECT_EQ(FormatIsoDateTime(253402300800000000LL, 1000000), "+10000-01-01T00:00:00");
  EXPECT_EQ(FormatLocalTime(60000000), "00:01");
  EXPECT_EQ(FormatLocalTime(81068000000), "22:31:08");
  EXPECT_EQ(FormatLocalTime(100000), "00:00:00.100");
  EXPECT_EQ(FormatLocalTime(123450), "00:00:00.123450");
}

}  // namespace
}  // namespace floe

#include "floe/util/utf8_internal.h"

namespace floe {
namespace {

TEST(Utf8Test, AcceptsWellFormedTextOnly) {
  for (const char* good : {"", "abc", "ü", "€", "\xF0\x9F\x98\x80", "a\0b"}) {
    EXPECT_TRUE(IsValidUtf8(good)) << good;
  }
  for (const char* bad : {"\xff", "\xC0\xAF", "\xE0\x80\xAF", "\xED\xA0\x80",
                          "\xF4\x90\x80\x80", "\xC3", "\xE2\x82", "a\x80"}) {
    EXPECT_FALSE(IsValidUtf8(bad)) << bad;
  }
}

TEST(JavaTextTest, DoubleCompareOrdersAsJava) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_LT(JavaDoubleCompare(-0.0, 0.0), 0);
  EXPECT_GT(JavaDoubleCompare(0.0, -0.0), 0);
  EXPECT_EQ(JavaDoubleCompare(0.0, 0.0), 0);
  EXPECT_GT(JavaDoubleCompare(nan, std::numeric_limits<double>::infinity()), 0);
  EXPECT_LT(JavaDoubleCompare(-std::numeric_limits<double>::infinity(), -1e308), 0);
  EXPECT_EQ(JavaDoubleCompare(nan, -nan), 0);
  EXPECT_LT(JavaDoubleCompare(4.9e-324, 1e-300), 0);
}

}  // namespace
}  // namespace floe
