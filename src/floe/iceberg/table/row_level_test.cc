// Row-level operations on tables floe wrote: merge-on-read deletes (deletion vectors on
// format v3, position delete files on v2: the rows a scan reads after them, one delete
// file per data file merged with its earlier ones, the RowDelta validation against
// concurrent commits, with the storage listed before and after a commit that fails),
// updates and upserts in both modes, with their bad input. Spark's Iceberg reader and
// its DELETE, UPDATE and MERGE check the same on sibling tables (tests/spark/
// test_spark.py: test_merge_on_read_deletes_..., test_updates_..., test_upserts_...).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>

#include <gtest/gtest.h>

#include "arrow/api.h"
#include "arrow/io/file.h"
#include "floe/iceberg/catalog/sql_catalog.h"
#include "floe/iceberg/commit/overwrite_files.h"
#include "floe/iceberg/manifest/manifest.h"
#include "floe/iceberg/manifest/snapshot_manifests.h"
#include "floe/iceberg/spec/metadata_columns.h"
#include "floe/iceberg/spec/schema_ddl.h"
#include "floe/iceberg/table/table.h"
#include "floe/testing/table_fixture.h"
#include "floe/testing/temp_directory.h"
#include "floe/types/arrow_schema.h"
#include "floe/util/cancel.h"
#include "floe/util/error.h"
#include "parquet/arrow/reader.h"

namespace floe::iceberg {
namespace {

class RowLevelTest : public ::testing::Test {
 protected:
  std::shared_ptr<Table> Create(int format_version,
                                PropertyMap extra = {
                                    {"write.delete.mode", "merge-on-read"}}) {
    if (!catalog_) {  // once: a test may create more tables (name_)
      auto catalog = testing::OpenTestCatalog(directory_.path().string());
      EXPECT_TRUE(catalog.ok()) << catalog.status().ToString();
      catalog_ = std::move(*catalog);
    }
    CreateTableOptions create;
    create.schema = *ParseSchemaText("id long not null, region string");
    create.spec = *ParsePartitionBy("region", *create.schema);
    create.properties = std::move(extra);
    create.properties["format-version"] = std::to_string(format_version);
    auto table = Table::Create(catalog_, {{"db"}, name_}, create);
    EXPECT_TRUE(table.ok()) << table.status().ToString();
    return *table;
  }

