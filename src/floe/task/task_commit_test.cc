#include "floe/task/task_commit.h"

#include <gtest/gtest.h>

#include "floe/testing/temp_directory.h"
#include "floe/util/error.h"

namespace floe {
namespace {

TEST(TaskCommitTest, RoundTripsLocationsAndManifest) {
  TaskCommit message;
  message.locations = {"/w/t/data/a=1/00000-0-op-00001.parquet",
                       "/w/t/data/a=ü/x.parquet"};
  message.files = std::string("Obj\x01 manifest bytes \0 with nul", 30);
  std::string encoded = EncodeTaskCommit(message);
  // A big-endian count, then length-prefixed locations, then the manifest.
  EXPECT_EQ(encoded.substr(0, 4), std::string("\0\0\0\2", 4));
  FLOE_ASSIGN_OR_FAIL(auto decoded, DecodeTaskCommit(encoded));
  EXPECT_EQ(decoded.locations, message.locations);
  EXPECT_EQ(decoded.files, message.files);
  FLOE_ASSIGN_OR_FAIL(auto locations, DecodeTaskCommitLocations(encoded));
  EXPECT_EQ(locations, message.locations);

  TaskCommit empty;
  FLOE_ASSIGN_OR_FAIL(auto decoded_empty, DecodeTaskCommit(EncodeTaskCommit(empty)));
  EXPECT_TRUE(decoded_empty.locations.empty());
  EXPECT_TRUE(decoded_empty.files.empty());
}

TEST(TaskCommitTest, RejectsTruncatedAndCorruptMessages) {
  TaskCommit message;
  message.locations = {"/a/b.parquet", "/a/c.parquet"};
  std::string encoded = EncodeTaskCommit(message);
  for (size_t size = 0; size < encoded.size(); ++size) {
    auto result = DecodeTaskCommitLocations(std::string_view(encoded).substr(0, size));
    ASSERT_FALSE(result.ok()) << size;
    EXPECT_EQ(KindOf(result.status()), ErrorKind::kInvalidMetadata);
  }
  // A count that the message cannot hold.
  EXPECT_FALSE(DecodeTaskCommitLocations(std::string("\x7f\xff\xff\xff", 4)).ok());
  // A location length past the end.
  EXPECT_FALSE(DecodeTaskCommitLocations(std::string("\0\0\0\1\0\0\1\0abc", 11)).ok());
  // Invalid UTF-8 and empty locations.
  EXPECT_FALSE(
      DecodeTaskCommitLocations(std::string("\0\0\0\1\0\0\0\2\xff\xfe", 10)).ok());
  EXPECT_FALSE(DecodeTaskCommitLocations(std::string("\0\0\0\1\0\0\0\0", 8)).ok());
}

}  // namespace
}  // namespace floe
