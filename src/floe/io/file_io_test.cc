#include "floe/io/file_io.h"

#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <thread>

#include <gtest/gtest.h>

#include "floe/testing/forwarding_file_io.h"
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

// Names only, one level, links listed and not followed; the local listing and the
// List-based default (the memory file system's) agree.
TEST(FileIOTest, ListNamesAndStatDescribeWhatListDoes) {
  testing::TempDirectory directory;
  fs::path root = directory.path() / "log";
  fs::path victim = directory.path() / "victim";
  Touch(root / "00000000000000000001.json", "abc");
  Touch(root / "00000000000000000000.json");
  Touch(root / "_staged_commits" / "00000000000000000002.x.json");
  Touch(victim / "precious.parquet");
  fs::create_directory_symlink(victim, root / "evil");
  fs::create_symlink(victim / "precious.parquet", root / "link.json");
  auto io = *MakeArrowFileIO();
  FLOE_ASSIGN_OR_FAIL(auto names, io->ListNames(root.string()));
  EXPECT_EQ(names,
            (std::vector<std::string>{"00000000000000000000.json",
                                      "00000000000000000001.json", "evil", "link.json"}));
  EXPECT_TRUE(io->ListNames((directory.path() / "missing").string())->empty());
  FLOE_ASSIGN_OR_FAIL(auto file, io->Stat((root / "00000000000000000001.json").string()));
  EXPECT_EQ(file.size, 3);
  EXPECT_FALSE(file.symbolic_link);
  FLOE_ASSIGN_OR_FAIL(auto listed, io->List(root.string()));
  for (const auto& entry : listed) {
    if (entry.location == file.location) {
      EXPECT_EQ(entry.modified_ms, file.modified_ms);
    }
  }
  FLOE_ASSIGN_OR_FAIL(auto link, io->Stat((root / "link.json").string()));
  EXPECT_TRUE(link.symbolic_link);
  EXPECT_EQ(KindOf(io->Stat((root / "gone.json").string()).status()),
            ErrorKind::kNotFound);
  // The memory file system takes the defaults.
  ASSERT_TRUE(io->WriteAll("memory://w/log/b.json", "12").ok());
  ASSERT_TRUE(io->WriteAll("memory://w/log/a.json", "1").ok());
  ASSERT_TRUE(io->WriteAll("memory://w/log/sub/c.json", "1").ok());
  EXPECT_EQ(*io->ListNames("memory://w/log"),
            (std::vector<std::string>{"a.json", "b.json"}));
  EXPECT_EQ(io->Stat("memory://w/log/b.json")->size, 2);
  EXPECT_EQ(KindOf(io->Stat("memory://w/log/none.json").status()), ErrorKind::kNotFound);
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

// MakeFileIO picks the factory registered for a location's scheme; an unknown scheme is
// NotSupported naming it (never a silent local file), and a registration replaces the one
// before it.
TEST(FileIOTest, FactoriesAreChosenByScheme) {
  FLOE_ASSIGN_OR_FAIL(auto local, MakeFileIO("/tmp/x", {}));
  EXPECT_NE(local, nullptr);
  FLOE_ASSIGN_OR_FAIL(auto memory, MakeFileIO("memory://w", {}));
  FLOE_ASSERT_OK(memory->WriteAll("memory://w/a", "bytes"));
  FLOE_ASSIGN_OR_FAIL(auto read, memory->ReadAll("memory://w/a"));
  EXPECT_EQ(read, "bytes");
  auto unknown = MakeFileIO("abfss://container@account/w", {});
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(KindOf(unknown.status()), ErrorKind::kNotSupported);
  EXPECT_NE(unknown.status().message().find("abfss"), std::string::npos);

  std::map<std::string, std::string> seen;
  RegisterFileIO(
      "fake",
      [&](std::string_view location, const std::map<std::string, std::string>& properties)
          -> arrow::Result<std::shared_ptr<FileIO>> {
        seen = properties;
        seen["location"] = std::string(location);
        return MakeArrowFileIO();
      });
  FLOE_ASSERT_OK(MakeFileIO("FAKE://bucket/w", {{"fake.endpoint", "http://h"}}));
  EXPECT_EQ(seen.at("location"), "FAKE://bucket/w");
  EXPECT_EQ(seen.at("fake.endpoint"), "http://h");
  RegisterFileIO("fake",
                 [](std::string_view, const std::map<std::string, std::string>&)
                     -> arrow::Result<std::shared_ptr<FileIO>> {
                   return arrow::Status::IOError("replaced");
                 });
  EXPECT_EQ(MakeFileIO("fake://b", {}).status().message(), "replaced");
}

// Cleanup deletes: a file already gone is fine; a confined delete never leaves its root,
// and an empty root holds nothing (the delete is refused, the file stays).
TEST(FileIOTest, BestEffortDeletesStayWithinWhatTheyOwn) {
  testing::TempDirectory directory;
  auto io = *MakeArrowFileIO();
  const std::string root = directory.Child("table/data");
  fs::create_directories(root);
  const std::string inside = root + "/a.parquet";
  const std::string outside = directory.Child("precious.txt");
  std::ofstream(inside) << "x";
  std::ofstream(outside) << "x";
  EXPECT_TRUE(DeleteBestEffort(*io, directory.Child("never-there"), "", ""));
  EXPECT_FALSE(DeleteWithinBestEffort(*io, "", outside, "orphan file"));
  EXPECT_FALSE(DeleteWithinBestEffort(*io, root, outside, "orphan file"));
  EXPECT_FALSE(DeleteWithinBestEffort(*io, root, root + "/../../precious.txt", ""));
  EXPECT_TRUE(fs::exists(outside));
  EXPECT_TRUE(DeleteWithinBestEffort(*io, root, inside, "orphan file"));
  EXPECT_FALSE(fs::exists(inside));
}

// Records the folders synced (from any thread); fails the one named `refuse`.
class SyncRecorder final : public testing::ForwardingFileIO {
 public:
  using ForwardingFileIO::ForwardingFileIO;
  arrow::Status SyncFolder(const std::string& folder) override {
    {
      std::lock_guard<std::mutex> lock(mutex);
      synced.push_back(folder);
    }
    if (folder == refuse) return arrow::Status::IOError("cannot sync ", folder);
    return ForwardingFileIO::SyncFolder(folder);
  }
  std::mutex mutex;
  std::vector<std::string> synced;
  std::string refuse;
};

TEST(FileIOTest, NewFilesSyncEveryFolderAboveThemOnceDeepestFirst) {
  auto recorder = std::make_shared<SyncRecorder>(*MakeArrowFileIO());
  ASSERT_TRUE(
      SyncNewFiles(*recorder, {"/w/t/data/p=1/a.parquet", "/w/t/data/p=1/b.parquet",
                               "/w/t/data/p=2/c.parquet", "/w/t/metadata/m.avro"})
          .ok());
  // Folders that do not exist hold nothing to make durable: OK.
  std::vector<std::string> expected = {
      "/w/t/data/p=2", "/w/t/data/p=1", "/w/t/metadata", "/w/t/data", "/w/t", "/w", "/"};
  EXPECT_EQ(recorder->synced, expected);

  recorder->synced.clear();
  ASSERT_TRUE(SyncNewFiles(*recorder, {"file:///w/t/a", "memory://bucket/k/b"}).ok());
  expected = {"file:///w/t", "memory://bucket/k", "file:///w", "memory://bucket/",
              "file:///"};
  EXPECT_EQ(recorder->synced, expected);
}

TEST(FileIOTest, ManyFoldersSyncInParallelAndAFailureIsReported) {
  auto recorder = std::make_shared<SyncRecorder>(*MakeArrowFileIO());
  std::vector<std::string> files;
  std::set<std::string> expected = {"/w/t/data", "/w/t", "/w", "/"};
  for (int i = 0; i < 300; ++i) {
    files.push_back("/w/t/data/p=" + std::to_string(i) + "/f.parquet");
    expected.insert("/w/t/data/p=" + std::to_string(i));
  }
  ASSERT_TRUE(SyncNewFiles(*recorder, files).ok());
  EXPECT_EQ(std::set<std::string>(recorder->synced.begin(), recorder->synced.end()),
            expected);
  EXPECT_EQ(recorder->synced.size(), expected.size());  // each once

  recorder->refuse = "/w/t/data/p=77";
  auto status = SyncNewFiles(*recorder, files);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("/w/t/data/p=77"), std::string::npos)
      << status.ToString();
}

