// Merge-on-read deletes on format v3 (deletion vectors): the rows a scan reads after
// them, the vectors (one per data file, merged with the file's earlier ones) and the
// RowDelta validation against concurrent commits, with the storage listed before and
// after a commit that fails. Spark's Iceberg reader and its merge-on-read DELETE check
// the same on sibling tables (tests/spark/test_spark.py::
// test_merge_on_read_deletes_write_deletion_vectors_as_sparks_writer_does).
#include <filesystem>
#include <map>
#include <set>

#include <gtest/gtest.h>

#include "arrow/api.h"
#include "floe/catalog/sql_catalog.h"
#include "floe/manifest/manifest.h"
#include "floe/manifest/snapshot_manifests.h"
#include "floe/spec/arrow_schema.h"
#include "floe/spec/schema_ddl.h"
#include "floe/table/table.h"
#include "floe/testing/temp_directory.h"
#include "floe/util/error.h"

namespace floe {
namespace {

class MergeOnReadTest : public ::testing::Test {
 protected:
  std::shared_ptr<Table> Create(int format_version,
                                PropertyMap extra = {
                                    {"write.delete.mode", "merge-on-read"}}) {
    CatalogOptions options;
    options.warehouse = directory_.Child("warehouse");
    auto catalog = SqlCatalog::Make(*OpenSqliteDatabase(directory_.Child("catalog.db")),
                                    options, *MakeArrowFileIO());
    EXPECT_TRUE(catalog.ok()) << catalog.status().ToString();
    catalog_ = std::move(*catalog);
    EXPECT_TRUE(catalog_->CreateNamespace({"db"}, {}).ok());
    CreateTableOptions create;
    create.schema = *ParseSchemaText("id long not null, region string");
    create.spec = *ParsePartitionBy("region", *create.schema);
    create.properties = std::move(extra);
    create.properties["format-version"] = std::to_string(format_version);
    auto table = Table::Create(catalog_, {{"db"}, "t"}, create);
    EXPECT_TRUE(table.ok()) << table.status().ToString();
    return *table;
  }

  std::shared_ptr<Table> Load() {
    auto table = Table::Load(catalog_, {{"db"}, "t"});
    EXPECT_TRUE(table.ok()) << table.status().ToString();
    return *table;
  }

  // Ids [start, start + count), region "r<id % regions>": one file per region.
  void Append(const std::shared_ptr<Table>& table, int64_t start, int64_t count,
              int regions = 3) {
    auto schema = *ToArrowSchema(*table->metadata()->CurrentSchema());
    arrow::Int64Builder ids;
    arrow::StringBuilder names;
    for (int64_t id = start; id < start + count; ++id) {
      ASSERT_TRUE(ids.Append(id).ok());
      ASSERT_TRUE(names.Append("r" + std::to_string(id % regions)).ok());
    }
    auto batch =
        arrow::RecordBatch::Make(schema, count, {*ids.Finish(), *names.Finish()});
    auto reader = *arrow::RecordBatchReader::Make({batch}, schema);
    FLOE_ASSERT_OK(table->Append(*reader, AppendOptions{}));
  }

  std::set<int64_t> Ids() {
    auto scan = Load()->NewScan(ScanOptions{});
    EXPECT_TRUE(scan.ok()) << scan.status().ToString();
    auto reader = *(*scan)->ToRecordBatchReader();
    auto table = *reader->ToTable();
    std::set<int64_t> ids;
    for (const auto& chunk : table->GetColumnByName("id")->chunks()) {
      const auto& longs = static_cast<const arrow::Int64Array&>(*chunk);
      for (int64_t i = 0; i < longs.length(); ++i) ids.insert(longs.Value(i));
    }
    return ids;
  }

  // The live delete files of the current snapshot.
  std::vector<DataFile> LiveDeletes() {
    auto table = Load();
    std::vector<DataFile> files;
    auto snapshot = table->metadata()->CurrentSnapshot();
    auto io = *MakeArrowFileIO();
    auto manifests = *ReadSnapshotManifests(*io, *snapshot);
    for (const auto& manifest : manifests) {
      if (manifest.content != ManifestContent::kDeletes) continue;
      auto contents = *ReadTableManifest(*io, *table->metadata(), manifest);
      for (const auto& entry : contents.entries) {
        if (entry.status != EntryStatus::kDeleted) files.push_back(entry.data_file);
      }
    }
    return files;
  }

