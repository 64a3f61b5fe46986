#include "floe/io/file_io.h"

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "floe/testing/temp_directory.h"
#include "floe/util/error.h"

namespace floe {
namespace {

namespace fs = std::filesystem;

void Touch(const fs::path& path, const std::string& text = "x") {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

TEST(FileIOTest, ListNeverFollowsSymbolicLinks) {
  testing::TempDirectory directory;
  fs::path root = directory.path() / "table" / "data";
  fs::path victim = directory.path() / "victim";
  Touch(root / "a.parquet");
  Touch(root / "p=1" / "b.parquet");
  Touch(victim / "precious.parquet");
  Touch(victim / "deep" / "more.parquet");
  fs::create_directory_symlink(victim, root / "evil");
  fs::create_symlink(victim / "precious.parquet", root / "link.parquet");
  auto io = *MakeArrowFileIO();
  auto listed = io->List(root.string());
  ASSERT_TRUE(listed.ok()) << listed.status().ToString();
  std::vector<std::pair<std::string, bool>> found;
  for (const auto& file : *listed) found.emplace_back(file.location, file.symbolic_link);
  std::vector<std::pair<std::string, bool>> expected = {
      {(root / "a.parquet").string(), false},
      {(root / "evil").string(), true},
      {(root / "link.parquet").string(), true},
      {(root / "p=1" / "b.parquet").string(), false}};
  EXPECT_EQ(found, expected);
  // The prefix's spelling is kept (a file: URI lists as file: URIs).
  auto uri = io->List("file://" + root.string());
  ASSERT_TRUE(uri.ok());
  EXPECT_EQ(uri->front().location, "file://" + (root / "a.parquet").string());
  EXPECT_TRUE(io->List((directory.path() / "missing").string())->empty());
}

TEST(FileIOTest, DeleteWithinRefusesEveryLinkOnTheWay) {
  testing::TempDirectory directory;
  fs::path root = directory.path() / "data";
  fs::path victim = directory.path() / "victim";
  Touch(root / "p=1" / "f.parquet");
  Touch(victim / "f.parquet");
  Touch(victim / "p=1" / "f.parquet");
  auto io = *MakeArrowFileIO();

  // A directory on the way replaced by a link after the listing: the delete refuses.
  fs::path moved = directory.path() / "moved";
  fs::rename(root / "p=1", moved);
  fs::create_directory_symlink(victim / "p=1", root / "p=1");
  auto status = io->DeleteWithin(root.string(), (root / "p=1" / "f.parquet").string());
  EXPECT_EQ(KindOf(status), ErrorKind::kInvalidInput) << status.ToString();
  EXPECT_TRUE(fs::exists(victim / "p=1" / "f.parquet"));
  // The file itself a link: refused, the target kept.
  fs::create_symlink(victim / "f.parquet", root / "g.parquet");
  status = io->DeleteWithin(root.string(), (root / "g.parquet").string());
  EXPECT_EQ(KindOf(status), ErrorKind::kInvalidInput) << status.ToString();
  EXPECT_TRUE(fs::exists(victim / "f.parquet") && fs::is_symlink(root / "g.parquet"));
  // The root itself a link.
  fs::path linked_root = directory.path() / "linked";
  fs::create_directory_symlink(victim, linked_root);
  status = io->DeleteWithin(linked_root.string(), (linked_root / "f.parquet").string());
  EXPECT_EQ(KindOf(status), ErrorKind::kInvalidInput) << status.ToString();
  EXPECT_TRUE(fs::exists(victim / "f.parquet"));
  // Outside the root, or the root itself: refused.
  EXPECT_EQ(KindOf(io->DeleteWithin(root.string(), (victim / "f.parquet").string())),
            ErrorKind::kInvalidInput);
  EXPECT_EQ(
      KindOf(io->DeleteWithin(root.string(), root.string() + "/../victim/f.parquet")),
      ErrorKind::kInvalidInput);
  // A plain file below the root is deleted; a missing one is NotFound.
  Touch(root / "q" / "h.parquet");
  EXPECT_TRUE(io->DeleteWithin(root.string(), (root / "q" / "h.parquet").string()).ok());
  EXPECT_FALSE(fs::exists(root / "q" / "h.parquet"));
  EXPECT_EQ(KindOf(io->DeleteWithin(root.string(), (root / "q" / "h.parquet").string())),
            ErrorKind::kNotFound);
}

}  // namespace
}  // namespace floe
