// The format-neutral task machinery driven by a toy table format with no Iceberg in it
// (this file may include only util, io, parquet and task): partitions by one string
// column, names files "<partition>/part-<task>-<attempt>-<count>.parquet", reports files
// as "location rows partition" lines, and holds rows back reversed. What the task wrote
// is read back with Arrow's own Parquet reader.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <set>
#include <sstream>

#include "arrow/api.h"
#include "arrow/compute/api.h"
#include "arrow/io/file.h"
#include "floe/parquet/file_writer.h"
#include "floe/task/task_commit.h"
#include "floe/task/write_driver.h"
#include "floe/task/write_format.h"
#include "floe/task/write_task.h"
#include "floe/testing/temp_directory.h"
#include "floe/util/cancel.h"
#include "floe/util/error.h"
#include "floe/util/mutex.h"
#include "parquet/arrow/reader.h"

namespace floe {
namespace {

// Holds every row and hands them back last batch first.
class ReversingHolder final : public RowHolder {
 public:
  arrow::Status Add(std::shared_ptr<arrow::RecordBatch> batch) override {
    held_.push_back(std::move(batch));
    return arrow::Status::OK();
  }
  arrow::Status Drain(
      int64_t /*slice_rows*/,
      const std::function<arrow::Status(const std::shared_ptr<arrow::RecordBatch>&)>&
          sink) override {
    for (auto it = held_.rbegin(); it != held_.rend(); ++it)
      ARROW_RETURN_NOT_OK(sink(*it));
    held_.clear();
    return arrow::Status::OK();
  }

 private:
  std::vector<std::shared_ptr<arrow::RecordBatch>> held_;
};

class ToyFormat final : public WriteFormat {
 public:
  ToyFormat(std::shared_ptr<FileIO> io, std::string root, WriterMode mode, bool hold)
      : root_(std::move(root)), mode_(mode), hold_(hold) {
    auto context = std::make_shared<ParquetWriteContext>();
    context->io = std::move(io);
    context->arrow_schema = arrow::schema(
        {arrow::field("key", arrow::utf8()), arrow::field("value", arrow::int64())});
    parquet_ = std::move(context);
  }

  const std::shared_ptr<const ParquetWriteContext>& parquet() const override {
    return parquet_;
  }
  WriterMode mode() const override { return mode_; }
  int64_t target_file_size() const override { return int64_t{1} << 30; }
  int64_t buffer_budget() const override { return 0; }

  arrow::Result<std::vector<PartitionRows>> Split(
      const std::shared_ptr<arrow::RecordBatch>& batch,
      PartitionShare share) const override {
    const auto& keys = static_cast<const arrow::StringArray&>(*batch->column(0));
    std::vector<std::string> order;
    std::map<std::string, std::vector<int64_t>> rows;
    for (int64_t i = 0; i < batch->num_rows(); ++i) {
      std::string key(keys.GetView(i));
      if (!share.Owns(key)) continue;
      if (!rows.count(key)) order.push_back(key);
      rows[key].push_back(i);
    }
    std::vector<PartitionRows> groups;
    for (const auto& key : order) {
      arrow::Int64Builder indices;
      ARROW_RETURN_NOT_OK(indices.AppendValues(rows[key]));
      ARROW_ASSIGN_OR_RAISE(auto taken, arrow::compute::Take(batch, *indices.Finish()));
      groups.push_back(PartitionRows{key, key, taken.record_batch()});
    }
    return groups;
  }
  std::string FileLocation(const std::any& partition, int partition_id,
                           int64_t attempt_id, int64_t count) const override {
    return root_ + "/" + std::any_cast<std::string>(partition) + "/part-" +
           std::to_string(partition_id) + "-" + std::to_string(attempt_id) + "-" +
           std::to_string(count) + ".parquet";
  }
  arrow::Status NotClustered(const std::any& partition) const override {
    return arrow::Status::Invalid("toy: ", std::any_cast<std::string>(partition),
                                  " came back");
  }
  arrow::Result<std::unique_ptr<RowHolder>> MakeRowHolder(arrow::MemoryPool*,
                                                          Env*) const override {
    if (!hold_) return nullptr;
    return std::make_unique<ReversingHolder>();
  }
  arrow::Result<std::string> EncodeFiles(
      const std::vector<TaskFile>& files) const override {
    std::string text;
    for (const auto& file : files) {
      text += file.file.location + " " + std::to_string(file.file.rows) + " " +
              std::any_cast<std::string>(file.partition) + "\n";
    }
    return text;
  }

