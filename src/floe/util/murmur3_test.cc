#include "floe/util/murmur3_internal.h"

#include <gtest/gtest.h>

namespace floe {
namespace {

// The Iceberg spec's bucket test vectors (Appendix B), re-computed in the reference.
TEST(Murmur3Test, SpecVectors) {
  EXPECT_EQ(Murmur3HashLong(34), 2017239379);
  EXPECT_EQ(Murmur3HashLong(17486), -653330422);              // date 2017-11-16
  EXPECT_EQ(Murmur3HashLong(81068000000), -662762989);        // time 22:31:08
  EXPECT_EQ(Murmur3HashLong(1510871468000000), -2047944441);  // timestamp
  EXPECT_EQ(Murmur3HashLong(1510871468000001), -1207196810);
  const uint8_t iceberg[] = {'i', 'c', 'e', 'b', 'e', 'r', 'g'};
  EXPECT_EQ(Murmur3Hash32(iceberg, 7), 1210000089);
  const uint8_t decimal[] = {0x05, 0x8C};  // 14.20
  EXPECT_EQ(Murmur3Hash32(decimal, 2), -500754589);
  const uint8_t fixed[] = {0, 1, 2, 3};
  EXPECT_EQ(Murmur3Hash32(fixed, 4), -188683207);
  const uint8_t uuid[] = {0xf7, 0x9c, 0x3e, 0x09, 0x67, 0x7c, 0x4b, 0xbd,
                          0xa4, 0x79, 0x3f, 0x34, 0x9c, 0xb7, 0x85, 0xe7};
  EXPECT_EQ(Murmur3Hash32(uuid, 16), 1488055340);
}

}  // namespace
}  // namespace floe
