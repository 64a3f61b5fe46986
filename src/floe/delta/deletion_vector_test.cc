// Deletion vectors: Z85, locations, the file frame (size, checksum), the bitmap array,
// and corrupt or lying descriptors named. (Applying them is checked against delta-spark
// in tests/interop/test_delta_spark.py.)
#include "floe/delta/deletion_vector.h"

#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "floe/testing/deletion_vector_bytes.h"
#include "floe/testing/temp_directory.h"
#include "floe/util/deletion_vector_bitmap.h"
#include "floe/util/error.h"

namespace floe::delta {
namespace {

constexpr char kAlphabet[] =
    "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/"
    "*?&<>()[]{}@%$#";

// ZeroMQ's reference encoding, written out here to produce test input.
std::string EncodeZ85(std::string bytes) {
  while (bytes.size() % 4 != 0) bytes.push_back('\0');
  std::string out;
  for (size_t i = 0; i < bytes.size(); i += 4) {
    uint32_t word = 0;
    for (int j = 0; j < 4; ++j)
      word = word << 8 | static_cast<unsigned char>(bytes[i + j]);
    char group[5];
    for (int j = 4; j >= 0; --j) {
      group[j] = kAlphabet[word % 85];
      word /= 85;
    }
    out.append(group, 5);
  }
  return out;
}

TEST(DeltaDeletionVectorTest, Z85AndLocationsAsDeltaSpellsThem) {
  // From a table delta-spark wrote (the shared kernel table table-with-dv-small).
  DeletionVector dv{"u", "vBn[lx{q8@P<9BNH/isA", 1, 36, 2};
  EXPECT_EQ(*DeletionVectorLocation("/t/", dv),
            "/t/deletion_vector_61d16c75-6994-46b7-a15b-8b538852e50e.bin");
  dv.path_or_inline = "ab" + dv.path_or_inline;  // a random prefix folder
  EXPECT_EQ(*DeletionVectorLocation("/t", dv),
            "/t/ab/deletion_vector_61d16c75-6994-46b7-a15b-8b538852e50e.bin");
  EXPECT_EQ(*DecodeZ85(EncodeZ85("Hello, World")), "Hello, World");
  EXPECT_FALSE(DecodeZ85("abcd").ok());    // not a multiple of 5
  EXPECT_FALSE(DecodeZ85("abcd\"").ok());  // outside the alphabet
  EXPECT_FALSE(DecodeZ85("#####").ok());   // above 32 bits
  dv.path_or_inline = "../" + std::string("vBn[lx{q8@P<9BNH/isA");
  EXPECT_FALSE(DeletionVectorLocation("/t", dv).ok());
}

TEST(DeltaDeletionVectorTest, ReadsInlineAndOnDiskVectorsAndNamesCorruptOnes) {
  const std::vector<int64_t> positions = {0,     7,      65535,
                                          65536, 100000, (int64_t{3} << 32) | 5};
  const std::string blob = testing::Blob(testing::PortableBitmap(positions));
  const std::string data = blob.substr(4, blob.size() - 8);  // the magic and the bitmap
  testing::TempDirectory directory;
  auto io = *MakeArrowFileIO();
  const std::string root = directory.path().string();

  DeletionVector inline_dv{"i", EncodeZ85(data), std::nullopt,
                           static_cast<int32_t>(data.size()),
                           static_cast<int64_t>(positions.size())};
  EXPECT_EQ(*ReadDeletionVector(*io, root, inline_dv), positions);

  // A file holding two vectors after its version byte; the second is ours.
  const std::string other = testing::Blob(testing::PortableBitmap({1, 2}));
  const std::string file = std::string(1, '\x01') + other + blob;
  const std::string uuid_bytes = "0123456789abcdef";
  DeletionVector disk{"u", EncodeZ85(uuid_bytes), static_cast<int32_t>(1 + other.size()),
                      static_cast<int32_t>(data.size()),
                      static_cast<int64_t>(positions.size())};
  const std::string location = *DeletionVectorLocation(root, disk);
  EXPECT_EQ(location, root + "/deletion_vector_30313233-3435-3637-3839-616263646566.bin");
  ASSERT_TRUE(io->WriteAll(location, file).ok());
  EXPECT_EQ(*ReadDeletionVector(*io, root, disk), positions);

  // The log's cardinality, size or offset wrong; the bytes corrupt.
  DeletionVector lying = disk;
  lying.cardinality = 5;
  auto status = ReadDeletionVector(*io, root, lying).status();
  EXPECT_EQ(KindOf(status), ErrorKind::kInvalidMetadata);
  EXPECT_NE(status.message().find(location), std::string::npos) << status.ToString();
  lying = disk;
  lying.size_in_bytes += 4;
  EXPECT_EQ(KindOf(ReadDeletionVector(*io, root, lying).status()),
            ErrorKind::kInvalidMetadata);
  lying = disk;
  lying.offset = static_cast<int32_t>(file.size());
  EXPECT_EQ(KindOf(ReadDeletionVector(*io, root, lying).status()),
            ErrorKind::kInvalidMetadata);
  std::string corrupt = file;
  corrupt[corrupt.size() - 10] ^= 0x40;
  ASSERT_TRUE(io->WriteAll(location, corrupt).ok());
  status = ReadDeletionVector(*io, root, disk).status();
  EXPECT_NE(status.message().find("CRC-32"), std::string::npos) << status.ToString();
  // A bitmap that claims more positions than the log: refused before they are made.
  EXPECT_FALSE(DecodeDeletionVectorBitmap(data, "x", 5).ok());
  EXPECT_FALSE(
      DecodeDeletionVectorBitmap(data.substr(0, data.size() - 3), "x", 100).ok());
  EXPECT_FALSE(DecodeDeletionVectorBitmap("garbage!garbage!", "x", 100).ok());
  // Missing file: an error, nothing read.
  ASSERT_TRUE(io->Delete(location).ok());
  EXPECT_FALSE(ReadDeletionVector(*io, root, disk).ok());
}

}  // namespace
}  // namespace floe::delta
