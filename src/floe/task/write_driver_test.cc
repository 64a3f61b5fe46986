#include "floe/task/write_driver.h"

#include <gtest/gtest.h>

namespace floe {
namespace {

// A write that does not say how many tasks runs one per core, at most kMaxWriteTasks, and
// under a memory limit no more than leave each kMinDefaultTaskMemory of it.
TEST(DefaultWriteTasksTest, OnePerCoreWithinTheMemoryLimit) {
  EXPECT_EQ(DefaultWriteTasks(0, 1), 1);
  EXPECT_EQ(DefaultWriteTasks(0, 2), 2);
  EXPECT_EQ(DefaultWriteTasks(0, 48), 48);
  EXPECT_EQ(DefaultWriteTasks(0, 1000), kMaxWriteTasks);
  EXPECT_EQ(DefaultWriteTasks(0, 0), 1);  // a machine that cannot tell
  EXPECT_EQ(DefaultWriteTasks(0, -3), 1);
  EXPECT_EQ(DefaultWriteTasks(kMinDefaultTaskMemory * 4, 8), 4);
  EXPECT_EQ(DefaultWriteTasks(kMinDefaultTaskMemory * 4 - 1, 8), 3);
  EXPECT_EQ(DefaultWriteTasks(kMinDefaultTaskMemory * 100, 8), 8);
  EXPECT_EQ(DefaultWriteTasks(1, 8), 1);  // less than one task's share: still one
  EXPECT_GE(MachineCores(), 1);
  EXPECT_EQ(DefaultWriteTasks(0), MachineCores());
}

}  // namespace
}  // namespace floe