  // Every file under the warehouse with its size.
  std::map<std::string, uintmax_t> Storage() {
    std::map<std::string, uintmax_t> files;
    for (const auto& entry :
         std::filesystem::recursive_directory_iterator(directory_.Child("warehouse"))) {
      if (entry.is_regular_file()) files[entry.path().string()] = entry.file_size();
    }
    return files;
  }

  static std::string Summary(const std::shared_ptr<Table>& table, const char* key) {
    return table->metadata()->CurrentSnapshot()->summary.Get(key).value_or("");
  }

  std::set<int64_t> Expected(const std::function<bool(int64_t)>& deleted, int64_t count) {
    std::set<int64_t> ids;
    for (int64_t id = 0; id < count; ++id) {
      if (!deleted(id)) ids.insert(id);
    }
    return ids;
  }

  std::shared_ptr<Catalog> catalog_;
  testing::TempDirectory directory_;
};

// "id IN (...)" of the ids below `count` with id % 10 == `digit` (floe's filters have no
// modulo).
std::string EndingIn(int digit, int64_t count) {
  std::string list;
  for (int64_t id = digit; id < count; id += 10)
    list += (list.empty() ? "" : ", ") + std::to_string(id);
  return "id IN (" + list + ")";
}

TEST_F(MergeOnReadTest, WritesOneVectorPerDataFileAndMergesTheNextDeleteIntoIt) {
  auto table = Create(3);
  Append(table, 0, 300);
  Append(table, 300, 300);  // six data files: three regions, two appends
  const auto before = Storage();
  FLOE_ASSIGN_OR_FAIL(auto first, table->Delete(EndingIn(7, 600), AppendOptions{}));
  EXPECT_TRUE(first.committed);
  EXPECT_EQ(first.rows_removed, 60);
  EXPECT_EQ(first.delete_files_written, 6);
  EXPECT_EQ(first.files_removed, 0);
  EXPECT_EQ(Summary(table, "operation"), "delete");
  EXPECT_EQ(Summary(table, "added-dvs"), "6");
  EXPECT_EQ(Summary(table, "added-delete-files"), "6");
  EXPECT_EQ(Summary(table, "added-position-deletes"), "60");
  EXPECT_EQ(Summary(table, "total-records"), "600");
  EXPECT_EQ(Ids(), Expected([](int64_t id) { return id % 10 == 7; }, 600));
  // One Puffin file and the commit's metadata: no data file written.
  int puffins = 0;
  for (const auto& [path, size] : Storage()) {
    if (before.count(path)) continue;
    EXPECT_EQ(path.find(".parquet"), std::string::npos) << path;
    if (path.ends_with("-deletes.puffin")) ++puffins;
  }
  EXPECT_EQ(puffins, 1);

  // The second delete touches the same files: each gets one vector holding both.
  FLOE_ASSIGN_OR_FAIL(auto second,
                      table->Delete(EndingIn(3, 600) + " OR id = 7", AppendOptions{}));
  EXPECT_EQ(second.rows_removed, 60);  // id 7 is gone already
  EXPECT_EQ(Summary(table, "added-dvs"), "6");
  EXPECT_EQ(Summary(table, "removed-dvs"), "6");
  EXPECT_EQ(Summary(table, "added-position-deletes"), "120");
  EXPECT_EQ(Summary(table, "removed-position-deletes"), "60");
  EXPECT_EQ(Summary(table, "total-delete-files"), "6");
  EXPECT_EQ(Summary(table, "total-position-deletes"), "120");
  auto live = LiveDeletes();
  ASSERT_EQ(live.size(), 6u);
  std::set<std::string> targets;
  for (const auto& dv : live) {
    EXPECT_EQ(dv.file_format, FileFormat::kPuffin);
    EXPECT_EQ(dv.record_count, 20);
    ASSERT_TRUE(dv.referenced_data_file);
    targets.insert(*dv.referenced_data_file);
  }
  EXPECT_EQ(targets.size(), 6u);
  EXPECT_EQ(Ids(),
            Expected([](int64_t id) { return id % 10 == 7 || id % 10 == 3; }, 600));
}

TEST_F(MergeOnReadTest, EveryFileMatchingWholeIsRemovedByMetadata) {
  auto table = Create(3);
  Append(table, 0, 300);
  FLOE_ASSIGN_OR_FAIL(auto result, table->Delete("region = 'r1'", AppendOptions{}));
  EXPECT_EQ(result.files_removed, 1);
  EXPECT_EQ(result.delete_files_written, 0);
  EXPECT_EQ(Summary(table, "deleted-data-files"), "1");
  EXPECT_TRUE(LiveDeletes().empty());
  EXPECT_EQ(Ids(), Expected([](int64_t id) { return id % 3 == 1; }, 300));
}

TEST_F(MergeOnReadTest,
       AConcurrentVectorForTheSameFileFailsTheLaterDeleteAndLeavesNoFile) {
  auto table = Create(3);
  Append(table, 0, 300);
  auto other = Load();
  FLOE_ASSERT_OK(other->Delete(EndingIn(7, 600), AppendOptions{}));
  const auto before = Storage();
  auto lost = table->Delete(EndingIn(3, 600), AppendOptions{});
  ASSERT_FALSE(lost.ok());
  EXPECT_EQ(KindOf(lost.status()), ErrorKind::kValidationFailed);
  EXPECT_EQ(Storage(), before);  // its Puffin file and manifests deleted
  EXPECT_EQ(Ids(), Expected([](int64_t id) { return id % 10 == 7; }, 300));
}

TEST_F(MergeOnReadTest, SerializableFailsOnAConcurrentMatchingAppendSnapshotDoesNot) {
  auto table = Create(3);
  Append(table, 0, 300);
  Append(Load(), 300, 30);  // concurrent: rows matching the delete's filter
  const auto before = Storage();
  auto lost = table->Delete(EndingIn(7, 600), AppendOptions{});
  ASSERT_FALSE(lost.ok());
  EXPECT_EQ(KindOf(lost.status()), ErrorKind::kValidationFailed);
  EXPECT_NE(lost.status().message().find("conflicting files"), std::string::npos)
      << lost.status().ToString();
  EXPECT_EQ(Storage(), before);
}

TEST_F(MergeOnReadTest, UnderSnapshotIsolationAConcurrentAppendDoesNotConflict) {
  auto table = Create(3, {{"write.delete.mode", "merge-on-read"},
                          {"write.delete.isolation-level", "snapshot"}});
  Append(table, 0, 300);
  Append(Load(), 300, 30);
  FLOE_ASSIGN_OR_FAIL(auto result, table->Delete(EndingIn(7, 600), AppendOptions{}));
  EXPECT_EQ(result.rows_removed, 30);  // of the rows it read: the append's stay
  std::set<int64_t> expected = Expected([](int64_t id) { return id % 10 == 7; }, 300);
  for (int64_t id = 300; id < 330; ++id) expected.insert(id);
  EXPECT_EQ(Ids(), expected);
}

TEST_F(MergeOnReadTest, ADataFileRemovedConcurrentlyFailsTheDelete) {
  auto table = Create(3, {{"write.delete.mode", "merge-on-read"},
                          {"write.delete.isolation-level", "snapshot"}});
  Append(table, 0, 300);
  // A concurrent copy-on-write delete rewrites the files the vectors would point at.
  AppendOptions copy_on_write;
  copy_on_write.options["write.delete.mode"] = "copy-on-write";
  FLOE_ASSERT_OK(Load()->Delete(EndingIn(1, 600), copy_on_write));
  const auto before = Storage();
  auto lost = table->Delete(EndingIn(7, 600), AppendOptions{});
  ASSERT_FALSE(lost.ok());
  EXPECT_EQ(KindOf(lost.status()), ErrorKind::kValidationFailed);
  EXPECT_EQ(Storage(), before);
  EXPECT_EQ(Ids(), Expected([](int64_t id) { return id % 10 == 1; }, 300));
}

TEST_F(MergeOnReadTest, AFormatV2TableIsDeclinedBeforeAnythingIsWritten) {
  auto table = Create(2);
  Append(table, 0, 300);
  const auto before = Storage();
  auto declined = table->Delete(EndingIn(7, 600), AppendOptions{});
  ASSERT_FALSE(declined.ok());
  EXPECT_EQ(KindOf(declined.status()), ErrorKind::kNotSupported);
  EXPECT_NE(declined.status().message().find("write.delete.mode"), std::string::npos);
  EXPECT_EQ(Storage(), before);

  AppendOptions unknown;
  unknown.options["write.delete.mode"] = "merge-on-write";
  auto refused = table->Delete(EndingIn(7, 600), unknown);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("write.delete.mode"), std::string::npos);
  EXPECT_EQ(refused.status().message().find("merge-on-write"), std::string::npos);
  EXPECT_EQ(Storage(), before);
}

}  // namespace
}  // namespace floe
