#include "floe/delta/write.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "arrow/array.h"
#include "arrow/builder.h"
#include "arrow/table.h"
#include "floe/delta/log.h"
#include "floe/delta/scan.h"
#include "floe/delta/write_format.h"
#include "floe/io/fault_injecting_file_io.h"
#include "floe/io/s3_file_io.h"
#include "floe/testing/forwarding_file_io.h"
#include "floe/testing/temp_directory.h"
#include "floe/util/error.h"
#include "floe/util/location.h"
#include "parquet/arrow/writer.h"

namespace floe::delta {
namespace {

std::shared_ptr<arrow::Schema> TableSchema() {
  return arrow::schema(
      {arrow::field("id", arrow::int64(), false), arrow::field("region", arrow::utf8()),
       arrow::field("name", arrow::utf8()),
       arrow::field("ts", arrow::timestamp(arrow::TimeUnit::MICRO, "UTC"))});
}

std::shared_ptr<arrow::RecordBatchReader> Rows(int64_t start, int64_t count) {
  arrow::Int64Builder ids;
  arrow::StringBuilder regions, names;
  arrow::TimestampBuilder stamps(arrow::timestamp(arrow::TimeUnit::MICRO, "UTC"),
                                 arrow::default_memory_pool());
  for (int64_t i = start; i < start + count; ++i) {
    EXPECT_TRUE(ids.Append(i).ok());
    EXPECT_TRUE(regions.Append(i % 3 == 0 ? "eu" : i % 3 == 1 ? "us/west" : "ap").ok());
    // Long names, non-ASCII ones too: the max is cut at 32 characters.
    EXPECT_TRUE(names
                    .Append(std::string(40, static_cast<char>('a' + i % 5)) +
                            (i % 7 == 0 ? "\xC3\xA9" : ""))
                    .ok());
    // Pre-1970 microseconds: the bounds floor to milliseconds.
    EXPECT_TRUE(stamps.Append(-1'000'001 - i).ok());
  }
  auto batch = arrow::RecordBatch::Make(
      TableSchema(), count,
      {*ids.Finish(), *regions.Finish(), *names.Finish(), *stamps.Finish()});
  return *arrow::RecordBatchReader::Make({batch}, TableSchema());
}

std::set<std::string> DataFiles(FileIO& io, const std::string& root) {
  std::set<std::string> files;
  for (const auto& file : *io.List(root)) {
    if (file.location.find("/_delta_log/") == std::string::npos)
      files.insert(file.location);
  }
  return files;
}

std::set<std::string> Referenced(const Snapshot& snapshot) {
  std::set<std::string> files;
  for (const auto& file : snapshot.files) files.insert(file.location);
  return files;
}

TEST(DeltaWriteTest, PartitionFoldersAndPathsAreEscapedAsSparkEscapesThem) {
  EXPECT_EQ(EscapePartitionPathPart("US/East"), "US%2FEast");
  EXPECT_EQ(EscapePartitionPathPart("a b}\xC3\xBC"), "a b}\xC3\xBC");  // not escaped
  EXPECT_EQ(EscapePartitionPathPart("%:=?#\"'*\\{[]^\x01\x7F"),
            "%25%3A%3D%3F%23%22%27%2A%5C%7B%5B%5D%5E%01%7F");
  EXPECT_EQ(EncodeLogPath("region=US%2FEast/a b.parquet"),
            "region=US%252FEast/a%20b.parquet");
  EXPECT_EQ(EncodeLogPath("x=\xC3\xBC{}|`<>"), "x=\xC3\xBC%7B%7D%7C%60%3C%3E");
  // The reader decodes what the writer encodes.
  EXPECT_EQ(*DecodeUriPath(EncodeLogPath("p=100%25/a b#c.parquet")),
            "p=100%25/a b#c.parquet");
}

TEST(DeltaWriteTest, AppendsCommitTheNextVersionWithStatistics) {
  testing::TempDirectory directory;
  auto io = *MakeArrowFileIO();
  const std::string root = directory.Child("t");
  CreateTableOptions create;
  create.partition_columns = {"region"};
  ASSERT_EQ(*CreateTable(io, root, *TableSchema(), create), 0);
  auto again = CreateTable(io, root, *TableSchema(), create);
  EXPECT_EQ(KindOf(again.status()), ErrorKind::kAlreadyExists);

  auto rows = Rows(0, 30);
  FLOE_ASSIGN_OR_FAIL(auto result, Write(io, root, *rows));
  EXPECT_EQ(result.version, 1);
  EXPECT_EQ(result.rows, 30);
  EXPECT_EQ(result.files_added, 3);
  FLOE_ASSIGN_OR_FAIL(auto snapshot, LoadSnapshot(*io, root));
  ASSERT_EQ(snapshot.files.size(), 3u);
  EXPECT_EQ(Referenced(snapshot), DataFiles(*io, root));
  for (const auto& file : snapshot.files) {
    ASSERT_TRUE(file.stats.has_value());
    const std::string& stats = *file.stats;
    EXPECT_NE(stats.find("\"numRecords\":10"), std::string::npos) << stats;
    // Partition columns have no statistics; the data columns all have null counts.
    EXPECT_EQ(stats.find("region"), std::string::npos) << stats;
    EXPECT_NE(stats.find("\"nullCount\":{\"id\":0,\"name\":0,\"ts\":0}"),
              std::string::npos)
        << stats;
    if (file.partition_values.at("region") == "us/west") {
      EXPECT_NE(file.path.find("region=us%252Fwest/"), std::string::npos) << file.path;
      // ids 1, 4, ..., 28: ts = -1000002 .. -1000029 us, floored to milliseconds.
      EXPECT_NE(stats.find("\"minValues\":{\"id\":1,\"name\":\"" + std::string(32, 'a') +
                           "\",\"ts\":\"1969-12-31T23:59:58.999Z\"}"),
                std::string::npos)
          << stats;
      // The max name has a non-ASCII tail (id 28 is 'd'*40 + "é"? 28 % 7 == 0): cut with
      // U+10FFFF after 32 characters.
      EXPECT_NE(stats.find("\"maxValues\":{\"id\":28,\"name\":\"" + std::string(32, 'e')),
                std::string::npos)
          << stats;
    }
  }
  // The rows read back, partition values included.
  FLOE_ASSIGN_OR_FAIL(auto scan, DeltaScan::Make(io, root));
  FLOE_ASSIGN_OR_FAIL(auto reader, scan->ToRecordBatchReader());
  FLOE_ASSIGN_OR_FAIL(auto table, reader->ToTable());
  EXPECT_EQ(table->num_rows(), 30);
}

// Four tasks on threads of their own: every row once; a partitioned table's partitions
// each written by one task (the task number leads the file name); a failing input
// deletes every task's files.
TEST(DeltaWriteTest, TheTaskCountIsBounded) {
  testing::TempDirectory directory;
  auto io = *MakeArrowFileIO();
  const std::string root = directory.Child("t");
  ASSERT_TRUE(CreateTable(io, root, *TableSchema()).ok());
  const auto before = *io->List(root);
  for (int threads : {-1, kMaxWriteThreads + 1}) {
    DeltaWriteOptions options;
    options.threads = threads;
    auto rows = Rows(0, 5);
    auto refused = Write(io, root, *rows, options);
    EXPECT_EQ(KindOf(refused.status()), ErrorKind::kInvalidInput) << threads;
  }
  EXPECT_EQ(io->List(root)->size(), before.size());
}

// Without `threads` (0) a write runs one task per core, the tasks after the first joining
// in as the input grows past kDefaultTaskRows rows a task: a small input in many batches
// is one task's file, as a one-task write makes it; a large one every row once, in at
// most a file per task.
TEST(DeltaWriteTest, DefaultTasksFollowTheCoresAndTheInput) {
  testing::TempDirectory directory;
  auto io = *MakeArrowFileIO();
  const std::string root = directory.Child("t");
  ASSERT_TRUE(CreateTable(io, root, *TableSchema()).ok());
  const DeltaWriteOptions defaults;
  ASSERT_EQ(defaults.threads, 0);
  std::vector<std::shared_ptr<arrow::RecordBatch>> batches;
  for (int b = 0; b < 40; ++b) batches.push_back(*Rows(b * 25, 25)->Next());
  auto small = *arrow::RecordBatchReader::Make(batches, TableSchema());
  FLOE_ASSIGN_OR_FAIL(auto one, Write(io, root, *small, defaults));
  EXPECT_EQ(one.rows, 1000);
  EXPECT_EQ(one.files_added, 1);
  const int64_t rows = 4 * kDefaultTaskRows;
  FLOE_ASSIGN_OR_FAIL(auto many, Write(io, root, *Rows(1000, rows), defaults));
  EXPECT_EQ(many.rows, rows);
  EXPECT_GE(many.files_added, 1);
  EXPECT_LE(many.files_added, DefaultWriteTasks(0));
  FLOE_ASSIGN_OR_FAIL(auto scan, DeltaScan::Make(io, root));
  FLOE_ASSIGN_OR_FAIL(auto reader, scan->ToRecordBatchReader());
  FLOE_ASSIGN_OR_FAIL(auto table, reader->ToTable());
  EXPECT_EQ(table->num_rows(), 1000 + rows);
}

// A write to a path with no table creates it (create_if_missing), as delta-rs's
// write_deltalake does: one version 0 holding the protocol, the metadata (the input's
// columns, the partition columns asked for) and the rows. A table that is there keeps its
// own: other partition columns, or properties, are refused before any file is written.
TEST(DeltaWriteTest, AWriteCreatesTheTableItWritesWhenThereIsNone) {
  testing::TempDirectory directory;
  auto io = *MakeArrowFileIO();
  const std::string root = directory.Child("new");
  DeltaWriteOptions options;
  options.create_if_missing.emplace();
  options.create_if_missing->partition_columns = {"region"};
  FLOE_ASSIGN_OR_FAIL(auto created, Write(io, root, *Rows(0, 30), options));
  EXPECT_EQ(created.version, 0);
  EXPECT_EQ(created.rows, 30);
  EXPECT_EQ(created.files_added, 3);
  FLOE_ASSIGN_OR_FAIL(auto snapshot, LoadSnapshot(*io, root));
  EXPECT_EQ(snapshot.version, 0);
  EXPECT_EQ(snapshot.metadata.partition_columns, std::vector<std::string>{"region"});
  EXPECT_EQ(snapshot.protocol.min_reader_version, 1);
  EXPECT_EQ(snapshot.protocol.min_writer_version, 2);
  EXPECT_EQ(Referenced(snapshot), DataFiles(*io, root));
  FLOE_ASSIGN_OR_FAIL(auto log,
                      io->ReadAll(root + "/_delta_log/00000000000000000000.json"));
  EXPECT_NE(log.find(R"("operation":"WRITE")"), std::string::npos) << log;
  EXPECT_EQ(log.find("readVersion"), std::string::npos) << log;
  EXPECT_NE(log.find(R"({"protocol":)"), std::string::npos) << log;
  EXPECT_NE(log.find(R"({"metaData":)"), std::string::npos) << log;

  // The table is there now: written as it is.
  FLOE_ASSIGN_OR_FAIL(auto appended, Write(io, root, *Rows(30, 30), options));
  EXPECT_EQ(appended.version, 1);
  const auto before = *io->List(root);
  DeltaWriteOptions other = options;
  other.create_if_missing->partition_columns = {"name"};
  auto refused = Write(io, root, *Rows(60, 3), other);
  EXPECT_EQ(KindOf(refused.status()), ErrorKind::kInvalidInput);
  EXPECT_NE(refused.status().message().find("partitioned by [region], not [name]"),
            std::string::npos)
      << refused.status().ToString();
  DeltaWriteOptions properties;
  properties.create_if_missing.emplace();
  properties.create_if_missing->properties = {{"delta.appendOnly", "true"}};
  EXPECT_EQ(KindOf(Write(io, root, *Rows(60, 3), properties).status()),
            ErrorKind::kInvalidInput);
  DeltaWriteOptions deleting = options;
  deleting.mode = DeltaWriteMode::kDelete;
  deleting.predicate = "id = 1";
  EXPECT_EQ(KindOf(Write(io, directory.Child("none"), *Rows(0, 1), deleting).status()),
            ErrorKind::kInvalidInput);
  EXPECT_EQ(io->List(root)->size(), before.size());
  // Without create_if_missing a missing table is still an error.
  EXPECT_EQ(KindOf(Write(io, directory.Child("none"), *Rows(0, 1), {}).status()),
            ErrorKind::kNoSuchTable);
  EXPECT_TRUE(io->List(directory.Child("none"))->empty());
}

// Another writer creates the table between this write's files and its commit: the write
// fails with AlreadyExists, its files deleted, the other writer's table untouched.
TEST(DeltaWriteTest, ALostRaceToCreateTheTableCommitsNothingAndLeavesNoFile) {
  testing::TempDirectory directory;
  auto io = *MakeArrowFileIO();
  const std::string root = directory.Child("raced");
  class CreatingFirst final : public Committer {
   public:
    CreatingFirst(std::shared_ptr<FileIO> io, std::string root)
        : io_(std::move(io)), root_(std::move(root)), inner_(io_) {}
    arrow::Result<CommitResponse> Commit(const std::string& actions,
                                         const CommitMetadata& metadata) override {
      ARROW_RETURN_NOT_OK(CreateTable(io_, root_, *TableSchema()).status());
      return inner_.Commit(actions, metadata);
    }
    bool IsCatalogCommitter() const override { return false; }
    arrow::Status Publish(const PublishMetadata& metadata) override {
      return inner_.Publish(metadata);
    }

   private:
    std::shared_ptr<FileIO> io_;
    std::string root_;
    FilesystemCommitter inner_;
  };
  DeltaWriteOptions options;
  options.create_if_missing.emplace();
  options.committer = std::make_shared<CreatingFirst>(io, root);
  auto lost = Write(io, root, *Rows(0, 30), options);
  EXPECT_EQ(KindOf(lost.status()), ErrorKind::kAlreadyExists) << lost.status().ToString();
  FLOE_ASSIGN_OR_FAIL(auto snapshot, LoadSnapshot(*io, root));
  EXPECT_EQ(snapshot.version, 0);
  EXPECT_TRUE(snapshot.files.empty());
  EXPECT_TRUE(DataFiles(*io, root).empty());
}

TEST(DeltaWriteTest, ParallelTasksWriteEveryRowOnce) {
  testing::TempDirectory directory;
  auto io = *MakeArrowFileIO();
  for (bool partitioned : {true, false}) {
    const std::string root = directory.Child(partitioned ? "p" : "u");
    CreateTableOptions create;
    if (partitioned) create.partition_columns = {"region"};
    ASSERT_TRUE(CreateTable(io, root, *TableSchema(), create).ok());
    std::vector<std::shared_ptr<arrow::RecordBatch>> batches;
    for (int b = 0; b < 16; ++b) {
      auto reader = Rows(b * 50, 50);
      batches.push_back(*reader->Next());
    }
    auto input = *arrow::RecordBatchReader::Make(batches, TableSchema());
    DeltaWriteOptions options;
    options.threads = 4;
    FLOE_ASSIGN_OR_FAIL(auto result, Write(io, root, *input, options));
    EXPECT_EQ(result.rows, 800);
    FLOE_ASSIGN_OR_FAIL(auto snapshot, LoadSnapshot(*io, root));
    EXPECT_EQ(Referenced(snapshot), DataFiles(*io, root));
    std::map<std::string, std::set<std::string>> tasks_by_partition;
    std::set<std::string> tasks;
    for (const auto& file : snapshot.files) {
      const std::string name = file.path.substr(file.path.rfind('/') + 1);
      const std::string task = name.substr(0, name.find('-', 5));  // part-0000N
      tasks.insert(task);
      tasks_by_partition[file.partition_values.count("region")
                             ? file.partition_values.at("region").value_or("null")
                             : ""]
          .insert(task);
    }
    if (partitioned) {
      EXPECT_EQ(tasks_by_partition.size(), 3u);
      for (const auto& [partition, writers] : tasks_by_partition)
        EXPECT_EQ(writers.size(), 1u) << partition;
    }
    // Which tasks took an unpartitioned table's batches is the scheduler's choice; every
    // file is one of the four tasks'.
    for (const auto& task : tasks) {
      EXPECT_TRUE(task >= "part-00000" && task <= "part-00003") << task;
    }
    FLOE_ASSIGN_OR_FAIL(auto scan, DeltaScan::Make(io, root));
    FLOE_ASSIGN_OR_FAIL(auto reader, scan->ToRecordBatchReader());
    FLOE_ASSIGN_OR_FAIL(auto table, reader->ToTable());
    ASSERT_EQ(table->num_rows(), 800);
    std::set<int64_t> ids;
    for (const auto& chunk : table->GetColumnByName("id")->chunks()) {
      auto values = std::static_pointer_cast<arrow::Int64Array>(chunk);
      for (int64_t i = 0; i < values->length(); ++i) ids.insert(values->Value(i));
    }
    EXPECT_EQ(ids.size(), 800u);
    EXPECT_EQ(*ids.begin(), 0);
    EXPECT_EQ(*ids.rbegin(), 799);

    // A batch that cannot be written fails the write after the tasks have files open.
    auto bad_schema = arrow::schema({arrow::field("id", arrow::utf8())});
    arrow::StringBuilder text;
    ASSERT_TRUE(text.Append("not a number").ok());
    auto bad = arrow::RecordBatch::Make(bad_schema, 1, {*text.Finish()});
    std::vector<std::shared_ptr<arrow::RecordBatch>> mixed(batches.begin(),
                                                           batches.begin() + 8);
    struct Failing final : arrow::RecordBatchReader {
      std::vector<std::shared_ptr<arrow::RecordBatch>> batches;
      std::shared_ptr<arrow::RecordBatch> bad;
      size_t next = 0;
      std::shared_ptr<arrow::Schema> schema() const override { return TableSchema(); }
      arrow::Status ReadNext(std::shared_ptr<arrow::RecordBatch>* out) override {
        if (next < batches.size()) {
          *out = batches[next++];
          return arrow::Status::OK();
        }
        *out = bad;
        return arrow::Status::OK();
      }
    } failing;
    failing.batches = mixed;
    failing.bad = bad;
    auto before = DataFiles(*io, root);
    auto failed = Write(io, root, failing, options);
    ASSERT_FALSE(failed.ok());
    EXPECT_NE(failed.status().message().find("not a number"), std::string::npos)
        << failed.status().ToString();
    EXPECT_EQ(DataFiles(*io, root), before);
    EXPECT_EQ(LoadSnapshot(*io, root)->version, 1);
  }
}

// One batch bigger than a slice, three tasks: the slices are written once each.
TEST(DeltaWriteTest, ParallelTasksSliceABigBatch) {
  testing::TempDirectory directory;
  auto io = *MakeArrowFileIO();
  const std::string root = directory.Child("t");
  ASSERT_TRUE(CreateTable(io, root, *TableSchema(), {}).ok());
  auto rows = Rows(0, 300'000);
  DeltaWriteOptions options;
  options.threads = 3;
  FLOE_ASSIGN_OR_FAIL(auto result, Write(io, root, *rows, options));
  EXPECT_EQ(result.rows, 300'000);
  FLOE_ASSIGN_OR_FAIL(auto scan, DeltaScan::Make(io, root));
  FLOE_ASSIGN_OR_FAIL(auto reader, scan->ToRecordBatchReader());
  FLOE_ASSIGN_OR_FAIL(auto table, reader->ToTable());
  ASSERT_EQ(table->num_rows(), 300'000);
  std::vector<bool> seen(300'000, false);
  for (const auto& chunk : table->GetColumnByName("id")->chunks()) {
    auto values = std::static_pointer_cast<arrow::Int64Array>(chunk);
    for (int64_t i = 0; i < values->length(); ++i) {
      ASSERT_FALSE(seen[values->Value(i)]) << values->Value(i);
      seen[values->Value(i)] = true;
    }
  }
}

// A FileIO that runs `hook` once, when the write opens its first data file: another
// writer's commit lands between this write's read of the table and its commit.
class RacingFileIO final : public testing::ForwardingFileIO {
 public:
  RacingFileIO(std::shared_ptr<FileIO> inner, std::function<void()> hook)
      : ForwardingFileIO(std::move(inner)), hook_(std::move(hook)) {}
  arrow::Result<std::shared_ptr<arrow::io::OutputStream>> OpenOutput(
      const std::string& location) override {
    if (hook_ && location.find("/_delta_log/") == std::string::npos) {
      auto hook = std::move(hook_);
      hook_ = nullptr;
      hook();
    }
    return ForwardingFileIO::OpenOutput(location);
  }

 private:
  std::function<void()> hook_;
};

TEST(DeltaWriteTest, ALostRaceRetriesAnAppendAndFailsAnOverwrite) {
  testing::TempDirectory directory;
  auto io = *MakeArrowFileIO();
  const std::string root = directory.Child("t");
  ASSERT_TRUE(CreateTable(io, root, *TableSchema(), {}).ok());
  auto first = Rows(0, 5);
  ASSERT_TRUE(Write(io, root, *first).ok());
  auto other_writer = [&] {
    auto rows = Rows(1000, 5);
    EXPECT_TRUE(Write(io, root, *rows).ok());
  };
  // An append that lost version 2 commits at version 3, its data files written once.
  auto racing = std::make_shared<RacingFileIO>(io, other_writer);
  auto appended_rows = Rows(100, 5);
  FLOE_ASSIGN_OR_FAIL(auto appended, Write(racing, root, *appended_rows));
  EXPECT_EQ(appended.version, 3);
  EXPECT_EQ(appended.attempts, 2);
  FLOE_ASSIGN_OR_FAIL(auto snapshot, LoadSnapshot(*io, root));
  EXPECT_EQ(snapshot.files.size(), 3u);
  EXPECT_EQ(Referenced(snapshot), DataFiles(*io, root));

  // An overwrite that lost to an append fails, naming the winner, and leaves no file.
  racing = std::make_shared<RacingFileIO>(io, other_writer);
  auto replacement = Rows(500, 5);
  DeltaWriteOptions overwrite;
  overwrite.mode = DeltaWriteMode::kOverwrite;
  auto failed = Write(racing, root, *replacement, overwrite);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(KindOf(failed.status()), ErrorKind::kValidationFailed);
  EXPECT_NE(failed.status().message().find("version 4"), std::string::npos)
      << failed.status().ToString();
  FLOE_ASSIGN_OR_FAIL(snapshot, LoadSnapshot(*io, root));
  EXPECT_EQ(snapshot.version, 4);
  EXPECT_EQ(snapshot.files.size(), 4u);
  EXPECT_EQ(Referenced(snapshot), DataFiles(*io, root));

  // Unraced, the overwrite replaces every file.
  auto last = Rows(700, 5);
  FLOE_ASSIGN_OR_FAIL(auto replaced, Write(io, root, *last, overwrite));
  EXPECT_EQ(replaced.files_removed, 4);
  FLOE_ASSIGN_OR_FAIL(snapshot, LoadSnapshot(*io, root));
  EXPECT_EQ(snapshot.files.size(), 1u);
}

// Every create, write, close, rename and delete of an append (data files and the commit)
// can fail: the table is then unchanged and no data file of the write remains (except one
// whose own deletion was the fault); or the append committed exactly one version.
TEST(DeltaWriteTest, EveryOperationOfAnAppendCanFailCleanly) {
  testing::TempDirectory directory;
  auto run = [&](FileOperation kind, int64_t nth, int index, int64_t* counts) {
    const std::string root = directory.Child("run-" + std::to_string(index));
    auto local = *MakeArrowFileIO();
    CreateTableOptions create;
    create.partition_columns = {"region"};
    EXPECT_TRUE(CreateTable(local, root, *TableSchema(), create).ok());
    auto first = Rows(0, 9);
    EXPECT_TRUE(Write(local, root, *first).ok());
    const auto before = *LoadSnapshot(*local, root);
    auto io = std::make_shared<FaultInjectingFileIO>(local);
    io->FailNth(kind, nth);
    auto rows = Rows(100, 9);
    auto result = Write(io, root, *rows);
    const std::string fired = io->fired_at();
    if (counts) {
      for (int k = 0; k < kFileOperationKinds; ++k)
        counts[k] = io->Count(static_cast<FileOperation>(k));
    }
    auto after = LoadSnapshot(*local, root);
    EXPECT_TRUE(after.ok()) << after.status().ToString();
    // A failed sync of the log after the commit file is in place: the commit is
    // visible, its outcome unknown (it may not survive a power cut), its files kept.
    const bool unknown =
        !result.ok() && KindOf(result.status()) == ErrorKind::kCommitStateUnknown;
    if (unknown) {
      EXPECT_EQ(kind, FileOperation::kSync) << result.status().ToString();
    }
    if (result.ok() || unknown) {
      EXPECT_EQ(after->version, before.version + 1);
      EXPECT_EQ(after->files.size(), before.files.size() + 3);
    } else {
      EXPECT_NE(result.status().message().find("injected fault"), std::string::npos)
          << result.status().ToString();
      EXPECT_EQ(after->version, before.version) << FileOperationName(kind) << " #" << nth;
    }
    std::set<std::string> referenced = Referenced(*after);
    for (const auto& file : DataFiles(*local, root)) {
      if (kind == FileOperation::kDelete &&
          CanonicalLocation(file) == CanonicalLocation(fired)) {
        continue;
      }
      EXPECT_TRUE(referenced.count(file)) << "stray file " << file << " after failing "
                                          << FileOperationName(kind) << " #" << nth;
    }
    // The log holds commits only: a temporary commit file is gone unless deleting it was
    // the fault.
    for (const auto& file : *local->List(root + "/_delta_log")) {
      if (kind == FileOperation::kDelete &&
          CanonicalLocation(file.location) == CanonicalLocation(fired)) {
        continue;
      }
      EXPECT_EQ(file.location.find("/."), std::string::npos) << file.location;
    }
    return result.ok();
  };
  int64_t counts[kFileOperationKinds] = {};
  int index = 0;
  ASSERT_TRUE(run(FileOperation::kCreate, 0, index++, counts));
  int failures = 0;
  for (int k = 0; k < kFileOperationKinds; ++k) {
    auto kind = static_cast<FileOperation>(k);
    for (int64_t nth = 1; nth <= counts[k]; ++nth) {
      if (!run(kind, nth, index++, nullptr)) ++failures;
    }
  }
  EXPECT_GT(failures, 5);  // the sweep really failed writes and commits
  EXPECT_GT(counts[static_cast<int>(FileOperation::kRename)], 0);
}

// Every id a table's scan returns, sorted.
std::vector<int64_t> Ids(const std::shared_ptr<FileIO>& io, const std::string& root) {
  std::vector<int64_t> ids;
  auto scan = DeltaScan::Make(io, root);
  EXPECT_TRUE(scan.ok()) << scan.status().ToString();
  if (!scan.ok()) return ids;
  auto table = *(*(*scan)->ToRecordBatchReader())->ToTable();
  for (const auto& chunk : table->GetColumnByName("id")->chunks()) {
    const auto& values = static_cast<const arrow::Int64Array&>(*chunk);
    for (int64_t i = 0; i < values.length(); ++i) ids.push_back(values.Value(i));
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

TEST(DeltaWriteTest, EveryOperationOfACompactionCanFailCleanly) {
  testing::TempDirectory directory;
  std::vector<int64_t> all;
  auto run = [&](FileOperation kind, int64_t nth, int index, int64_t* counts) {
    const std::string root = directory.Child("run-" + std::to_string(index));
    auto local = *MakeArrowFileIO();
    CreateTableOptions create;
    create.partition_columns = {"region"};
    EXPECT_TRUE(CreateTable(local, root, *TableSchema(), create).ok());
    for (int64_t start : {0, 100, 200}) {
      auto rows = Rows(start, 9);
      EXPECT_TRUE(Write(local, root, *rows).ok());
    }
    const auto before = *LoadSnapshot(*local, root);
    const std::set<std::string> before_files = DataFiles(*local, root);
    all = Ids(local, root);
    auto io = std::make_shared<FaultInjectingFileIO>(local);
    io->FailNth(kind, nth);
    auto result = Compact(io, root);
    const std::string fired = io->fired_at();
    if (counts) {
      for (int k = 0; k < kFileOperationKinds; ++k)
        counts[k] = io->Count(static_cast<FileOperation>(k));
    }
    auto after = LoadSnapshot(*local, root);
    EXPECT_TRUE(after.ok()) << after.status().ToString();
    const bool unknown =
        !result.ok() && KindOf(result.status()) == ErrorKind::kCommitStateUnknown;
    if (result.ok() || unknown) {
      EXPECT_EQ(after->version, before.version + 1);
      EXPECT_EQ(after->files.size(), 3u);  // one per region
    } else {
      EXPECT_NE(result.status().message().find("injected fault"), std::string::npos)
          << result.status().ToString();
      EXPECT_EQ(after->version, before.version) << FileOperationName(kind) << " #" << nth;
    }
    EXPECT_EQ(Ids(local, root), all) << FileOperationName(kind) << " #" << nth;
    // On disk: the files of before (kept for older versions) and the live ones, nothing
    // else.
    std::set<std::string> referenced = Referenced(*after);
    for (const auto& file : DataFiles(*local, root)) {
      if (kind == FileOperation::kDelete &&
          CanonicalLocation(file) == CanonicalLocation(fired)) {
        continue;
      }
      EXPECT_TRUE(referenced.count(file) || before_files.count(file))
          << "stray file " << file << " after failing " << FileOperationName(kind) << " #"
          << nth;
    }
    return result.ok();
  };
  int64_t counts[kFileOperationKinds] = {};
  int index = 0;
  ASSERT_TRUE(run(FileOperation::kCreate, 0, index++, counts));
  EXPECT_EQ(all.size(), 27u);
  int failures = 0;
  for (int k = 0; k < kFileOperationKinds; ++k) {
    auto kind = static_cast<FileOperation>(k);
    for (int64_t nth = 1; nth <= counts[k]; ++nth) {
      if (!run(kind, nth, index++, nullptr)) ++failures;
    }
  }
  EXPECT_GT(failures, 5);
}

TEST(DeltaWriteTest, ACompactionOfEmptyFilesCommitsNothing) {
  // Files with no rows (some writers leave them): packed into a bin, they write no file,
  // and no version is committed, as delta-spark's OPTIMIZE commits only what it wrote.
  testing::TempDirectory directory;
  const std::string root = directory.Child("empty");
  auto io = *MakeArrowFileIO();
  ASSERT_TRUE(CreateTable(io, root, *TableSchema()).ok());
  std::string commit;
  for (const char* name : {"a.parquet", "b.parquet", "c.parquet"}) {
    auto rows = Rows(0, 0);
    auto table = *rows->ToTable();
    auto out = *io->OpenOutput(root + "/" + name);
    ASSERT_TRUE(
        parquet::arrow::WriteTable(*table, arrow::default_memory_pool(), out, 1024).ok());
    ASSERT_TRUE(out->Close().ok());
    const int64_t size = io->Stat(root + "/" + name)->size;
    commit +=
        std::string(R"({"add":{"path":")") + name + R"(","partitionValues":{},"size":)" +
        std::to_string(size) +
        R"(,"modificationTime":1,"dataChange":true,"stats":"{\"numRecords\":0}"}})" +
        "\n";
  }
  ASSERT_TRUE(io->WriteAll(CommitLocation(root, 1), commit).ok());
  FLOE_ASSIGN_OR_FAIL(auto result, Compact(io, root));
  EXPECT_TRUE(result.skipped);
  EXPECT_EQ(result.version, 1);
  EXPECT_EQ(result.files_added, 0);
  FLOE_ASSIGN_OR_FAIL(auto after, LoadSnapshot(*io, root));
  EXPECT_EQ(after.version, 1);
  EXPECT_EQ(after.files.size(), 3u);
  EXPECT_EQ(DataFiles(*io, root).size(), 3u);  // no file written, none deleted
}

TEST(DeltaWriteTest, ObjectStorageWithoutCredentialsIsRefusedBeforeAnyRequest) {
  // Delta commits are conditional PUTs there, which floe signs itself: without keys it
  // cannot, and says so before any file exists. The endpoint takes no connection: had
  // either call reached storage, it would fail differently.
  testing::ScopedEnvironment no_keys(testing::NoAwsCredentials());
  FLOE_ASSIGN_OR_FAIL(auto io, MakeS3FileIO({{"s3.endpoint", "http://127.0.0.1:1"},
                                             {"s3.retry.num-retries", "0"}}));
  auto created = CreateTable(io, "s3://bucket/delta/t", *TableSchema(), {});
  ASSERT_FALSE(created.ok());
  EXPECT_EQ(KindOf(created.status()), ErrorKind::kNotSupported);
  EXPECT_NE(created.status().message().find("no AWS credentials"), std::string::npos)
      << created.status().message();
  EXPECT_NE(created.status().message().find("s3://bucket/delta/t"), std::string::npos);
  auto rows = Rows(0, 5);
  auto written = Write(io, "s3a://bucket/delta/t", *rows, {});
  ASSERT_FALSE(written.ok());
  EXPECT_EQ(KindOf(written.status()), ErrorKind::kNotSupported);
  EXPECT_NE(written.status().message().find("s3a://bucket/delta/t"), std::string::npos);
}

}  // namespace
}  // namespace floe::delta
