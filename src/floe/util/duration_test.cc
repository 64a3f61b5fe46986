#include "floe/util/duration.h"

#include <gtest/gtest.h>

namespace floe {
namespace {

TEST(DurationTest, ParsesEveryUnitAndRejectsTheRest) {
  const std::pair<const char*, int64_t> good[] = {
      {"3d", 3 * 86400000LL}, {"12h", 12 * 3600000LL}, {"30m", 1800000},
      {"45s", 45000},         {"500ms", 500},          {"0s", 0}};
  for (const auto& [text, ms] : good) {
    auto parsed = ParseDurationMs(text);
    ASSERT_TRUE(parsed.ok()) << text;
    EXPECT_EQ(*parsed, ms) << text;
  }
  for (const char* bad :
       {"", "3", "d", "-1d", "1.5h", "3 d", "3w", "ms", "999999999999999999d"}) {
    EXPECT_FALSE(ParseDurationMs(bad).ok()) << bad;
  }
}

}  // namespace
}  // namespace floe
