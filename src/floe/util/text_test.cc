#include "floe/util/text.h"

#include <gtest/gtest.h>

#include "floe/util/error.h"

namespace floe {
namespace {

TEST(TextTest, TrimsAsciiWhiteSpaceOnly) {
  EXPECT_EQ(TrimSpace(" \t\r\n\v\fa b\f\v\n\r\t "), "a b");
  EXPECT_EQ(TrimTrailingSpace(" a b \n"), " a b");
  EXPECT_EQ(TrimSpace(""), "");
  EXPECT_EQ(TrimSpace(" \t "), "");
  EXPECT_EQ(TrimTrailingSpace("\n"), "");
  // A no-break space (U+00A0, two bytes in UTF-8) is a name's character, not white space.
  EXPECT_EQ(TrimSpace("\xc2\xa0x\xc2\xa0"), "\xc2\xa0x\xc2\xa0");
}

TEST(ByteSizeTest, ParsesBinaryUnitsInEverySpelling) {
  const std::pair<const char*, int64_t> good[] = {
      {"1048576", 1048576},    {"512M", 512LL << 20},
      {"512m", 512LL << 20},   {"512MB", 512LL << 20},
      {"512MiB", 512LL << 20}, {"2g", 2LL << 30},
      {"2GiB", 2LL << 30},     {"64k", 64LL << 10},
      {"1T", 1LL << 40},       {"10b", 10},
      {"256Mi", 256LL << 20}};
  for (const auto& [text, bytes] : good) {
    auto parsed = ParseByteSize(text);
    ASSERT_TRUE(parsed.ok()) << text << ": " << parsed.status().ToString();
    EXPECT_EQ(*parsed, bytes) << text;
  }
  for (const char* bad :
       {"", "M", "0", "-1M", "1.5G", "12 M", "iB", "8EiB", "9999999999T", "x"}) {
    auto parsed = ParseByteSize(bad);
    ASSERT_FALSE(parsed.ok()) << bad;
    EXPECT_EQ(KindOf(parsed.status()), ErrorKind::kInvalidInput);
  }
}

TEST(TextTest, JoinsPartsWithTheSeparatorBetweenThem) {
  EXPECT_EQ(JoinText({}), "");
  EXPECT_EQ(JoinText({"a"}), "a");
  EXPECT_EQ(JoinText({"a", "", "c"}), "a, , c");
  EXPECT_EQ(JoinText({"x", "y"}, "/"), "x/y");
}

}  // namespace
}  // namespace floe