  std::shared_ptr<Table> Load() {
    auto table = Table::Load(catalog_, {{"db"}, name_});
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
    // One task: its files reach the manifest in the order the rows first name their
    // partitions, so row ids follow ids as the row-lineage tests count them (with more
    // tasks the order is whichever task finishes first, as under Spark).
    AppendOptions one_task;
    one_task.threads = 1;
    FLOE_ASSERT_OK(table->Append(*reader, one_task));
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

  // id -> region of every row the table holds (a second row with one id fails).
  std::map<int64_t, std::optional<std::string>> Rows() {
    auto scan = Load()->NewScan(ScanOptions{});
    EXPECT_TRUE(scan.ok()) << scan.status().ToString();
    auto table = *(*(*scan)->ToRecordBatchReader())->ToTable();
    auto ids = std::static_pointer_cast<arrow::Int64Array>(
        *arrow::Concatenate(table->GetColumnByName("id")->chunks()));
    auto regions = std::static_pointer_cast<arrow::StringArray>(
        *arrow::Concatenate(table->GetColumnByName("region")->chunks()));
    std::map<int64_t, std::optional<std::string>> rows;
    for (int64_t i = 0; i < table->num_rows(); ++i) {
      std::optional<std::string> region;
      if (regions->IsValid(i)) region = regions->GetString(i);
      EXPECT_TRUE(rows.emplace(ids->Value(i), region).second)
          << "two rows " << ids->Value(i);
    }
    return rows;
  }

  // An upsert's input of (id, region) rows, in the table's Arrow form.
  static std::shared_ptr<arrow::RecordBatchReader> Input(
      const std::shared_ptr<Table>& table,
      const std::vector<std::pair<int64_t, std::optional<std::string>>>& rows) {
    auto schema = *ToArrowSchema(*table->metadata()->CurrentSchema());
    arrow::Int64Builder ids;
    arrow::StringBuilder regions;
    for (const auto& [id, region] : rows) {
      EXPECT_TRUE(ids.Append(id).ok());
      EXPECT_TRUE((region ? regions.Append(*region) : regions.AppendNull()).ok());
    }
    auto batch = arrow::RecordBatch::Make(schema, static_cast<int64_t>(rows.size()),
                                          {*ids.Finish(), *regions.Finish()});
    return *arrow::RecordBatchReader::Make({batch}, schema);
  }

  // Removes the catalog and the warehouse: Create starts again.
  void Reset() {
    catalog_.reset();
    for (const auto& entry : std::filesystem::directory_iterator(directory_.path())) {
      std::filesystem::remove_all(entry.path());
    }
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
  std::string name_ = "t";  // the table Create makes and Load loads
};

// An upsert on `keys`.
UpsertOptions On(std::vector<std::string> keys) {
  UpsertOptions upsert;
  upsert.keys = std::move(keys);
  return upsert;
}

// "id IN (...)" of the ids below `count` with id % 10 == `digit` (floe's filters have no
// modulo).
std::string EndingIn(int digit, int64_t count) {
  std::string list;
  for (int64_t id = digit; id < count; id += 10)
    list += (list.empty() ? "" : ", ") + std::to_string(id);
  return "id IN (" + list + ")";
}

TEST_F(RowLevelTest, MergeOnReadWritesOneVectorPerDataFileAndMergesTheNextDeleteIntoIt) {
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

// Spark deletes whole partitions by metadata: the data files and every delete file in
// those partitions go (on v2 too, where a removed data file's position delete file would
// otherwise stay).
TEST_F(RowLevelTest, MergeOnReadWholePartitionsAreRemovedByMetadataWithTheirDeleteFiles) {
  auto table = Create(2);
  Append(table, 0, 300);
  FLOE_ASSERT_OK(table->Delete(EndingIn(7, 300), AppendOptions{}));
  ASSERT_EQ(LiveDeletes().size(), 3u);
  FLOE_ASSIGN_OR_FAIL(auto result, table->Delete("region = 'r1'", AppendOptions{}));
  EXPECT_EQ(result.files_removed, 1);
  EXPECT_EQ(result.delete_files_written, 0);
  EXPECT_EQ(Summary(table, "deleted-data-files"), "1");
  EXPECT_EQ(Summary(table, "removed-position-delete-files"), "1");
  EXPECT_EQ(LiveDeletes().size(), 2u);
  for (const auto& file : LiveDeletes())
    EXPECT_EQ(file.file_path.find("region=r1"), std::string::npos);
  EXPECT_EQ(Ids(), Expected([](int64_t id) { return id % 3 == 1 || id % 10 == 7; }, 300));
}

TEST_F(RowLevelTest, AConcurrentVectorForTheSameFileFailsTheLaterDeleteAndLeavesNoFile) {
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

TEST_F(RowLevelTest,
       MergeOnReadSerializableFailsOnAConcurrentMatchingAppendSnapshotDoesNot) {
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

TEST_F(RowLevelTest, MergeOnReadUnderSnapshotIsolationAConcurrentAppendDoesNotConflict) {
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

TEST_F(RowLevelTest, MergeOnReadADataFileRemovedConcurrentlyFailsTheDelete) {
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

// Spark's merge-on-read DELETE validates neither delete files committed meanwhile nor
// the removal of the file-scoped delete files it merged (validateNoConflictingDeleteFiles
// and validateDeletedFiles are for UPDATE and MERGE): on v2 two deletes of rows of the
// same files both commit, each file keeping both new delete files, and no row comes back.
TEST_F(RowLevelTest, MergeOnReadFormatV2ConcurrentDeletesOfTheSameFilesBothCommit) {
  for (const char* level : {"serializable", "snapshot"}) {
    SCOPED_TRACE(level);
    name_ = std::string("t_") + level;
    auto table = Create(2, {{"write.delete.mode", "merge-on-read"},
                            {"write.delete.isolation-level", level}});
    Append(table, 0, 300);
    FLOE_ASSERT_OK(Load()->Delete(EndingIn(1, 300), AppendOptions{}));  // D0 per file
    auto stale = Load();
    FLOE_ASSERT_OK(Load()->Delete(EndingIn(7, 300), AppendOptions{}));  // replaces D0
    FLOE_ASSIGN_OR_FAIL(auto second, stale->Delete(EndingIn(3, 300), AppendOptions{}));
    EXPECT_TRUE(second.committed);
    EXPECT_EQ(
        Ids(),
        Expected([](int64_t id) { return id % 10 == 1 || id % 10 == 7 || id % 10 == 3; },
                 300));
    EXPECT_EQ(LiveDeletes().size(), 6u);  // two per data file: each merged D0 in
  }
}

// A data file a concurrent delete removed does not fail a merge-on-read delete (Spark's
// validateDataFilesExist skips delete snapshots); one a rewrite removed does (above).
TEST_F(RowLevelTest, MergeOnReadADataFileAConcurrentDeleteRemovedDoesNotFailIt) {
  for (int version : {2, 3}) {
    SCOPED_TRACE(version);
    name_ = "t" + std::to_string(version);
    auto table = Create(version);
    Append(table, 0, 300);
    auto stale = Load();
    FLOE_ASSERT_OK(Load()->Delete("region = 'r1'", AppendOptions{}));  // by metadata
    EXPECT_EQ(Load()->metadata()->CurrentSnapshot()->summary.operation, "delete");
    FLOE_ASSIGN_OR_FAIL(auto later, stale->Delete(EndingIn(7, 300), AppendOptions{}));
    EXPECT_TRUE(later.committed);
    EXPECT_EQ(Ids(),
              Expected([](int64_t id) { return id % 3 == 1 || id % 10 == 7; }, 300));
  }
}

TEST_F(RowLevelTest,
       MergeOnReadFormatV2WritesAPositionDeleteFilePerDataFileAndMergesThem) {
  auto table = Create(2);
  Append(table, 0, 300);
  Append(table, 300, 300);
  FLOE_ASSIGN_OR_FAIL(auto first, table->Delete(EndingIn(7, 600), AppendOptions{}));
  EXPECT_EQ(first.delete_files_written, 6);
  EXPECT_EQ(Summary(table, "added-position-delete-files"), "6");
  EXPECT_EQ(Summary(table, "added-position-deletes"), "60");
  FLOE_ASSIGN_OR_FAIL(auto second,
                      table->Delete(EndingIn(3, 600) + " OR id = 7", AppendOptions{}));
  EXPECT_EQ(second.rows_removed, 60);
  EXPECT_EQ(Summary(table, "removed-position-delete-files"), "6");
  EXPECT_EQ(Summary(table, "total-delete-files"), "6");
  EXPECT_EQ(Summary(table, "total-position-deletes"), "120");
  EXPECT_EQ(Ids(),
            Expected([](int64_t id) { return id % 10 == 7 || id % 10 == 3; }, 600));
  // Each file, read back by Parquet alone: its data file's path on every row, the
  // positions of the rows with ids ending in 3 and 7 in it, ascending; bounds of both
  // columns in the manifest (the path whole) and no counts, as iceberg-java writes them.
  std::set<std::string> targets;
  for (const auto& file : LiveDeletes()) {
    EXPECT_EQ(file.file_format, FileFormat::kParquet);
    EXPECT_EQ(file.record_count, 20);
    EXPECT_TRUE(file.value_counts.empty());
    EXPECT_TRUE(file.null_value_counts.empty());
    ASSERT_EQ(file.lower_bounds.count(kDeleteFilePathColumnId), 1u);
    const auto& path_bound = file.lower_bounds.at(kDeleteFilePathColumnId);
    const std::string data_file(path_bound.begin(), path_bound.end());
    EXPECT_EQ(file.upper_bounds.at(kDeleteFilePathColumnId), path_bound);
    EXPECT_FALSE(file.referenced_data_file);
    targets.insert(data_file);
    auto input = *arrow::io::ReadableFile::Open(file.file_path);
    auto reader = *parquet::arrow::OpenFile(input, arrow::default_memory_pool());
    FLOE_ASSIGN_OR_FAIL(auto rows, reader->ReadTable());
    auto metadata = reader->parquet_reader()->metadata()->key_value_metadata();
    ASSERT_TRUE(metadata);
    EXPECT_EQ(*metadata->Get("delete-type"), "position");
    EXPECT_NE(metadata->Get("iceberg.schema")->find("Ordinal position"),
              std::string::npos);
    ASSERT_EQ(rows->num_rows(), 20);
    auto paths = std::static_pointer_cast<arrow::StringArray>(rows->column(0)->chunk(0));
    auto pos = std::static_pointer_cast<arrow::Int64Array>(rows->column(1)->chunk(0));
    for (int64_t i = 0; i < 20; ++i) {
      EXPECT_EQ(paths->GetString(i), data_file);
      if (i > 0) {
        EXPECT_LT(pos->Value(i - 1), pos->Value(i));
      }
    }
    // The positions are exactly those of the data file's rows with ids ending in 3 or 7.
    auto data_reader = *parquet::arrow::OpenFile(
        *arrow::io::ReadableFile::Open(data_file), arrow::default_memory_pool());
    FLOE_ASSIGN_OR_FAIL(auto data, data_reader->ReadTable());
    auto ids = std::static_pointer_cast<arrow::Int64Array>(
        *arrow::Concatenate(data->GetColumnByName("id")->chunks()));
    std::vector<int64_t> expected;
    for (int64_t p = 0; p < ids->length(); ++p) {
      if (ids->Value(p) % 10 == 3 || ids->Value(p) % 10 == 7) expected.push_back(p);
    }
    std::vector<int64_t> actual(pos->raw_values(), pos->raw_values() + pos->length());
    EXPECT_EQ(actual, expected) << data_file;
  }
  EXPECT_EQ(targets.size(), 6u);
}

// A position delete file naming one data file (by its file_path bounds) belongs to that
// file only: a delete of another file in the same partition merges that other file's
// deletes and leaves this one in place (its rows stay deleted).
TEST_F(RowLevelTest, MergeOnReadFormatV2KeepsTheDeleteFilesOfTheOtherFilesOfAPartition) {
  auto table = Create(2);
  Append(table, 0, 300);
  Append(table, 300, 300);  // two data files in each region
  FLOE_ASSERT_OK(table->Delete(EndingIn(7, 600), AppendOptions{}));
  FLOE_ASSIGN_OR_FAIL(auto one, table->Delete("id = 3", AppendOptions{}));
  EXPECT_EQ(one.delete_files_written, 1);
  EXPECT_EQ(Summary(table, "removed-position-delete-files"), "1");
  EXPECT_EQ(Summary(table, "total-delete-files"), "6");
  EXPECT_EQ(Summary(table, "total-position-deletes"), "61");
  EXPECT_EQ(Ids(), Expected([](int64_t id) { return id % 10 == 7 || id == 3; }, 600));
}

TEST_F(RowLevelTest,
       MergeOnReadFormatV1AndAnUnknownModeAreDeclinedBeforeAnythingIsWritten) {
  auto table = Create(1);
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

// Copy-on-write updates: each file holding a matching row rewritten whole, the matching
// rows changed, the others and every other file untouched.
TEST_F(RowLevelTest, UpdateRewritesTheFilesHoldingMatchesWithTheNewValues) {
  auto table = Create(2, {});
  Append(table, 0, 300);  // ids 1, 4, 7 are in region r1's file
  FLOE_ASSIGN_OR_FAIL(
      auto result, table->Update("id IN (1, 4, 7)", "region = 'moved'", AppendOptions{}));
  EXPECT_EQ(result.rows_updated, 3);
  EXPECT_EQ(result.files_rewritten, 1);
  EXPECT_EQ(result.rows_written, 100);
  EXPECT_EQ(Summary(table, "operation"), "overwrite");
  EXPECT_EQ(Summary(table, "deleted-data-files"), "1");
  EXPECT_EQ(Summary(table, "added-data-files"), "2");  // r1 and the new partition
  EXPECT_EQ(Summary(table, "total-records"), "300");
  auto scan = Load()->NewScan(ScanOptions{});
  ASSERT_TRUE(scan.ok());
  auto rows = *(*(*scan)->ToRecordBatchReader())->ToTable();
  ASSERT_EQ(rows->num_rows(), 300);
  std::map<int64_t, std::string> region;
  auto ids = *arrow::Concatenate(rows->GetColumnByName("id")->chunks());
  auto names = *arrow::Concatenate(rows->GetColumnByName("region")->chunks());
  for (int64_t i = 0; i < rows->num_rows(); ++i) {
    region[static_cast<const arrow::Int64Array&>(*ids).Value(i)] =
        static_cast<const arrow::StringArray&>(*names).GetString(i);
  }
  ASSERT_EQ(region.size(), 300u);
  for (const auto& [id, name] : region) {
    const bool updated = id == 1 || id == 4 || id == 7;
    EXPECT_EQ(name, updated ? "moved" : "r" + std::to_string(id % 3)) << id;
  }
}

TEST_F(RowLevelTest, UpdateOnFormatV3KeepsTheRowIdAndTakesTheNewSequenceNumber) {
  auto table = Create(3, {});
  Append(table, 0, 300);
  Append(table, 300, 300);
  FLOE_ASSERT_OK(table->Update("id = 5 OR id = 305", "region = NULL", AppendOptions{}));
  const int64_t sequence = Load()->metadata()->CurrentSnapshot()->sequence_number;
  EXPECT_EQ(sequence, 3);
  auto scan = Load()->NewScan(ScanOptions{
      .columns = {"id", "region", "_row_id", "_last_updated_sequence_number"}});
  ASSERT_TRUE(scan.ok()) << scan.status().ToString();
  auto rows = *(*(*scan)->ToRecordBatchReader())->ToTable();
  ASSERT_EQ(rows->num_rows(), 600);
  auto column = [&](const char* name) {
    return std::static_pointer_cast<arrow::Int64Array>(
        *arrow::Concatenate(rows->GetColumnByName(name)->chunks()));
  };
  auto ids = column("id");
  auto row_ids = column("_row_id");
  auto updated_at = column("_last_updated_sequence_number");
  auto regions = *arrow::Concatenate(rows->GetColumnByName("region")->chunks());
  for (int64_t i = 0; i < rows->num_rows(); ++i) {
    const int64_t id = ids->Value(i);
    // Row ids were assigned in commit order, 0 to 599, in id order within each file:
    // the first append's region-r0 file holds ids 0, 3, ... as row ids 0..99.
    const int64_t append = id / 300;
    const int64_t region = id % 3;
    const int64_t expected_row_id = append * 300 + region * 100 + (id % 300) / 3;
    EXPECT_EQ(row_ids->Value(i), expected_row_id) << id;
    const bool updated = id == 5 || id == 305;
    EXPECT_EQ(updated_at->Value(i), updated ? sequence : append + 1) << id;
    EXPECT_EQ(regions->IsNull(i), updated) << id;
  }
}

TEST_F(RowLevelTest, UpdateOfAWrongTypeAnUnknownColumnOrAnUnknownModeChangesNothing) {
  auto table = Create(2, {});
  Append(table, 0, 300);
  const auto before = Storage();
  const auto pointer = Load()->metadata()->CurrentSnapshot()->snapshot_id;
  for (const auto& [set, expected] : std::vector<std::pair<std::string, std::string>>{
           {"id = 'abc'", "id"},
           {"id = 1.5", "id"},
           {"id = NULL", "required"},
           {"nope = 1", "nope"},
           {"region = 'a', region = 'b'", "twice"},
           {"region", "column = value"}}) {
    auto result = table->Update("id < 10", set, AppendOptions{});
    ASSERT_FALSE(result.ok()) << set;
    EXPECT_EQ(KindOf(result.status()), ErrorKind::kInvalidInput) << set;
    EXPECT_NE(result.status().message().find(expected), std::string::npos)
        << result.status().ToString();
  }
  AppendOptions unknown_mode;
  unknown_mode.options["write.update.mode"] = "merge-on-write";
  auto declined = table->Update("id < 10", "region = 'x'", unknown_mode);
  ASSERT_FALSE(declined.ok());
  EXPECT_EQ(KindOf(declined.status()), ErrorKind::kNotSupported);
  EXPECT_NE(declined.status().message().find("write.update.mode"), std::string::npos);
  EXPECT_EQ(Storage(), before);
  EXPECT_EQ(Load()->metadata()->CurrentSnapshot()->snapshot_id, pointer);
}

// A merge-on-read update writes a delete file per data file holding a match and the
// updated rows alone; on v3 they keep their _row_id.
TEST_F(RowLevelTest, MergeOnReadUpdateWritesDeleteFilesAndTheUpdatedRowsOnly) {
  for (int version : {2, 3}) {
    SCOPED_TRACE(version);
    auto table = Create(version, {{"write.update.mode", "merge-on-read"}});
    Append(table, 0, 300);
    std::map<int64_t, std::optional<std::string>> expected;
    for (int64_t id = 0; id < 300; ++id) expected[id] = "r" + std::to_string(id % 3);
    for (int64_t id : {3, 4, 250}) expected[id] = std::nullopt;
    auto result = table->Update("id IN (3, 4, 250)", "region = NULL", AppendOptions{});
    ASSERT_TRUE(result.ok()) << result.status().ToString();
    EXPECT_EQ(result->rows_updated, 3);
    EXPECT_EQ(result->rows_written, 3);
    EXPECT_EQ(result->files_removed, 0);
    EXPECT_EQ(result->delete_files_written, 2);  // r0 (3) and r1 (4, 250)
    EXPECT_EQ(Rows(), expected);
    EXPECT_EQ(LiveDeletes().size(), 2u);
    EXPECT_EQ(Summary(Load(), "operation"), "overwrite");
    if (version == 3) {
      auto scan = *Load()->NewScan(
          ScanOptions{.columns = {"_row_id"}, .filter = "region IS NULL"});
      auto rows = *(*scan->ToRecordBatchReader())->ToTable();
      auto row_ids = std::static_pointer_cast<arrow::Int64Array>(
          *arrow::Concatenate(rows->GetColumnByName("_row_id")->chunks()));
      std::set<int64_t> kept(row_ids->raw_values(), row_ids->raw_values() + 3);
      // Region r<k>'s file gave ids k, k + 3, ... the row ids 100k, 100k + 1, ...
      EXPECT_EQ(kept, (std::set<int64_t>{1, 101, 100 + 250 / 3}));
    }
    Reset();
  }
}

// An update computes values from the row as it was, only for the rows it changes: an
// overflow in a row it leaves alone is not its concern; one in a row it changes fails it
// with nothing left behind, in both modes.
TEST_F(RowLevelTest, UpdateArithmeticOverflowsOnlyInTheRowsItUpdates) {
  for (const char* mode : {"copy-on-write", "merge-on-read"}) {
    SCOPED_TRACE(mode);
    auto table = Create(3, {{"write.update.mode", mode}});
    Append(table, 0, 30);
    const std::string times = "id = id * 4611686018427387904 + 1000";  // 2^62
    auto fine = table->Update("id = 0", times, AppendOptions{});
    ASSERT_TRUE(fine.ok()) << fine.status().ToString();
    EXPECT_EQ(fine->rows_updated, 1);
    EXPECT_EQ(Rows().count(1000), 1u);
    EXPECT_EQ(Rows().count(0), 0u);
    const auto before = Storage();
    const auto pointer = Load()->metadata()->CurrentSnapshot()->snapshot_id;
    auto overflow = Load()->Update("id IN (1, 2)", times, AppendOptions{});
    ASSERT_FALSE(overflow.ok());
    EXPECT_EQ(KindOf(overflow.status()), ErrorKind::kInvalidInput);
    EXPECT_NE(overflow.status().message().find("--set '" + times + "': overflow"),
              std::string::npos)
        << overflow.status().ToString();
    EXPECT_EQ(Storage(), before);
    EXPECT_EQ(Load()->metadata()->CurrentSnapshot()->snapshot_id, pointer);
    Reset();
  }
}

// Ctrl-C (a cancel request) during a merge-on-read delete leaves nothing, on both
// formats (here it stops the match pass; tests/interop/test_row_level.py sends SIGINT
// while the delete files are written and checks they are gone).
TEST_F(RowLevelTest, ACancelledMergeOnReadDeleteLeavesNoFile) {
  for (int version : {2, 3}) {
    SCOPED_TRACE(version);
    auto table = Create(version);
    Append(table, 0, 300);
    const auto before = Storage();
    const auto pointer = Load()->metadata()->CurrentSnapshot()->snapshot_id;
    RequestCancel();
    auto result = table->Delete("id IN (1, 2, 3, 100, 200)", AppendOptions{});
    ResetCancel();
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(KindOf(result.status()), ErrorKind::kCancelled)
        << result.status().ToString();
    EXPECT_EQ(Storage(), before);
    EXPECT_EQ(Load()->metadata()->CurrentSnapshot()->snapshot_id, pointer);
    Reset();
  }
}

// An upsert replaces each table row whose id the input has and inserts the rest, in both
// modes and on both format versions; the expected rows come from the input, not floe.
TEST_F(RowLevelTest, UpsertReplacesTheRowsWithAnInputKeyAndInsertsTheRest) {
  for (int version : {2, 3}) {
    for (const char* mode : {"copy-on-write", "merge-on-read"}) {
      SCOPED_TRACE(std::to_string(version) + " " + mode);
      auto table = Create(version, {{"write.merge.mode", mode}});
      Append(table, 0, 300);
      Append(table, 300, 300);
      std::map<int64_t, std::optional<std::string>> expected;
      for (int64_t id = 0; id < 600; ++id) expected[id] = "r" + std::to_string(id % 3);
      // Replaced in place, moved to another partition, set to NULL, and inserted.
      const std::vector<std::pair<int64_t, std::optional<std::string>>> input = {
          {4, "r1"},   {7, "moved"},  {301, std::nullopt},
          {599, "r2"}, {1000, "new"}, {-5, std::nullopt}};
      for (const auto& [id, region] : input) expected[id] = region;
      auto result = table->Upsert(*Input(table, input), On({"id"}), AppendOptions{});
      ASSERT_TRUE(result.ok()) << result.status().ToString();
      EXPECT_TRUE(result->committed);
      EXPECT_EQ(result->rows_updated, 4);
      EXPECT_EQ(result->rows_inserted, 2);
      EXPECT_EQ(Rows(), expected);
      // The four replaced rows lie in three data files of 100 rows: r1 of the first
      // append (4, 7), r1 and r2 of the second (301, 599).
      const bool merge_on_read = std::string(mode) == "merge-on-read";
      EXPECT_EQ(result->delete_files_written, merge_on_read ? 3 : 0);
      EXPECT_EQ(result->files_rewritten, merge_on_read ? 0 : 3);
      EXPECT_EQ(LiveDeletes().size(), merge_on_read ? 3u : 0u);
      EXPECT_EQ(result->rows_written, merge_on_read ? 6 : 3 * 100 - 4 + 6);
      EXPECT_EQ(Summary(Load(), "operation"), "overwrite");
      Reset();
    }
  }
}

// On format v3 a replaced row's successor keeps its _row_id and takes the upsert's
// sequence number; the other rows keep both.
TEST_F(RowLevelTest, UpsertOnFormatV3KeepsTheReplacedRowsIds) {
  for (const char* mode : {"copy-on-write", "merge-on-read"}) {
    SCOPED_TRACE(mode);
    auto table = Create(3, {{"write.merge.mode", mode}});
    Append(table, 0, 300);
    auto result =
        table->Upsert(*Input(table, {{5, "x"}, {6, "r0"}, {900, "r0"}}), On({"id"}), {});
    ASSERT_TRUE(result.ok()) << result.status().ToString();
    const int64_t sequence = Load()->metadata()->last_sequence_number;
    auto scan = Load()->NewScan(
        ScanOptions{.columns = {"id", "_row_id", "_last_updated_sequence_number"}});
    ASSERT_TRUE(scan.ok()) << scan.status().ToString();
    auto rows = *(*(*scan)->ToRecordBatchReader())->ToTable();
    ASSERT_EQ(rows->num_rows(), 301);
    auto column = [&](const char* name) {
      return std::static_pointer_cast<arrow::Int64Array>(
          *arrow::Concatenate(rows->GetColumnByName(name)->chunks()));
    };
    auto ids = column("id");
    auto row_ids = column("_row_id");
    auto updated_at = column("_last_updated_sequence_number");
    for (int64_t i = 0; i < rows->num_rows(); ++i) {
      const int64_t id = ids->Value(i);
      if (id == 900) {
        EXPECT_GE(row_ids->Value(i), 300);  // a new id, past the first append's
        EXPECT_EQ(updated_at->Value(i), sequence);
        continue;
      }
      // The append gave region r<k>'s file (ids k, k + 3, ...) row ids 100k.. in order.
      EXPECT_EQ(row_ids->Value(i), (id % 3) * 100 + id / 3) << id;
      EXPECT_EQ(updated_at->Value(i), id == 5 || id == 6 ? sequence : 1) << id;
    }
    Reset();
  }
}

// A key with a NULL part matches nothing, not even a table row with the same NULL: the
// input row is inserted, as MERGE's ON a = b leaves it unmatched.
TEST_F(RowLevelTest, UpsertKeysWithANullPartMatchNothing) {
  auto table = Create(2, {});
  Append(table, 0, 6);
  FLOE_ASSERT_OK(table->Update("id = 1", "region = NULL", AppendOptions{}));
  auto result = table->Upsert(*Input(table, {{1, std::nullopt}, {2, "r2"}}),
                              On({"id", "region"}), AppendOptions{});
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(result->rows_updated, 1);  // (2, 'r2')
  EXPECT_EQ(result->rows_inserted, 1);
  auto scan = *Load()->NewScan(ScanOptions{.filter = "id = 1"});
  EXPECT_EQ((*(*scan->ToRecordBatchReader())->ToTable())->num_rows(), 2);
  // A string key with a quote, a double quote and unicode: the keys' range filter (text
  // the scan parses again) keeps the row it must match.
  const std::string awkward = "it's \"Zürich\" ";
  FLOE_ASSERT_OK(
      Load()->Update("id = 3", "region = 'it''s \"Zürich\" '", AppendOptions{}));
  auto table2 = Load();
  auto replaced = table2->Upsert(*Input(table2, {{3, awkward}, {4, awkward}}),
                                 On({"region", "id"}), AppendOptions{});
  ASSERT_TRUE(replaced.ok()) << replaced.status().ToString();
  EXPECT_EQ(replaced->rows_updated, 1);   // (3, awkward)
  EXPECT_EQ(replaced->rows_inserted, 1);  // (4, awkward): row 4 is in region r1
  auto awkward_rows = *Load()->NewScan(
      ScanOptions{.filter = "region = 'it''s \"Zürich\" ' AND id IN (3, 4)"});
  EXPECT_EQ((*(*awkward_rows->ToRecordBatchReader())->ToTable())->num_rows(), 2);
  auto all_rows = *Load()->NewScan(ScanOptions{});
  EXPECT_EQ((*(*all_rows->ToRecordBatchReader())->ToTable())->num_rows(), 8);
}

// Bad input fails before anything is written: the storage and the table's pointer are
// as they were, and the error names what is wrong.
TEST_F(RowLevelTest, UpsertOfBadInputChangesNothing) {
  auto table = Create(2, {{"write.merge.mode", "merge-on-read"}});
  Append(table, 0, 30);
  const auto before = Storage();
  const auto pointer = Load()->metadata()->CurrentSnapshot()->snapshot_id;
  auto expect_error = [&](const arrow::Result<RowLevelResult>& result, ErrorKind kind,
                          const std::string& expected) {
    ASSERT_FALSE(result.ok()) << expected;
    EXPECT_EQ(KindOf(result.status()), kind) << result.status().ToString();
    EXPECT_NE(result.status().message().find(expected), std::string::npos)
        << result.status().ToString();
  };
  expect_error(
      table->Upsert(*Input(table, {{1, "a"}, {2, "b"}, {1, "c"}}), On({"id"}), {}),
      ErrorKind::kInvalidInput, "key (id=1) twice, in rows 1 and 3");
  expect_error(table->Upsert(*Input(table, {{1, "a"}}), On({"nope"}), {}),
               ErrorKind::kInvalidInput, "no top-level column nope");
  expect_error(table->Upsert(*Input(table, {{1, "a"}}), On({"id", "id"}), {}),
               ErrorKind::kInvalidInput, "named twice");
  expect_error(table->Upsert(*Input(table, {{1, "a"}}), On({}), {}),
               ErrorKind::kInvalidInput, "identifier fields");
  // An input without the key column would match nothing and insert everything.
  auto only_region = arrow::schema({arrow::field("region", arrow::utf8())});
  auto batch = arrow::RecordBatch::Make(
      only_region, 1, {*arrow::MakeArrayFromScalar(arrow::StringScalar("a"), 1)});
  expect_error(table->Upsert(**arrow::RecordBatchReader::Make({batch}, only_region),
                             On({"id"}), {}),
               ErrorKind::kInvalidInput, "no key column id");
  AppendOptions unknown_mode;
  unknown_mode.options["write.merge.mode"] = "merge-on-write";
  expect_error(table->Upsert(*Input(table, {{1, "a"}}), On({"id"}), unknown_mode),
               ErrorKind::kNotSupported, "write.merge.mode");
  EXPECT_EQ(Storage(), before);
  EXPECT_EQ(Load()->metadata()->CurrentSnapshot()->snapshot_id, pointer);
}

// A concurrent append of one of the upsert's keys fails a serializable upsert (the row
// would be there twice), and the loser's delete and data files are gone from storage.
TEST_F(RowLevelTest, UpsertRacingAnAppendOfOneOfItsKeysFailsAndLeavesNoFile) {
  auto table = Create(3, {{"write.merge.mode", "merge-on-read"}});
  Append(table, 0, 30);
  auto stale = Load();
  const auto before = Storage();
  Append(Load(), 100, 1);  // key 100, committed after `stale` was read
  const auto appended = Storage();
  EXPECT_EQ(appended.size(), before.size() + 4);  // data file, manifest, list, metadata
  auto result = stale->Upsert(*Input(stale, {{1, "a"}, {100, "b"}}), On({"id"}), {});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(KindOf(result.status()), ErrorKind::kValidationFailed)
      << result.status().ToString();
  EXPECT_EQ(Storage(), appended);
}

// A rewrite's files take its starting snapshot's data sequence number (Spark's
// rewrite_data_files, use-starting-sequence-number), and only a delete file that applies
// to a file it replaces conflicts with it (iceberg-java's RewriteFiles validation): a
// merge-on-read delete in another partition committed meanwhile does not fail it; one
// of a replaced file does, and the rewrite leaves its storage as it was.
TEST_F(RowLevelTest,
       RewriteTakesItsStartingSequenceNumberAndConflictsOnlyWithItsDeletes) {
  auto table = Create(2);
  Append(table, 0, 300);
  Append(Load(), 300, 300);  // two files in each of r0, r1, r2; sequence numbers 1, 2
  auto stale = Load();
  FLOE_ASSERT_OK(Load()->Delete("id IN (3, 33, 63)", AppendOptions{}));  // r0, seq 3
  FLOE_ASSIGN_OR_FAIL(auto rewritten,
                      stale->Rewrite("region = 'r1'", 2, AppendOptions{}));
  EXPECT_EQ(rewritten.files_rewritten, 2);
  auto loaded = Load();
  EXPECT_EQ(loaded->metadata()->CurrentSnapshot()->sequence_number, 4);
  FLOE_ASSIGN_OR_FAIL(auto scan, loaded->NewScan(ScanOptions{}));
  FLOE_ASSIGN_OR_FAIL(auto tasks, scan->PlanFiles());
  std::map<std::string, std::vector<int64_t>>
      sequences;  // region -> data sequence numbers
  for (const auto& task : tasks) {
    sequences[std::get<std::string>(task.file.partition[0])].push_back(
        task.data_sequence_number);
  }
  for (auto& [region, numbers] : sequences) std::sort(numbers.begin(), numbers.end());
  EXPECT_EQ(sequences["r1"], (std::vector<int64_t>{2}));  // the starting snapshot's
  EXPECT_EQ(sequences["r0"], (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(Ids(),
            Expected([](int64_t id) { return id == 3 || id == 33 || id == 63; }, 600));

  auto racing = Load();
  FLOE_ASSERT_OK(Load()->Delete("id IN (36)", AppendOptions{}));  // r0's first file
  const auto before = Storage();
  auto lost = racing->Rewrite("", 2, AppendOptions{});
  ASSERT_FALSE(lost.ok());
  EXPECT_EQ(KindOf(lost.status()), ErrorKind::kValidationFailed);
  EXPECT_NE(lost.status().message().find("found new delete for replaced data file"),
            std::string::npos)
      << lost.status().ToString();
  EXPECT_EQ(Storage(), before);
  EXPECT_EQ(
      Ids(),
      Expected([](int64_t id) { return id == 3 || id == 33 || id == 63 || id == 36; },
               600));
}

// Dangling delete files go (a position delete file of a partition without data files),
// but an equality delete written with an unpartitioned spec applies to the data of every
// spec: it stays while data of a newer spec is older than it, where Spark's action,
// looking only at its own spec and partition, would remove it and bring rows back. The
// files are described by hand (only manifests are read).
TEST_F(RowLevelTest, RemoveDanglingDeletesKeepsAGlobalEqualityDeleteNewerSpecsNeed) {
  FLOE_ASSIGN_OR_FAIL(auto fixture,
                      testing::TableFixture::Make(directory_.path().string(),
                                                  "id long not null, region string", "",
                                                  {{"format-version", "2"}}));
  FLOE_ASSERT_OK(fixture->Append({fixture->File("a.parquet", {}, 10, 0, 9)}).status());
  // The table becomes partitioned by region (spec 1), as Spark's ADD PARTITION FIELD.
  FLOE_ASSIGN_OR_FAIL(auto state, fixture->Load());
  TableMetadata evolved = *state.metadata;
  evolved.specs.push_back(
      *PartitionSpec::Make(1, {{2, 1000, "region", Transform::Identity()}}));
  evolved.default_spec_id = 1;
  evolved.last_partition_id = 1000;
  FLOE_ASSERT_OK(fixture->catalog()->CommitTable(fixture->id(), state, evolved).status());
  DataFile eu = fixture->File("b.parquet", {}, 10, 10, 19);
  eu.spec_id = 1;
  eu.partition = {Value(std::string("eu"))};
  FLOE_ASSERT_OK(fixture->Append({eu}).status());  // sequence 2
  FLOE_ASSERT_OK(fixture->Remove({fixture->File("a.parquet", {}, 10).file_path})
                     .status());  // 3: spec 0 holds no data any more
  auto deletes = [&](const char* name, FileContent content) {
    DataFile file = fixture->File(name, {}, 1);
    file.content = content;
    if (content == FileContent::kEqualityDeletes) file.equality_ids = {1};
    return file;
  };
  FLOE_ASSIGN_OR_FAIL(state, fixture->Load());
  OverwriteFiles row_delta(fixture->target());
  row_delta.AddDeleteFile(deletes("eq.parquet", FileContent::kEqualityDeletes));
  row_delta.AddDeleteFile(deletes("pos.parquet", FileContent::kPositionDeletes));
  FLOE_ASSERT_OK(row_delta.Commit(state).status());  // 4, both of spec 0

  FLOE_ASSIGN_OR_FAIL(auto table, Table::Load(fixture->catalog(), fixture->id()));
  FLOE_ASSIGN_OR_FAIL(auto removed, table->RemoveDanglingDeletes());
  EXPECT_TRUE(removed.committed);
  EXPECT_EQ(removed.delete_files_removed, 1);
  EXPECT_EQ(removed.commit.snapshot->summary.operation, "replace");
  catalog_ = fixture->catalog();
  std::vector<std::string> live;
  for (const auto& file : LiveDeletes()) live.push_back(file.file_path);
  ASSERT_EQ(live.size(), 1u);
  EXPECT_NE(live[0].find("eq.parquet"), std::string::npos);
  // Nothing dangles now: nothing is committed.
  FLOE_ASSIGN_OR_FAIL(auto again, Table::Load(fixture->catalog(), fixture->id()));
  FLOE_ASSIGN_OR_FAIL(auto none, again->RemoveDanglingDeletes());
  EXPECT_FALSE(none.committed);
}

// Spark's rewrite_position_delete_files on format v2: per partition, the delete files
// past min-input-files are rewritten, one per data file still live (with the newest data
// sequence number of the files replaced); the deletes of data files a compaction removed
// are dropped. Rows never change; the replaced files stay on disk for expiry to remove.
TEST_F(RowLevelTest, RewritePositionDeletesMergesPerDataFileAndDropsDanglingOnes) {
  auto table = Create(2);
  Append(table, 0, 300);    // sequence 1: one file per region
  Append(table, 300, 300);  // 2
  Append(table, 600, 300);  // 3
  FLOE_ASSERT_OK(Load()->Delete("id IN (0, 3, 300, 303, 600, 603)", AppendOptions{}));
  FLOE_ASSERT_OK(Load()->Delete("id IN (1, 301)", AppendOptions{}));  // 5: r1
  ASSERT_EQ(LiveDeletes().size(), 5u);
  // r0's data files are compacted: their position delete files now delete nothing.
  FLOE_ASSIGN_OR_FAIL(auto compacted,
                      Load()->Rewrite("region = 'r0'", 2, AppendOptions{}));
  ASSERT_EQ(compacted.files_rewritten, 3);
  ASSERT_EQ(LiveDeletes().size(), 5u);
  auto deleted = [](int64_t id) {
    return id == 0 || id == 3 || id == 300 || id == 303 || id == 600 || id == 603 ||
           id == 1 || id == 301;
  };
  ASSERT_EQ(Ids(), Expected(deleted, 900));

  // Three files in r0, two in r1: only r0 reaches min-input-files 3.
  RewriteDeletesOptions three;
  three.min_input_files = 3;
  FLOE_ASSIGN_OR_FAIL(auto dropped, Load()->RewritePositionDeletes("", three));
  EXPECT_TRUE(dropped.committed);
  EXPECT_EQ(dropped.delete_files_removed, 3);
  EXPECT_EQ(dropped.delete_files_written, 0);
  EXPECT_EQ(dropped.commit.snapshot->summary.operation, "replace");
  EXPECT_EQ(LiveDeletes().size(), 2u);
  EXPECT_EQ(Ids(), Expected(deleted, 900));

  const auto before = Storage();
  RewriteDeletesOptions all;
  all.rewrite_all = true;
  FLOE_ASSIGN_OR_FAIL(auto rewritten,
                      Load()->RewritePositionDeletes("region = 'r1'", all));
  EXPECT_TRUE(rewritten.committed);
  EXPECT_EQ(rewritten.delete_files_removed, 2);
  EXPECT_EQ(rewritten.delete_files_written, 2);
  EXPECT_EQ(Ids(), Expected(deleted, 900));
  const auto after = Storage();
  // Nothing was deleted from storage; two position delete files and the commit's
  // metadata were added.
  for (const auto& [path, size] : before) EXPECT_EQ(after.at(path), size) << path;
  int added_parquet = 0;
  for (const auto& [path, size] : after) {
    if (!before.count(path) && path.ends_with("-deletes.parquet")) {
      ++added_parquet;
      EXPECT_NE(path.find("/data/region=r1/"), std::string::npos) << path;
    }
  }
  EXPECT_EQ(added_parquet, 2);
  // The new files take the replaced files' newest data sequence number (5), not the
  // commit's (8).
  auto loaded = Load();
  EXPECT_EQ(loaded->metadata()->CurrentSnapshot()->sequence_number, 8);
  auto io = *MakeArrowFileIO();
  for (const auto& manifest :
       *ReadSnapshotManifests(*io, *loaded->metadata()->CurrentSnapshot())) {
    if (manifest.content != ManifestContent::kDeletes) continue;
    auto contents = *ReadTableManifest(*io, *loaded->metadata(), manifest);
    for (const auto& entry : contents.entries) {
      if (entry.status == EntryStatus::kDeleted) continue;
      EXPECT_EQ(entry.sequence_number.value_or(-1), 5) << entry.data_file.file_path;
      EXPECT_EQ(entry.data_file.record_count, 1);
    }
  }
  // Nothing is left to do under the defaults (two files, below min-input-files 5).
  FLOE_ASSIGN_OR_FAIL(auto none,
                      Load()->RewritePositionDeletes("", RewriteDeletesOptions{}));
  EXPECT_FALSE(none.committed);
}

// write.delete.granularity=partition (v2): a merge-on-read delete writes one position
// delete file per partition, holding the deletes of all its data files without bounds
// (iceberg-java drops them for a file naming several), and leaves the earlier delete
// files as they are; a rewrite of the position deletes merges a partition's into one.
TEST_F(RowLevelTest, PartitionGranularityWritesOneDeleteFilePerPartition) {
  auto table = Create(2, {{"write.delete.mode", "merge-on-read"},
                          {"write.delete.granularity", "partition"}});
  Append(table, 0, 300);
  Append(table, 300, 300);
  FLOE_ASSIGN_OR_FAIL(auto first,
                      Load()->Delete("id IN (1, 4, 301, 304)", AppendOptions{}));
  EXPECT_EQ(first.delete_files_written, 2);  // per data file matched, as counted
  auto live = LiveDeletes();
  ASSERT_EQ(live.size(), 1u);  // r1 only
  EXPECT_EQ(live[0].record_count, 4);
  EXPECT_TRUE(live[0].lower_bounds.empty() && live[0].upper_bounds.empty());
  EXPECT_NE(live[0].file_path.find("/region=r1/"), std::string::npos);
  FLOE_ASSERT_OK(Load()->Delete("id IN (7, 310)", AppendOptions{}));  // r1 and r1
  live = LiveDeletes();
  ASSERT_EQ(live.size(), 2u);  // the first stays
  auto deleted = [](int64_t id) {
    return id == 1 || id == 4 || id == 301 || id == 304 || id == 7 || id == 310;
  };
  EXPECT_EQ(Ids(), Expected(deleted, 600));

  RewriteDeletesOptions all;
  all.rewrite_all = true;
  FLOE_ASSIGN_OR_FAIL(auto rewritten, Load()->RewritePositionDeletes("", all));
  EXPECT_EQ(rewritten.delete_files_removed, 2);
  EXPECT_EQ(rewritten.delete_files_written, 1);
  live = LiveDeletes();
  ASSERT_EQ(live.size(), 1u);
  EXPECT_EQ(live[0].record_count, 6);
  EXPECT_EQ(Ids(), Expected(deleted, 600));
}

// A merge-on-read delete that replaced one of the files being rewritten (merging it into
// a new one) fails the rewrite, as iceberg-java's RewriteFiles fails on a missing file;
// the files it wrote are gone and the table keeps the delete.
TEST_F(RowLevelTest, RewritePositionDeletesLosesToADeleteThatReplacedOneOfItsFiles) {
  auto table = Create(2);
  Append(table, 0, 300);
  Append(table, 300, 300);
  FLOE_ASSERT_OK(Load()->Delete("id IN (1, 301)", AppendOptions{}));
  auto stale = Load();
  FLOE_ASSERT_OK(Load()->Delete("id IN (4)", AppendOptions{}));  // replaces one of them
  const auto before = Storage();
  RewriteDeletesOptions all;
  all.rewrite_all = true;
  auto lost = stale->RewritePositionDeletes("", all);
  ASSERT_FALSE(lost.ok());
  EXPECT_EQ(KindOf(lost.status()), ErrorKind::kValidationFailed)
      << lost.status().ToString();
  EXPECT_EQ(Storage(), before);
  EXPECT_EQ(Ids(),
            Expected([](int64_t id) { return id == 1 || id == 301 || id == 4; }, 600));
}

// A corrupt delete file fails the rewrite with an error naming it; whatever the rewrite
// had written is gone and the table is unchanged.
TEST_F(RowLevelTest, RewritePositionDeletesOfACorruptFileFailsAndLeavesNothing) {
  auto table = Create(2);
  Append(table, 0, 300);
  Append(table, 300, 300);
  FLOE_ASSERT_OK(Load()->Delete("id IN (1, 2, 301, 302)", AppendOptions{}));
  std::vector<std::string> deletes;
  for (const auto& file : LiveDeletes()) deletes.push_back(file.file_path);
  ASSERT_EQ(deletes.size(), 4u);
  // A file of r2, whose group is read after r1's: r1's new files were written by then.
  std::string corrupt;
  for (const auto& path : deletes) {
    if (path.find("/region=r2/") != std::string::npos) corrupt = path;
  }
  ASSERT_FALSE(corrupt.empty());
  {
    std::ofstream out(corrupt, std::ios::binary | std::ios::trunc);
    out << "PAR1 not a parquet file PAR1";
  }
  const auto before = Storage();
  const auto snapshot = Load()->metadata()->CurrentSnapshot()->snapshot_id;
  RewriteDeletesOptions all;
  all.rewrite_all = true;
  auto failed = Load()->RewritePositionDeletes("", all);
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.status().message().find(corrupt), std::string::npos)
      << failed.status().ToString();
  EXPECT_EQ(Storage(), before);
  EXPECT_EQ(Load()->metadata()->CurrentSnapshot()->snapshot_id, snapshot);
}

// On format v3 the action only turns position delete files into deletion vectors: a
// table whose deletes are all vectors has nothing to rewrite. (Spark's test of the v2 to
// v3 upgrade: tests/spark/test_spark.py.) On v2, a write.delete.granularity floe does
// not know is declined before anything is written.
TEST_F(RowLevelTest, RewritePositionDeletesDoesNothingWhenEveryDeleteIsAVector) {
  auto table = Create(3);
  Append(table, 0, 300);
  Append(table, 300, 300);
  FLOE_ASSERT_OK(Load()->Delete("id IN (1, 301)", AppendOptions{}));
  RewriteDeletesOptions all;
  all.rewrite_all = true;
  FLOE_ASSIGN_OR_FAIL(auto none, Load()->RewritePositionDeletes("", all));
  EXPECT_FALSE(none.committed);
}

TEST_F(RowLevelTest, RewritePositionDeletesDeclinesAnUnknownGranularity) {
  auto v2 = Create(2);
  Append(v2, 0, 300);
  FLOE_ASSERT_OK(Load()->Delete("id IN (1)", AppendOptions{}));
  const auto before = Storage();
  RewriteDeletesOptions all;
  all.rewrite_all = true;
  all.options = {{"write.delete.granularity", "per-row"}};
  auto declined = Load()->RewritePositionDeletes("", all);
  ASSERT_FALSE(declined.ok());
  EXPECT_EQ(KindOf(declined.status()), ErrorKind::kNotSupported);
  EXPECT_NE(declined.status().message().find("write.delete.granularity"),
            std::string::npos);
  EXPECT_EQ(Storage(), before);
}

}  // namespace
}  // namespace floe::iceberg
