// The deletion-vector encoder against RoaringFormatSpec: bytes worked out by hand from
// the spec, bytes of the independent test encoder (testing/deletion_vector_bytes.h), and
// the decoder reading back every container kind.
#include "floe/util/deletion_vector_bitmap.h"

#include <gtest/gtest.h>

#include "floe/testing/deletion_vector_bytes.h"

namespace floe {
namespace {

using testing::Le16;
using testing::Le32;

std::vector<int64_t> RoundTrip(const std::vector<int64_t>& positions) {
  auto decoded = DecodeFramedDeletionVector(EncodeFramedDeletionVector(positions), "test",
                                            static_cast<int64_t>(positions.size()));
  EXPECT_TRUE(decoded.ok()) << decoded.status().ToString();
  return decoded.ok() ? *decoded : std::vector<int64_t>{};
}

TEST(DeletionVectorBitmapTest,
     ScatteredPositionsAreArrayContainersAsTheTestEncoderWritesThem) {
  // Every other position: 1,000 runs of one cost more than the array, so arrays (and the
  // no-run cookie), in two containers.
  std::vector<int64_t> positions;
  for (int64_t p = 0; p < 2000; p += 2) positions.push_back(p);
  for (int64_t p = 70000; p < 70100; p += 3) positions.push_back(p);
  EXPECT_EQ(EncodeFramedDeletionVector(positions),
            testing::Blob(testing::PortableBitmap(positions)));
  EXPECT_EQ(RoundTrip(positions), positions);
}

TEST(DeletionVectorBitmapTest, ARunIsARunContainerWithoutOffsets) {
  std::vector<int64_t> positions;
  for (int64_t p = 10; p < 20; ++p) positions.push_back(p);
  // RoaringFormatSpec: one bucket (key 0); cookie 12347 | (1 - 1) << 16; run flags (one
  // byte, container 0 is a run); key 0 and cardinality - 1 = 9; no offsets below four
  // containers; then 1 run: start 10, length - 1 = 9.
  std::string expected("\xD1\xD3\x39\x64", 4);
  expected += std::string("\x01\0\0\0\0\0\0\0", 8) + Le32(0);
  expected += Le32(12347) + std::string("\x01", 1) + Le16(0) + Le16(9);
  expected += Le16(1) + Le16(10) + Le16(9);
  EXPECT_EQ(EncodeDeletionVectorBitmap(positions), expected);
  EXPECT_EQ(RoundTrip(positions), positions);
}

TEST(DeletionVectorBitmapTest, DenseContainersAreBitmapsOrRunsMixedWithArrays) {
  // Container 0: 5,000 scattered values (a bitmap); 1: one long run; 2: an array; 3: a
  // bitmap again; four containers, so the run cookie carries offsets.
  std::vector<int64_t> positions;
  for (int64_t p = 0; p < 65536 && positions.size() < 5000; p += 13)
    positions.push_back(p);
  for (int64_t p = 65536; p < 65536 + 60000; ++p) positions.push_back(p);
  for (int64_t p = 2 * 65536; p < 2 * 65536 + 300; p += 7) positions.push_back(p);
  for (int64_t p = 3 * 65536; p < 4 * 65536; p += 3) positions.push_back(p);
  EXPECT_EQ(RoundTrip(positions), positions);
  const std::string bytes = EncodeDeletionVectorBitmap(positions);
  // The bitmap containers take 8 KiB each; the run takes 6 bytes, not 120,000.
  EXPECT_LT(bytes.size(), 2u * 8192 + 2000);
  EXPECT_GT(bytes.size(), 2u * 8192);
}

TEST(DeletionVectorBitmapTest, PositionsPastFourBillionWriteEveryBucketUpToTheirs) {
  const std::vector<int64_t> positions = {5, (int64_t{2} << 32) + 7};
  const std::string bytes = EncodeDeletionVectorBitmap(positions);
  // Three buckets (0, 1 empty, 2), as iceberg-java's RoaringPositionBitmap writes them.
  EXPECT_EQ(bytes.substr(4, 8), std::string("\x03\0\0\0\0\0\0\0", 8));
  EXPECT_NE(bytes.find(Le32(1) + Le32(12346) + Le32(0)), std::string::npos);
  EXPECT_EQ(RoundTrip(positions), positions);
}

}  // namespace
}  // namespace floe
