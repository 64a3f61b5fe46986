#include "floe/util/json_depth_internal.h"

#include <string>

#include <gtest/gtest.h>

namespace floe {
namespace {

TEST(JsonDepthTest, CountsNestingOutsideStrings) {
  EXPECT_FALSE(JsonNestsDeeperThan("{}", 1));
  EXPECT_TRUE(JsonNestsDeeperThan("{\"a\":[]}", 1));
  EXPECT_FALSE(JsonNestsDeeperThan("{\"a\":[]}", 2));
  EXPECT_FALSE(JsonNestsDeeperThan("[1],[2],[3]", 1));  // siblings do not add up
  // Brackets and escaped quotes inside strings are text.
  EXPECT_FALSE(JsonNestsDeeperThan(R"({"k":"[[[{{{\"[[["})", 1));
  EXPECT_TRUE(JsonNestsDeeperThan(R"({"k":"\\",  "v":[[]]})", 2));
  // Unbalanced closers never make the depth negative enough to hide later nesting.
  EXPECT_TRUE(JsonNestsDeeperThan("]]]]][[[", 2));
  std::string deep(5000, '[');
  EXPECT_TRUE(JsonNestsDeeperThan(deep));
  EXPECT_FALSE(JsonNestsDeeperThan(std::string(kMaxJsonDepth, '[')));
}

}  // namespace
}  // namespace floe
