#include "floe/write/limited_memory_pool.h"

#include <gtest/gtest.h>

#include "floe/util/duration.h"
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
