#include "floe/util/text.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace floe
