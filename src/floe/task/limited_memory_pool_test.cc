#include "floe/task/limited_memory_pool.h"

#include <gtest/gtest.h>

#include "floe/util/error.h"

namespace floe {
namespace {

TEST(LimitedMemoryPoolTest, RefusesAllocationsPastTheLimitAndRecoversAfterFree) {
  LimitedMemoryPool pool(arrow::default_memory_pool(), 1 << 20);
  uint8_t* a = nullptr;
  uint8_t* b = nullptr;
  ASSERT_TRUE(pool.Allocate(700 << 10, 64, &a).ok());
  auto refused = pool.Allocate(400 << 10, 64, &b);
  EXPECT_TRUE(refused.IsOutOfMemory()) << refused.ToString();
  EXPECT_EQ(pool.bytes_allocated(), 700 << 10);
  EXPECT_TRUE(pool.Reallocate(700 << 10, 1100 << 10, 64, &a).IsOutOfMemory());
  pool.Free(a, 700 << 10, 64);
  ASSERT_TRUE(pool.Allocate(1 << 20, 64, &b).ok());
  pool.Free(b, 1 << 20, 64);
  EXPECT_EQ(pool.bytes_allocated(), 0);
  EXPECT_EQ(pool.max_memory(), 1 << 20);
}

}  // namespace
}  // namespace floe
