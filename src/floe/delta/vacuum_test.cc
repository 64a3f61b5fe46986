// Vacuum of a path-based Delta table: what it deletes (removed files past the retention),
// and everything it must never delete. (Parity with deltalake's vacuum, and the same
// ownership cases with hashes of every file, are in tests/interop/test_delta_vacuum.py.)
#include "floe/delta/vacuum.h"

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "arrow/builder.h"
#include "arrow/record_batch.h"
#include "floe/delta/write.h"
#include "floe/testing/temp_directory.h"
#include "floe/util/error.h"

namespace floe::delta {
namespace {

namespace fs = std::filesystem;

std::shared_ptr<arrow::Schema> Schema() {
  return arrow::schema(
      {arrow::field("id", arrow::int64()), arrow::field("part", arrow::utf8())});
}

std::shared_ptr<arrow::RecordBatchReader> Rows(int64_t start, int64_t count) {
  arrow::Int64Builder ids;
  arrow::StringBuilder parts;
  for (int64_t i = start; i < start + count; ++i) {
    EXPECT_TRUE(ids.Append(i).ok());
    EXPECT_TRUE(parts.Append(i % 2 == 0 ? "a" : "b").ok());
  }
  auto batch =
      arrow::RecordBatch::Make(Schema(), count, {*ids.Finish(), *parts.Finish()});
  return *arrow::RecordBatchReader::Make({batch}, Schema());
}

// A clock two hours ahead: what the writes did "now" is two hours old to vacuum.
class LaterClock final : public EnvWrapper {
 public:
  LaterClock() : EnvWrapper(Env::Default()) {}
  int64_t NowMillis() override { return Env::Default()->NowMillis() + 2 * 3600 * 1000; }
};

void Touch(const fs::path& path, const std::string& text = "x") {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

std::set<std::string> Files(const fs::path& root) {
  std::set<std::string> files;
  for (auto it = fs::recursive_directory_iterator(root); it != fs::end(it); ++it) {
    if (it->is_symlink() || it->is_regular_file()) files.insert(it->path().string());
  }
  return files;
}

TEST(DeltaVacuumTest, DeletesExpiredRemovedFilesAndNothingThatIsNotTheTables) {
  testing::TempDirectory directory;
  auto io = *MakeArrowFileIO();
  const fs::path root = directory.path() / "t";
  CreateTableOptions create;
  create.partition_columns = {"part"};
  create.properties = {{"delta.deletedFileRetentionDuration", "interval 1 hours"}};
  ASSERT_TRUE(CreateTable(io, root.string(), *Schema(), create).ok());
  auto first = Rows(0, 10);
  ASSERT_TRUE(Write(io, root.string(), *first).ok());
  const std::set<std::string> replaced = [&] {
    std::set<std::string> files;
    for (const auto& file : Files(root))
      if (file.find("_delta_log") == std::string::npos) files.insert(file);
    return files;
  }();
  ASSERT_EQ(replaced.size(), 2u);
  DeltaWriteOptions overwrite;
  overwrite.mode = DeltaWriteMode::kOverwrite;
  auto second = Rows(100, 10);
  ASSERT_TRUE(Write(io, root.string(), *second, overwrite).ok());

  // What is not the table's to delete, all unreferenced and old enough otherwise.
  const fs::path outside = directory.path() / "outside.parquet";
  Touch(outside);
  fs::create_symlink(outside, root / "part=a" / "link.parquet");
  fs::create_directories(directory.path() / "outside_dir");
  Touch(directory.path() / "outside_dir" / "x.parquet");
  fs::create_directory_symlink(directory.path() / "outside_dir", root / "linked_dir");
  Touch(root / "nested" / "_delta_log" / "00000000000000000000.json", "{}");
  Touch(root / "nested" / "part-0.parquet");
  Touch(root / "ice" / "metadata" / "v1.metadata.json", "{}");
  Touch(root / "ice" / "data" / "f.parquet");
  Touch(root / "README.txt");
  Touch(root / "_staging" / "x.parquet");
  Touch(root / ".hidden.parquet");
  Touch(root / "part=a" / "deletion_vector_0c4f.bin");
  Touch(root / "part=b" / "young.parquet");
  LaterClock later;
  const auto young_time = fs::file_time_type::clock::now() +
                          std::chrono::minutes(100);  // 20 min before "now"
  fs::last_write_time(root / "part=b" / "young.parquet", young_time);
  for (const auto& file : Files(root)) {
    if (file.find("young") == std::string::npos && !fs::is_symlink(file))
      fs::last_write_time(file, fs::file_time_type::clock::now() - std::chrono::hours(1));
  }
  const auto before = Files(root);

  VacuumOptions options;
  options.env = &later;
  options.dry_run = true;
  FLOE_ASSIGN_OR_FAIL(auto planned, Vacuum(io, root.string(), options));
  std::set<std::string> planned_files;
  for (const auto& file : planned.deleted) planned_files.insert(file.location);
  EXPECT_EQ(planned_files, replaced);
  EXPECT_EQ(Files(root), before);  // a dry run deletes nothing

  options.dry_run = false;
  FLOE_ASSIGN_OR_FAIL(auto done, Vacuum(io, root.string(), options));
  EXPECT_EQ(done.deleted.size(), 2u);
  EXPECT_TRUE(done.failed.empty());
  std::set<std::string> expected = before;
  for (const auto& file : replaced) expected.erase(file);
  EXPECT_EQ(Files(root), expected);
  EXPECT_TRUE(fs::exists(outside));
  EXPECT_TRUE(fs::exists(directory.path() / "outside_dir" / "x.parquet"));
  std::map<std::string, std::string> reasons;
  for (const auto& kept : done.kept)
    reasons[kept.location.substr(root.string().size() + 1)] = kept.reason;
  EXPECT_EQ(reasons["part=a/link.parquet"], "a symbolic link");
  EXPECT_EQ(reasons["linked_dir"], "a symbolic link");
  EXPECT_NE(reasons["nested/part-0.parquet"].find("nested"), std::string::npos);
  EXPECT_NE(reasons["ice/data/f.parquet"].find("nested"), std::string::npos);
  EXPECT_EQ(reasons["README.txt"], "not a name Delta writers give data files");
  EXPECT_EQ(reasons["part=a/deletion_vector_0c4f.bin"], "a deletion vector file");
  EXPECT_EQ(reasons["part=b/young.parquet"], "modified within the retention period");
  EXPECT_EQ(reasons.count("_staging/x.parquet"), 0u);  // hidden: not even considered
  // The table still reads: every live file is there.
  FLOE_ASSIGN_OR_FAIL(auto snapshot, LoadSnapshot(*io, root.string()));
  for (const auto& file : snapshot.files) EXPECT_TRUE(fs::exists(file.location));
}

TEST(DeltaVacuumTest, RefusesWhatCouldLoseData) {
  testing::TempDirectory directory;
  auto io = *MakeArrowFileIO();
  const fs::path root = directory.path() / "t";
  ASSERT_TRUE(CreateTable(io, root.string(), *Schema()).ok());
  auto rows = Rows(0, 4);
  ASSERT_TRUE(Write(io, root.string(), *rows).ok());
  Touch(root / "stray.parquet");
  fs::last_write_time(root / "stray.parquet",
                      fs::file_time_type::clock::now() - std::chrono::hours(24 * 30));
  // Shorter than the table's week.
  VacuumOptions short_retention;
  short_retention.retention_ms = 3600 * 1000;
  auto refused = Vacuum(io, root.string(), short_retention);
  EXPECT_EQ(KindOf(refused.status()), ErrorKind::kInvalidInput);
  EXPECT_NE(refused.status().message().find("delta.deletedFileRetentionDuration"),
            std::string::npos);
  // A live file missing: the log does not match the folder.
  auto snapshot = *LoadSnapshot(*io, root.string());
  fs::rename(snapshot.files[0].location, directory.path() / "moved.parquet");
  auto lying = Vacuum(io, root.string());
  EXPECT_EQ(KindOf(lying.status()), ErrorKind::kInvalidMetadata);
  EXPECT_NE(lying.status().message().find("missing"), std::string::npos);
  EXPECT_TRUE(fs::exists(root / "stray.parquet"));
  fs::rename(directory.path() / "moved.parquet", snapshot.files[0].location);
  FLOE_ASSIGN_OR_FAIL(auto done, Vacuum(io, root.string()));
  EXPECT_EQ(done.deleted.size(), 1u);  // the month-old stray data file
  EXPECT_FALSE(fs::exists(root / "stray.parquet"));
}

}  // namespace
}  // namespace floe::delta