 private:
  std::string root_;
  WriterMode mode_;
  bool hold_;
  std::shared_ptr<const ParquetWriteContext> parquet_;
};

std::shared_ptr<arrow::RecordBatch> Batch(const std::vector<std::string>& keys,
                                          int64_t first_value) {
  arrow::StringBuilder key_builder;
  arrow::Int64Builder values;
  for (size_t i = 0; i < keys.size(); ++i) {
    EXPECT_TRUE(key_builder.Append(keys[i]).ok());
    EXPECT_TRUE(values.Append(first_value + static_cast<int64_t>(i)).ok());
  }
  return arrow::RecordBatch::Make(arrow::schema({arrow::field("key", arrow::utf8()),
                                                 arrow::field("value", arrow::int64())}),
                                  static_cast<int64_t>(keys.size()),
                                  {*key_builder.Finish(), *values.Finish()});
}

// The values of a Parquet file, read with Arrow's reader.
std::vector<int64_t> ValuesIn(const std::string& path) {
  auto input = *arrow::io::ReadableFile::Open(path);
  auto reader = *parquet::arrow::OpenFile(input, arrow::default_memory_pool());
  auto read = reader->ReadTable();
  EXPECT_TRUE(read.ok()) << read.status().ToString();
  if (!read.ok()) return {};
  std::shared_ptr<arrow::Table> table = *read;
  std::vector<int64_t> values;
  auto column = table->GetColumnByName("value");
  for (const auto& chunk : column->chunks()) {
    const auto& typed = static_cast<const arrow::Int64Array&>(*chunk);
    for (int64_t i = 0; i < typed.length(); ++i) values.push_back(typed.Value(i));
  }
  return values;
}

std::vector<std::string> FilesUnder(const std::filesystem::path& root) {
  std::vector<std::string> files;
  if (!std::filesystem::exists(root)) return files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
    if (entry.is_regular_file()) files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

class NeutralWriteTaskTest : public ::testing::Test {
 protected:
  std::shared_ptr<const ToyFormat> Format(WriterMode mode, bool hold = false) {
    return std::make_shared<const ToyFormat>(*MakeArrowFileIO(), root_, mode, hold);
  }
  testing::TempDirectory directory_;
  std::string root_ = directory_.Child("toy");
};

TEST_F(NeutralWriteTaskTest, AFanoutTaskWritesWhereTheFormatSaysAndReportsInItsEncoding) {
  auto task = WriteTask::Make(Format(WriterMode::kFanout), 3, 7);
  ASSERT_TRUE(task.ok()) << task.status().ToString();
  ASSERT_TRUE((*task)->Write(Batch({"b", "a", "b"}, 0)).ok());
  ASSERT_TRUE((*task)->Write(Batch({"a", "c"}, 10)).ok());
  auto message = (*task)->Finish();
  ASSERT_TRUE(message.ok()) << message.status().ToString();
  (*task)->Acknowledge();
  auto decoded = DecodeTaskCommit(*message);
  ASSERT_TRUE(decoded.ok());
  // Files sorted by location, each with the partition the format gave its rows.
  EXPECT_EQ(decoded->files, root_ + "/a/part-3-7-2.parquet 2 a\n" + root_ +
                                "/b/part-3-7-1.parquet 2 b\n" + root_ +
                                "/c/part-3-7-3.parquet 1 c\n");
  EXPECT_EQ(decoded->locations.size(), 3u);
  EXPECT_EQ(ValuesIn(root_ + "/a/part-3-7-2.parquet"), (std::vector<int64_t>{1, 10}));
  EXPECT_EQ(ValuesIn(root_ + "/b/part-3-7-1.parquet"), (std::vector<int64_t>{0, 2}));
  EXPECT_EQ(ValuesIn(root_ + "/c/part-3-7-3.parquet"), (std::vector<int64_t>{11}));
}

TEST_F(NeutralWriteTaskTest, AClusteredTaskGivesTheFormatsErrorAndItsFilesGoWithIt) {
  {
    auto task = WriteTask::Make(Format(WriterMode::kClustered), 0, 0);
    ASSERT_TRUE(task.ok());
    ASSERT_TRUE((*task)->Write(Batch({"a", "a"}, 0)).ok());
    ASSERT_TRUE((*task)->Write(Batch({"b"}, 2)).ok());
    auto status = (*task)->Write(Batch({"a"}, 3));
    ASSERT_FALSE(status.ok());
    EXPECT_EQ(status.message(), "toy: a came back");
    EXPECT_EQ(FilesUnder(root_).size(), 2u);
  }
  // Dropped without Acknowledge: every file it was handed is gone.
  EXPECT_TRUE(FilesUnder(root_).empty());
}

TEST_F(NeutralWriteTaskTest, HeldRowsAreWrittenAtFinishInTheHoldersOrder) {
  auto task = WriteTask::Make(Format(WriterMode::kClustered, /*hold=*/true), 1, 0);
  ASSERT_TRUE(task.ok());
  ASSERT_TRUE((*task)->Write(Batch({"a", "a"}, 0)).ok());
  ASSERT_TRUE((*task)->Write(Batch({"a"}, 5)).ok());
  EXPECT_TRUE(FilesUnder(root_).empty());  // nothing is opened before Finish
  auto message = (*task)->Finish();
  ASSERT_TRUE(message.ok()) << message.status().ToString();
  (*task)->Acknowledge();
  EXPECT_EQ(ValuesIn(root_ + "/a/part-1-0-1.parquet"), (std::vector<int64_t>{5, 0, 1}));
}

TEST_F(NeutralWriteTaskTest, ASharedOutPartitionIsWrittenByOneTaskOnly) {
  auto format = Format(WriterMode::kFanout);
  std::map<std::string, int> writers;
  for (int index = 0; index < 3; ++index) {
    auto task = WriteTask::Make(format, index, 0);
    ASSERT_TRUE(task.ok());
    (*task)->TakeShare(PartitionShare{index, 3});
    ASSERT_TRUE((*task)->Write(Batch({"a", "b", "c", "d", "e", "f", "g", "h"}, 0)).ok());
    auto message = (*task)->Finish();
    ASSERT_TRUE(message.ok());
    (*task)->Acknowledge();
    std::istringstream lines(DecodeTaskCommit(*message)->files);
    for (std::string location, rows, partition; lines >> location >> rows >> partition;) {
      writers[partition] += 1;
    }
  }
  EXPECT_EQ(writers.size(), 8u);
  for (const auto& [partition, count] : writers) EXPECT_EQ(count, 1) << partition;
}

TEST_F(NeutralWriteTaskTest, ABatchOfAnotherSchemaIsRefused) {
  auto task = WriteTask::Make(Format(WriterMode::kUnpartitioned), 0, 0);
  ASSERT_TRUE(task.ok());
  auto other =
      arrow::RecordBatch::Make(arrow::schema({arrow::field("x", arrow::int32())}), 0,
                               {*arrow::MakeArrayOfNull(arrow::int32(), 0)});
  EXPECT_FALSE((*task)->Write(other).ok());
  EXPECT_FALSE(WriteTask::Make(Format(WriterMode::kFanout), -1, 0).ok());
}

// A reader of `batches`, failing with `error` (when set) after `fail_after` of them.
class BatchesReader final : public arrow::RecordBatchReader {
 public:
  BatchesReader(std::vector<std::shared_ptr<arrow::RecordBatch>> batches,
                arrow::Status error = arrow::Status::OK(), size_t fail_after = 0)
      : batches_(std::move(batches)), error_(std::move(error)), fail_after_(fail_after) {}
  std::shared_ptr<arrow::Schema> schema() const override {
    return Batch({}, 0)->schema();
  }
  arrow::Status ReadNext(std::shared_ptr<arrow::RecordBatch>* out) override {
    if (!error_.ok() && next_ == fail_after_) return error_;
    *out = next_ < batches_.size() ? batches_[next_++] : nullptr;
    return arrow::Status::OK();
  }

 private:
  std::vector<std::shared_ptr<arrow::RecordBatch>> batches_;
  arrow::Status error_;
  size_t fail_after_;
  size_t next_ = 0;
};

class WriteDriverTest : public NeutralWriteTaskTest {
 protected:
  // 16 partitions over 8 batches of 100 rows, values 0..799.
  static std::vector<std::shared_ptr<arrow::RecordBatch>> Input() {
    std::vector<std::shared_ptr<arrow::RecordBatch>> batches;
    for (int b = 0; b < 8; ++b) {
      std::vector<std::string> keys;
      for (int i = 0; i < 100; ++i)
        keys.push_back("p" + std::to_string((b * 7 + i) % 16));
      batches.push_back(Batch(keys, b * 100));
    }
    return batches;
  }
  void MakeTasks(int count) {
    auto format = Format(WriterMode::kFanout);
    for (int i = 0; i < count; ++i) {
      auto task = WriteTask::Make(format, i, 0);
      ASSERT_TRUE(task.ok()) << task.status().ToString();
      tasks_.push_back(std::move(*task));
      driven_.push_back(tasks_.back().get());
    }
  }
  WriteDriverHooks Hooks() {
    WriteDriverHooks hooks;
    hooks.conform = [](const std::shared_ptr<arrow::RecordBatch>& batch) {
      return arrow::Result<std::shared_ptr<arrow::RecordBatch>>(batch);
    };
    return hooks;
  }
  std::vector<std::unique_ptr<WriteTask>> tasks_;
  std::vector<WriteTask*> driven_;
};

TEST_F(WriteDriverTest,
       EightTasksSharingPartitionsWriteEachRowOnceAndEachPartitionInOne) {
  MakeTasks(8);
  BatchesReader input(Input());
  WriteDriverOptions options;
  options.share_partitions = true;
  options.what = "the toy write";
  WriteDriverHooks hooks = Hooks();
  std::atomic<int64_t> fed{0};
  hooks.fed = [&](int64_t rows) { fed += rows; };
  Mutex done_mutex;
  std::vector<int> done;
  hooks.task_done = [&](int index) {
    MutexLock lock(&done_mutex);
    done.push_back(index);
    return arrow::Status::OK();
  };
  ASSERT_TRUE(DriveWriteTasks(driven_, input, options, hooks).ok());
  EXPECT_EQ(fed.load(), 800);
  std::sort(done.begin(), done.end());
  EXPECT_EQ(done, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  std::vector<int64_t> values;
  std::map<std::string, std::set<int>> writers;  // partition -> task ids of its files
  for (auto* task : driven_) ASSERT_TRUE(task->Finish().ok());
  for (auto& task : tasks_) task->Acknowledge();
  for (const auto& file : FilesUnder(root_)) {
    auto read = ValuesIn(file);
    values.insert(values.end(), read.begin(), read.end());
    const auto name = std::filesystem::path(file).filename().string();  // part-<task>-...
    writers[std::filesystem::path(file).parent_path().filename().string()].insert(
        std::stoi(name.substr(5, name.find('-', 5) - 5)));
  }
  std::sort(values.begin(), values.end());
  ASSERT_EQ(values.size(), 800u);
  for (int64_t i = 0; i < 800; ++i) EXPECT_EQ(values[static_cast<size_t>(i)], i);
  EXPECT_EQ(writers.size(), 16u);
  for (const auto& [partition, ids] : writers) EXPECT_EQ(ids.size(), 1u) << partition;
}

TEST_F(WriteDriverTest, TheFirstErrorStopsEveryTaskAndNoTaskIsDone) {
  MakeTasks(8);
  BatchesReader input(Input());
  WriteDriverOptions options;
  options.slice_rows = 10;
  WriteDriverHooks hooks = Hooks();
  int conformed = 0;
  hooks.conform = [&](const std::shared_ptr<arrow::RecordBatch>& batch)
      -> arrow::Result<std::shared_ptr<arrow::RecordBatch>> {
    if (++conformed == 3) return arrow::Status::Invalid("batch 3 does not fit");
    return batch;
  };
  std::atomic<int> done{0};
  hooks.task_done = [&](int) {
    ++done;
    return arrow::Status::OK();
  };
  std::atomic<int> cancelled{0};
  hooks.cancel = [&] { ++cancelled; };
  auto status = DriveWriteTasks(driven_, input, options, hooks);
  EXPECT_TRUE(status.IsInvalid()) << status.ToString();
  EXPECT_EQ(status.message(), "batch 3 does not fit");
  EXPECT_EQ(conformed, 3);
  EXPECT_EQ(done.load(), 0);
  EXPECT_EQ(cancelled.load(), 1);
  // The caller destroys the tasks: every file they wrote goes with them.
  tasks_.clear();
  EXPECT_EQ(FilesUnder(root_), std::vector<std::string>{});
}

TEST_F(WriteDriverTest, AReadErrorIsNamedAndACancelledWriteSaysWhat) {
  MakeTasks(2);
  BatchesReader input(Input(), arrow::Status::IOError("disk gone"), 2);
  WriteDriverOptions options;
  auto status = DriveWriteTasks(driven_, input, options, Hooks());
  EXPECT_TRUE(status.IsIOError()) << status.ToString();
  EXPECT_NE(status.message().find("reading the input"), std::string::npos)
      << status.ToString();
  tasks_.clear();
  driven_.clear();

  MakeTasks(1);
  BatchesReader more(Input());
  options.what = "the toy write";
  RequestCancel();
  status = DriveWriteTasks(driven_, more, options, Hooks());
  ResetCancel();
  EXPECT_EQ(KindOf(status), ErrorKind::kCancelled) << status.ToString();
  EXPECT_NE(status.message().find("the toy write"), std::string::npos)
      << status.ToString();
}

TEST_F(WriteDriverTest, EmptyBatchesAreSkippedWhenAsked) {
  MakeTasks(1);
  std::vector<std::shared_ptr<arrow::RecordBatch>> batches = {
      Batch({}, 0), Batch({"a"}, 1), Batch({}, 0)};
  WriteDriverOptions options;
  options.skip_empty_batches = true;
  WriteDriverHooks hooks = Hooks();
  int fed = 0;
  hooks.fed = [&](int64_t) { ++fed; };
  BatchesReader input(batches);
  ASSERT_TRUE(DriveWriteTasks(driven_, input, options, hooks).ok());
  EXPECT_EQ(fed, 1);
  options.skip_empty_batches = false;
  BatchesReader again(batches);
  ASSERT_TRUE(DriveWriteTasks(driven_, again, options, hooks).ok());
  EXPECT_EQ(fed, 4);
}

}  // namespace
}  // namespace floe