TEST(FileIOTest, ClosedFilesAndSyncedFoldersAreFsynced) {
  // What can be seen without pulling the plug: a stream closes, a folder syncs, a
  // missing folder is fine, and a file in place of a folder is an error naming it.
  testing::TempDirectory directory;
  auto io = *MakeArrowFileIO();
  const std::string file = directory.Child("a/b/c.txt");
  ASSERT_TRUE(io->WriteAll(file, "hello").ok());
  EXPECT_EQ(*io->ReadAll(file), "hello");
  EXPECT_TRUE(SyncNewFiles(*io, {file}).ok());
  EXPECT_TRUE(io->SyncFolder(directory.Child("missing")).ok());
  auto status = io->SyncFolder(file);
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find(file), std::string::npos) << status.ToString();
}

TEST(FileIOTest, FsyncIsACatalogPropertyThatMustBeABoolean) {
  testing::TempDirectory directory;
  auto off = MakeFileIO(directory.path().string(), {{"floe.io.fsync", "false"}});
  ASSERT_TRUE(off.ok()) << off.status().ToString();
  EXPECT_TRUE((*off)->WriteAll(directory.Child("x"), "1").ok());
  auto bad = MakeFileIO(directory.path().string(), {{"floe.io.fsync", "sometimes"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(KindOf(bad.status()), ErrorKind::kInvalidInput);
  EXPECT_NE(bad.status().message().find("floe.io.fsync"), std::string::npos);
}

TEST(FileIOTest, WriteIfAbsentLetsExactlyOneOfRacingWritersHaveTheName) {
  testing::TempDirectory directory;
  auto io = *MakeArrowFileIO();
  const std::string folder = directory.Child("_delta_log");
  const std::string target = folder + "/00000000000000000001.json";
  constexpr int kWriters = 8;
  std::vector<arrow::Status> outcomes(kWriters);
  std::vector<std::thread> writers;
  for (int w = 0; w < kWriters; ++w) {
    writers.emplace_back([&, w] {
      outcomes[w] = io->WriteIfAbsent(target, "writer " + std::to_string(w));
    });
  }
  for (auto& writer : writers) writer.join();
  int winners = 0;
  std::string winner_text;
  for (int w = 0; w < kWriters; ++w) {
    if (outcomes[w].ok()) {
      ++winners;
      winner_text = "writer " + std::to_string(w);
    } else {
      EXPECT_EQ(KindOf(outcomes[w]), ErrorKind::kAlreadyExists) << outcomes[w].ToString();
    }
  }
  EXPECT_EQ(winners, 1);
  std::ifstream in(target);
  std::string text((std::istreambuf_iterator<char>(in)),
                   std::istreambuf_iterator<char>());
  EXPECT_EQ(text, winner_text);
  // The losers' temporary files are gone: the folder holds the one name.
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(folder))
    names.push_back(entry.path().filename().string());
  EXPECT_EQ(names, std::vector<std::string>{"00000000000000000001.json"});
  EXPECT_FALSE(io->WritesAppearWhole(target));
  EXPECT_TRUE(io->CheckWriteIfAbsent(target).ok());
}

// Counts the single deletes a batch delete makes, and refuses one location.
class DeleteRecorder final : public testing::ForwardingFileIO {
 public:
  using ForwardingFileIO::ForwardingFileIO;
  arrow::Status DeleteWithin(const std::string& root,
                             const std::string& location) override {
    ++deletes;
    if (location == refuse) return arrow::Status::IOError("refused ", location);
    return ForwardingFileIO::DeleteWithin(root, location);
  }
  int deletes = 0;
  std::string refuse;
};

TEST(FileIOTest, DeleteAllWithinAnswersEveryFileInOrderAndStaysBelowItsRoot) {
  testing::TempDirectory directory;
  const std::string root = directory.Child("table/data");
  fs::create_directories(root);
  const std::string outside = directory.Child("precious.txt");
  Touch(outside);
  std::vector<std::string> files;
  for (int i = 0; i < 5; ++i) {
    files.push_back(root + "/f" + std::to_string(i) + ".parquet");
    Touch(files.back());
  }
  auto io = std::make_shared<DeleteRecorder>(*MakeArrowFileIO());
  io->refuse = files[3];
  std::vector<std::string> asked = files;
  asked.push_back(outside);
  asked.push_back(root + "/never-there.parquet");
  auto statuses = io->DeleteAllWithin(root, asked);
  ASSERT_EQ(statuses.size(), asked.size());
  EXPECT_EQ(io->deletes, static_cast<int>(asked.size()));
  for (int i : {0, 1, 2, 4}) {
    EXPECT_TRUE(statuses[i].ok()) << statuses[i].ToString();
    EXPECT_FALSE(fs::exists(files[i]));
  }
  EXPECT_FALSE(statuses[3].ok());
  EXPECT_TRUE(fs::exists(files[3]));
  EXPECT_EQ(KindOf(statuses[5]), ErrorKind::kInvalidInput) << statuses[5].ToString();
  EXPECT_TRUE(fs::exists(outside));
  EXPECT_EQ(KindOf(statuses[6]), ErrorKind::kNotFound) << statuses[6].ToString();
  // Best effort: the refused one and the one outside count as failures; the missing
  // one does not (it is gone, as asked).
  Touch(files[0]);
  EXPECT_EQ(DeleteAllWithinBestEffort(*io, root, {files[0], files[3], outside}, "file"),
            2u);
  EXPECT_FALSE(fs::exists(files[0]));
  EXPECT_EQ(DeleteAllWithinBestEffort(*io, "", {files[3]}, "file"), 1u);
  EXPECT_TRUE(fs::exists(files[3]));
}

}  // namespace
}  // namespace floe
