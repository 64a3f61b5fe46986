#include "floe/iceberg/write/iceberg_task.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <regex>
#include <set>

#include <gtest/gtest.h>

#include "arrow/api.h"
#include "arrow/compute/api.h"
#include "arrow/io/file.h"
#include "arrow/util/key_value_metadata.h"
#include "floe/iceberg/manifest/manifest.h"
#include "floe/iceberg/spec/schema_ddl.h"
#include "floe/iceberg/spec/sort_order.h"
#include "floe/iceberg/write/partitioner.h"
#include "floe/task/row_groups_internal.h"
#include "floe/task/task_commit.h"
#include "floe/testing/fake_env.h"
#include "floe/testing/temp_directory.h"
#include "floe/types/arrow_schema.h"
#include "floe/util/error.h"
#include "floe/util/uuid.h"
#include "parquet/arrow/reader.h"
#include "parquet/metadata.h"

namespace floe::iceberg {
namespace {

class WriteTaskTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto io = MakeArrowFileIO();
    ASSERT_TRUE(io.ok());
    io_ = *io;
  }

  std::shared_ptr<const WritePlan> Plan(const std::string& partition_by,
                                        PropertyMap properties = {},
                                        bool clustered = false,
                                        const std::string& sort_by = "") {
    auto schema = ParseSchemaText("id long not null, region string, score double");
    auto spec = ParsePartitionBy(partition_by, **schema);
    auto order = ParseSortBy(sort_by, **schema);
    EXPECT_TRUE(order.ok()) << order.status().ToString();
    auto metadata = NewTableMetadata(**schema, **spec, **order, directory_.Child("table"),
                                     std::move(properties));
    auto plan = WritePlan::Make(**metadata, {}, {.input_clustered = clustered});
    EXPECT_TRUE(plan.ok()) << plan.status().ToString();
    return *plan;
  }

  // Rows id = start..start+count-1 with region r<id % partitions> (names that need
  // escaping).
  std::shared_ptr<arrow::RecordBatch> Rows(const WritePlan& plan, int64_t start,
                                           int64_t count, int partitions) {
    arrow::Int64Builder ids;
    arrow::StringBuilder regions;
    arrow::DoubleBuilder scores;
    for (int64_t i = start; i < start + count; ++i) {
      EXPECT_TRUE(ids.Append(i).ok());
      EXPECT_TRUE(regions.Append("r/" + std::to_string(i % partitions) + " ü").ok());
      EXPECT_TRUE(scores.Append(i % 7 == 0 ? -0.0 : 0.5 * static_cast<double>(i)).ok());
    }
    auto schema = ToArrowSchema(*plan.schema);
    return arrow::RecordBatch::Make(*schema, count,
                                    {*ids.Finish(), *regions.Finish(), *scores.Finish()});
  }

  std::vector<DataFile> Decode(const std::string& message) {
    auto decoded = DecodeTaskCommit(message);
    EXPECT_TRUE(decoded.ok());
    if (decoded->files.empty()) return {};
    auto manifest = ReadManifest(decoded->files);
    EXPECT_TRUE(manifest.ok()) << manifest.status().ToString();
    std::vector<DataFile> files;
    for (auto& entry : manifest->entries) files.push_back(entry.data_file);
    return files;
  }

  int64_t RowsInFile(const std::string& path) {
    auto reader = parquet::arrow::OpenFile(*arrow::io::ReadableFile::Open(path),
                                           arrow::default_memory_pool());
    return (*reader)->parquet_reader()->metadata()->num_rows();
  }

  testing::TempDirectory directory_;
  std::shared_ptr<FileIO> io_;
};

// The operation id every file name embeds comes from the plan options' Env.
TEST_F(WriteTaskTest, ThePlansOperationIdDrawsFromTheEnv) {
  auto schema = ParseSchemaText("id long");
  auto metadata = NewTableMetadata(**schema, *PartitionSpec::Unpartitioned(),
                                   *SortOrder::Unsorted(), directory_.Child("table"), {});
  ASSERT_TRUE(metadata.ok());
  std::vector<std::string> ids;
  for (uint64_t seed : {7, 7, 8}) {
    testing::FakeEnv env(1767225600000, seed);
    auto plan = WritePlan::Make(**metadata, {}, {.env = &env});
    ASSERT_TRUE(plan.ok()) << plan.status().ToString();
    ids.push_back((*plan)->operation_id);
  }
  EXPECT_EQ(ids[0], ids[1]);
  EXPECT_NE(ids[0], ids[2]);
}

// A derived plan differs only in its operation id, which is the same wherever it is
// derived (driver and executors), differs per part and from the parent, is shaped as a
// UUID, and survives serialisation.
TEST_F(WriteTaskTest, ADerivedPlanHasAnOperationIdOfItsOwn) {
  auto schema = ParseSchemaText("id long");
  auto metadata = NewTableMetadata(**schema, *PartitionSpec::Unpartitioned(),
                                   *SortOrder::Unsorted(), directory_.Child("table"), {});
  ASSERT_TRUE(metadata.ok());
  FLOE_ASSIGN_OR_FAIL(auto plan, WritePlan::Make(**metadata, {}, {}));
  FLOE_ASSIGN_OR_FAIL(auto travelled, WritePlan::Deserialize(plan->Serialize()));
  auto one = plan->Derive("epoch-1");
  EXPECT_EQ(one->operation_id, travelled->Derive("epoch-1")->operation_id);
  EXPECT_NE(one->operation_id, plan->operation_id);
  EXPECT_NE(one->operation_id, plan->Derive("epoch-2")->operation_id);
  EXPECT_NE(one->operation_id, plan->Derive("epoch-1")->Derive("epoch-1")->operation_id);
  EXPECT_TRUE(Uuid::Parse(one->operation_id).ok()) << one->operation_id;
  EXPECT_EQ(one->operation_id[14], '8');  // version 8
  FLOE_ASSIGN_OR_FAIL(auto back, WritePlan::Deserialize(one->Serialize()));
  EXPECT_EQ(back->operation_id, one->operation_id);
  EXPECT_EQ(back->Serialize(), one->Serialize());
  auto same = std::make_shared<WritePlan>(*one);
  same->operation_id = plan->operation_id;
  EXPECT_EQ(same->Serialize(), plan->Serialize());  // nothing else changed
}

// Splitting once for several tasks gives each share exactly what splitting for that
// share alone gives: the same groups in the same order with the same rows, every row in
// one share only; interleaved partitions (gathered per share) and contiguous ones
// (zero-copy slices) alike.
TEST_F(WriteTaskTest, SplitSharesGivesEachShareWhatSplittingForItGives) {
  auto plan = Plan("region");
  FLOE_ASSIGN_OR_FAIL(auto partitioner, Partitioner::Make(plan->schema, plan->spec));
  auto interleaved = Rows(*plan, 0, 500, 11);
  arrow::Int64Builder by_region;  // the rows of each region together
  for (int region = 0; region < 11; ++region) {
    for (int64_t row = region; row < 500; row += 11)
      ASSERT_TRUE(by_region.Append(row).ok());
  }
  FLOE_ASSIGN_OR_FAIL(auto order, by_region.Finish());
  FLOE_ASSIGN_OR_FAIL(auto taken, arrow::compute::Take(interleaved, order));
  for (const auto& batch : {interleaved, taken.record_batch()}) {
    for (int count : {1, 2, 3}) {
      FLOE_ASSIGN_OR_FAIL(auto shares, partitioner->SplitShares(batch, count));
      ASSERT_EQ(shares.size(), static_cast<size_t>(count));
      int64_t rows = 0;
      for (int i = 0; i < count; ++i) {
        FLOE_ASSIGN_OR_FAIL(auto alone,
                            partitioner->Split(batch, PartitionShare{i, count}));
        const auto& share = shares[static_cast<size_t>(i)];
        ASSERT_EQ(share.size(), alone.size()) << count << " " << i;
        for (size_t g = 0; g < share.size(); ++g) {
          EXPECT_EQ(share[g].key, alone[g].key);
          // Interleaved rows are gathered by the writer (take), contiguous ones sliced.
          EXPECT_EQ(share[g].take != nullptr, batch == interleaved) << share[g].key;
          FLOE_ASSIGN_OR_FAIL(auto gathered, share[g].Gathered());
          FLOE_ASSIGN_OR_FAIL(auto gathered_alone, alone[g].Gathered());
          EXPECT_TRUE(gathered->Equals(*gathered_alone)) << share[g].key;
          EXPECT_EQ(gathered->num_rows(), share[g].num_rows());
          // Every row of the group is of its region (row % 11), in input order.
          const auto& id =
              static_cast<const arrow::Int64Array&>(*gathered->GetColumnByName("id"));
          for (int64_t row = 0; row < id.length(); ++row) {
            EXPECT_EQ(id.Value(row) % 11, id.Value(0) % 11) << share[g].key;
            if (row > 0) {
              EXPECT_LT(id.Value(row - 1), id.Value(row)) << share[g].key;
            }
          }
          EXPECT_TRUE((PartitionShare{i, count}.Owns(share[g].key)));
          rows += gathered->num_rows();
        }
        // Gathering the share in place takes its rows once (every group a slice of one
        // batch) and gives each group the rows it gathers alone.
        auto in_place = share;
        FLOE_ASSERT_OK(GatherGroups(in_place));
        for (size_t g = 0; g < in_place.size(); ++g) {
          EXPECT_EQ(in_place[g].take, nullptr);
          FLOE_ASSIGN_OR_FAIL(auto gathered, share[g].Gathered());
          EXPECT_TRUE(in_place[g].rows->Equals(*gathered)) << share[g].key;
          EXPECT_EQ(in_place[g].rows->column(0)->data()->buffers[1],
                    in_place[0].rows->column(0)->data()->buffers[1]);
        }
      }
      EXPECT_EQ(rows, batch->num_rows());
    }
  }
}

TEST_F(WriteTaskTest, FanoutWritesOneFilePerPartitionSortedByPath) {
  auto plan = Plan("region");
  ASSERT_EQ(plan->mode, WriterMode::kFanout);
  FLOE_ASSIGN_OR_FAIL(auto task, MakeWriteTask(plan, io_, 3, 17));
  for (int batch = 0; batch < 4; ++batch)
    FLOE_ASSERT_OK(task->Write(Rows(*plan, batch * 2500, 2500, 9)));
  FLOE_ASSIGN_OR_FAIL(std::string message, task->Finish());
  task->Acknowledge();
  auto files = Decode(message);
  ASSERT_EQ(files.size(), 9u);
  int64_t total = 0;
  std::regex name(".*/data/region=r%2F[0-8]\\+%C3%BC/00003-17-" + plan->operation_id +
                  "-0000[1-9]\\.parquet");
  for (size_t i = 0; i < files.size(); ++i) {
    EXPECT_TRUE(std::regex_match(files[i].file_path, name)) << files[i].file_path;
    if (i > 0) {
      EXPECT_LT(files[i - 1].file_path, files[i].file_path);
    }
    EXPECT_EQ(files[i].record_count, RowsInFile(files[i].file_path));
    EXPECT_EQ(files[i].file_size_in_bytes,
              static_cast<int64_t>(std::filesystem::file_size(files[i].file_path)));
    ASSERT_EQ(files[i].partition.size(), 1u);
    total += files[i].record_count;
    // Metrics: ids 1..3 have counts; the double column has NaN counts and -0.0 lower
    // bounds.
    EXPECT_EQ(files[i].value_counts.at(1), files[i].record_count);
    EXPECT_EQ(files[i].null_value_counts.at(2), 0);
    EXPECT_EQ(files[i].nan_value_counts.at(3), 0);
  }
  EXPECT_EQ(total, 10000);
}

TEST_F(WriteTaskTest, AbortOnDropDeletesEveryFile) {
  auto plan = Plan("region");
  std::vector<std::string> locations;
  {
    FLOE_ASSIGN_OR_FAIL(auto task, MakeWriteTask(plan, io_, 0, 1));
    FLOE_ASSERT_OK(task->Write(Rows(*plan, 0, 5000, 8)));
    locations = task->locations();
    ASSERT_EQ(locations.size(), 8u);
    for (const auto& location : locations) EXPECT_TRUE(std::filesystem::exists(location));
  }
  for (const auto& location : locations)
    EXPECT_FALSE(std::filesystem::exists(location)) << location;
  // Finished but never acknowledged: still the task's files.
  {
    FLOE_ASSIGN_OR_FAIL(auto task, MakeWriteTask(plan, io_, 0, 2));
    FLOE_ASSERT_OK(task->Write(Rows(*plan, 0, 100, 8)));
    FLOE_ASSERT_OK(task->Finish().status());
    locations = task->locations();
  }
  for (const auto& location : locations)
    EXPECT_FALSE(std::filesystem::exists(location)) << location;
}

// A retried task (same partition id, new attempt id) writes new names; one that reuses an
// attempt id whose files exist fails and never touches them.
TEST_F(WriteTaskTest, RetriedAttemptsNeverReuseOrDeleteEarlierFiles) {
  auto plan = Plan("region");
  FLOE_ASSIGN_OR_FAIL(auto first, MakeWriteTask(plan, io_, 3, 0));
  FLOE_ASSERT_OK(first->Write(Rows(*plan, 0, 2000, 8)));
  FLOE_ASSIGN_OR_FAIL(std::string message, first->Finish());
  first->Acknowledge();  // the committer owns these now
  std::vector<std::string> earlier = first->locations();
  ASSERT_EQ(earlier.size(), 8u);

  FLOE_ASSIGN_OR_FAIL(auto retry, MakeWriteTask(plan, io_, 3, 1));
  FLOE_ASSERT_OK(retry->Write(Rows(*plan, 0, 2000, 8)));
  FLOE_ASSERT_OK(retry->Finish().status());
  retry->Acknowledge();
  for (const auto& location : retry->locations()) {
    EXPECT_EQ(std::find(earlier.begin(), earlier.end(), location), earlier.end())
        << location;
    EXPECT_TRUE(std::filesystem::exists(location));
  }

  {
    FLOE_ASSIGN_OR_FAIL(auto reused, MakeWriteTask(plan, io_, 3, 0));
    auto written = reused->Write(Rows(*plan, 0, 2000, 8));
    ASSERT_FALSE(written.ok());
    EXPECT_EQ(KindOf(written), ErrorKind::kAlreadyExists);
    EXPECT_NE(written.message().find("already exists"), std::string::npos);
  }  // dropped unacknowledged: its guard deletes only what it created
  for (const auto& location : earlier)
    EXPECT_TRUE(std::filesystem::exists(location)) << location;
  EXPECT_EQ(Decode(message).size(), 8u);
}

TEST_F(WriteTaskTest, RefusesToRunWithoutIds) {
  auto plan = Plan("region");
  EXPECT_FALSE(MakeWriteTask(plan, io_, -1, 0).ok());
  EXPECT_FALSE(MakeWriteTask(plan, io_, 0, -1).ok());
}

TEST_F(WriteTaskTest, ClusteredFailsWithIcebergJavaMessageOnOutOfOrderPartitions) {
  auto plan = Plan("region", {}, /*clustered=*/true);
  ASSERT_EQ(plan->mode, WriterMode::kClustered);
  FLOE_ASSIGN_OR_FAIL(auto task, MakeWriteTask(plan, io_, 0, 0));
  FLOE_ASSERT_OK(task->Write(Rows(*plan, 0, 1, 8)));  // r/0
  FLOE_ASSERT_OK(task->Write(Rows(*plan, 1, 1, 8)));  // r/1 closes r/0
  auto status = task->Write(Rows(*plan, 8, 1, 8));    // r/0 again
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(
      status.message(),
      "Incoming records violate the writer assumption that records are clustered by spec "
      "and by partition within each spec. Either cluster the incoming records or switch "
      "to "
      "fanout writers.\nEncountered records that belong to already closed "
      "files:\npartition "
      "'region=r%2F0+%C3%BC' in spec [\n  1000: region: identity(2)\n]");
}

TEST_F(WriteTaskTest, RollsOnTheThousandRowGrid) {
  auto plan = Plan("", {{"write.target-file-size-bytes", "1"}});
  FLOE_ASSIGN_OR_FAIL(auto task, MakeWriteTask(plan, io_, 0, 0));
  FLOE_ASSERT_OK(task->Write(Rows(*plan, 0, 2500, 1)));
  FLOE_ASSERT_OK(task->Write(Rows(*plan, 2500, 1500, 1)));
  FLOE_ASSIGN_OR_FAIL(std::string message, task->Finish());
  task->Acknowledge();
  auto files = Decode(message);
  ASSERT_EQ(files.size(), 4u);
  for (const auto& file : files) EXPECT_EQ(file.record_count, 1000);
  // The roll on the last row opened a fifth file, which was empty and deleted
  // (iceberg-java's RollingFileWriter uses up that file number too).
  auto locations = task->locations();
  ASSERT_EQ(locations.size(), 5u);
  EXPECT_FALSE(std::filesystem::exists(locations.back()));
}

// A fanout task's open files hold at most the task's budget of buffered rows: past it the
// largest row groups are written out early. What stays is each open file's empty
// encoders.
TEST_F(WriteTaskTest, FanoutKeepsBufferedRowsWithinTheTaskBudget) {
  constexpr int kPartitions = 12;
  constexpr int64_t kBudget = 512 << 10;
  auto run = [&](int64_t budget, int64_t* peak_over_opened, int* row_groups,
                 int64_t* rows) {
    // Files start writing after a page's worth of rows (100 here).
    auto plan = std::make_shared<WritePlan>(
        *Plan("region", {{"write.parquet.page-row-limit", "100"}}));
    plan->task_buffer_budget_bytes = budget;
    arrow::ProxyMemoryPool pool(arrow::default_memory_pool());
    FLOE_ASSIGN_OR_FAIL(auto task,
                        MakeWriteTask(plan, io_, 0, budget > 0 ? 1 : 2, &pool));
    // The first batch starts every partition's file.
    FLOE_ASSERT_OK(task->Write(Rows(*plan, 0, 100 * kPartitions, kPartitions)));
    const int64_t opened = pool.bytes_allocated();
    *peak_over_opened = 0;
    for (int64_t start = 100 * kPartitions; start < 300000; start += 5000) {
      FLOE_ASSERT_OK(task->Write(Rows(*plan, start, 5000, kPartitions)));
      *peak_over_opened = std::max(*peak_over_opened, pool.bytes_allocated() - opened);
    }
    FLOE_ASSIGN_OR_FAIL(std::string message, task->Finish());
    task->Acknowledge();
    auto files = Decode(message);
    ASSERT_EQ(files.size(), static_cast<size_t>(kPartitions));
    *row_groups = 0;
    *rows = 0;
    for (const auto& file : files) {
      auto reader = parquet::arrow::OpenFile(
          *arrow::io::ReadableFile::Open(file.file_path), arrow::default_memory_pool());
      *row_groups += (*reader)->parquet_reader()->metadata()->num_row_groups();
      EXPECT_EQ(file.record_count, RowsInFile(file.file_path));
      *rows += file.record_count;
    }
  };
  int64_t unbounded_peak = 0, bounded_peak = 0, rows = 0;
  int unbounded_groups = 0, bounded_groups = 0;
  run(0, &unbounded_peak, &unbounded_groups, &rows);
  EXPECT_EQ(rows, 301200);
  run(kBudget, &bounded_peak, &bounded_groups, &rows);
  EXPECT_EQ(rows, 301200);
  // Without a budget every file keeps one row group, growing with the input; with one,
  // the buffered rows stay within the budget plus one batch's worth.
  EXPECT_EQ(unbounded_groups, kPartitions);
  EXPECT_GT(unbounded_peak, 4 * kBudget);
  EXPECT_GT(bounded_groups, 2 * kPartitions);
  EXPECT_LT(bounded_peak, kBudget + (256 << 10)) << bounded_peak;
}

// write.distribution-mode as Spark reads it: unset means hash for a partitioned table and
// range for a sorted one; hash and range keep each partition in one task, none and an
// unpartitioned table do not; range splits an unpartitioned sorted table by sort key.
TEST_F(WriteTaskTest, DistributionModeIsChosenAsSparkChoosesIt) {
  EXPECT_EQ(Plan("region")->distribution, Distribution::kByPartition);
  EXPECT_EQ(Plan("region", {{"write.distribution-mode", "HASH"}})->distribution,
            Distribution::kByPartition);
  EXPECT_EQ(Plan("region", {{"write.distribution-mode", "range"}})->distribution,
            Distribution::kByPartition);
  EXPECT_EQ(Plan("region", {{"write.distribution-mode", "none"}})->distribution,
            Distribution::kNone);
  EXPECT_EQ(Plan("")->distribution, Distribution::kNone);
  EXPECT_EQ(Plan("", {{"write.distribution-mode", "hash"}})->distribution,
            Distribution::kNone);
  // An unpartitioned sorted table is split by sort key under range, or unset; not under
  // hash (nothing to hash) or none; a partitioned or unsorted table never.
  EXPECT_EQ(Plan("", {}, false, "score desc")->distribution, Distribution::kBySortKey);
  EXPECT_EQ(
      Plan("", {{"write.distribution-mode", "Range"}}, false, "score")->distribution,
      Distribution::kBySortKey);
  EXPECT_EQ(Plan("", {{"write.distribution-mode", "hash"}}, false, "score")->distribution,
            Distribution::kNone);
  EXPECT_EQ(Plan("", {{"write.distribution-mode", "none"}}, false, "score")->distribution,
            Distribution::kNone);
  EXPECT_EQ(Plan("region", {}, false, "score")->distribution, Distribution::kByPartition);
  // The plan that travels to tasks keeps them.
  FLOE_ASSIGN_OR_FAIL(auto copy, WritePlan::Deserialize(Plan("region")->Serialize()));
  EXPECT_EQ(copy->distribution, Distribution::kByPartition);
  FLOE_ASSIGN_OR_FAIL(auto ranged,
                      WritePlan::Deserialize(Plan("", {}, false, "id")->Serialize()));
  EXPECT_EQ(ranged->distribution, Distribution::kBySortKey);
  // A value Spark would refuse is refused at plan time, naming the property only.
  auto schema = ParseSchemaText("id long not null, region string");
  auto spec = ParsePartitionBy("region", **schema);
  auto metadata = NewTableMetadata(**schema, **spec, *SortOrder::Unsorted(),
                                   directory_.Child("bad"), {});
  auto bad = WritePlan::Make(**metadata, {{"write.distribution-mode", "s3cr3t-mode"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("write.distribution-mode"), std::string::npos);
  EXPECT_EQ(bad.status().message().find("s3cr3t-mode"), std::string::npos);
}

// Tasks that share the partitions out each see every batch and write only their own
// partitions: every partition's rows end up in one task's files, none lost or doubled.
TEST_F(WriteTaskTest, SharedPartitionsAreWrittenByOneTaskEach) {
  constexpr int kPartitions = 10;
  constexpr int kTasks = 3;
  auto plan = Plan("region");
  ASSERT_EQ(plan->distribution,
            Distribution::kByPartition);  // Spark's default for a partitioned table
  std::map<std::string, std::set<int>> tasks_of_partition;
  int64_t rows = 0;
  int64_t rows_written = 0;
  for (int t = 0; t < kTasks; ++t) {
    FLOE_ASSIGN_OR_FAIL(auto task, MakeWriteTask(plan, io_, t, t));
    task->TakeShare(PartitionShare{t, kTasks});
    for (int64_t start = 0; start < 24000; start += 3000) {
      FLOE_ASSERT_OK(task->Write(Rows(*plan, start, 3000, kPartitions)));
    }
    rows_written += task->rows_written();
    FLOE_ASSIGN_OR_FAIL(std::string message, task->Finish());
    task->Acknowledge();
    for (const auto& file : Decode(message)) {
      EXPECT_EQ(file.record_count, RowsInFile(file.file_path));
      rows += file.record_count;
      tasks_of_partition[std::filesystem::path(file.file_path).parent_path().string()]
          .insert(t);
    }
  }
  EXPECT_EQ(rows, 24000);
  EXPECT_EQ(rows_written, 24000);
  ASSERT_EQ(tasks_of_partition.size(), static_cast<size_t>(kPartitions));
  std::set<int> used;
  for (const auto& [partition, tasks] : tasks_of_partition) {
    EXPECT_EQ(tasks.size(), 1u) << partition;
    used.insert(tasks.begin(), tasks.end());
  }
  EXPECT_GT(used.size(), 1u);  // the partitions are spread over the tasks
}

// One open file keeps within the task's budget too (a memory limit below a row group's
// size): its row groups are written out at the budget, not at
// write.parquet.row-group-size-bytes, and the file holds every row.
TEST_F(WriteTaskTest, OneOpenFileKeepsBufferedRowsWithinTheTaskBudget) {
  constexpr int64_t kBudget = 256 << 10;
  auto plan = std::make_shared<WritePlan>(*Plan(""));
  ASSERT_GT(plan->parquet.row_group_size_bytes, 100 * kBudget);
  plan->task_buffer_budget_bytes = kBudget;
  arrow::ProxyMemoryPool pool(arrow::default_memory_pool());
  FLOE_ASSIGN_OR_FAIL(auto task, MakeWriteTask(plan, io_, 0, 1, &pool));
  int64_t peak = 0;
  for (int64_t start = 0; start < 300000; start += 5000) {
    FLOE_ASSERT_OK(task->Write(Rows(*plan, start, 5000, 7)));
    peak = std::max(peak, pool.bytes_allocated());
  }
  FLOE_ASSIGN_OR_FAIL(std::string message, task->Finish());
  task->Acknowledge();
  auto files = Decode(message);
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].record_count, 300000);
  EXPECT_EQ(RowsInFile(files[0].file_path), 300000);
  auto reader = parquet::arrow::OpenFile(
      *arrow::io::ReadableFile::Open(files[0].file_path), arrow::default_memory_pool());
  const int row_groups = (*reader)->parquet_reader()->metadata()->num_row_groups();
  EXPECT_GT(row_groups, 4);  // one row group of every row without the budget
  EXPECT_EQ(files[0].split_offsets.size(), static_cast<size_t>(row_groups));
  // The buffered row group, the file's encoders and the page of rows waiting for its
  // dictionary choice, against the 6 MB the rows take unbounded.
  EXPECT_LT(peak, 4 * kBudget);
}

// A budget flush writes a row group out early; Arrow's writer then has the next one open,
// and a file whose rows end there must not end with that empty row group (parquet-java
// never writes one). The file stays whole: its rows, footer key, size and split offsets.
TEST_F(WriteTaskTest, BudgetFlushesLeaveNoEmptyRowGroup) {
  constexpr int kPartitions = 12;
  auto plan = std::make_shared<WritePlan>(
      *Plan("region", {{"write.parquet.page-row-limit", "100"}}));
  plan->task_buffer_budget_bytes = 256 << 10;
  FLOE_ASSIGN_OR_FAIL(auto task, MakeWriteTask(plan, io_, 0, 1));
  for (int64_t start = 0; start < 60000; start += 6000) {
    FLOE_ASSERT_OK(task->Write(Rows(*plan, start, 6000, kPartitions)));
  }
  FLOE_ASSIGN_OR_FAIL(std::string message, task->Finish());
  task->Acknowledge();
  auto files = Decode(message);
  ASSERT_EQ(files.size(), static_cast<size_t>(kPartitions));
  int row_groups = 0;
  for (const auto& file : files) {
    FLOE_ASSIGN_OR_FAIL(auto input, arrow::io::ReadableFile::Open(file.file_path));
    FLOE_ASSIGN_OR_FAIL(auto reader,
                        parquet::arrow::OpenFile(input, arrow::default_memory_pool()));
    auto metadata = reader->parquet_reader()->metadata();
    for (int i = 0; i < metadata->num_row_groups(); ++i) {
      EXPECT_GT(metadata->RowGroup(i)->num_rows(), 0)
          << file.file_path << " row group " << i;
    }
    row_groups += metadata->num_row_groups();
    EXPECT_EQ(file.split_offsets.size(), static_cast<size_t>(metadata->num_row_groups()));
    EXPECT_EQ(file.file_size_in_bytes,
              static_cast<int64_t>(std::filesystem::file_size(file.file_path)));
    ASSERT_NE(metadata->key_value_metadata(), nullptr);
    EXPECT_TRUE(metadata->key_value_metadata()->Contains("iceberg.schema"));
    FLOE_ASSIGN_OR_FAIL(auto table, reader->ReadTable());
    EXPECT_EQ(table->num_rows(), file.record_count);
    EXPECT_EQ(metadata->num_rows(), file.record_count);
  }
  // The budget did flush early: more row groups than files.
  EXPECT_GT(row_groups, 2 * kPartitions);
}

// Rows arriving in big batches are handed to Arrow in as few calls as the size checks
// allow, and the checks that could fire are still made: files still end on the 1000-row
// grid, within one grid step of where they end when rows arrive 1000 at a time (every
// check made). They can differ by a step because a file's length counts the memory its
// writer holds, which includes scratch sized by the largest call.
TEST_F(WriteTaskTest, RollsOnTheGridWhateverTheBatchSize) {
  auto plan = Plan("", {{"write.target-file-size-bytes", std::to_string(256 << 10)}});
  auto counts = [&](int64_t batch_rows, int attempt, std::vector<int64_t>* rows) {
    FLOE_ASSIGN_OR_FAIL(auto task, MakeWriteTask(plan, io_, 0, attempt));
    for (int64_t start = 0; start < 400000; start += batch_rows)
      FLOE_ASSERT_OK(task->Write(Rows(*plan, start, batch_rows, 1)));
    FLOE_ASSIGN_OR_FAIL(std::string message, task->Finish());
    task->Acknowledge();
    for (const auto& file : Decode(message)) rows->push_back(file.record_count);
  };
  std::vector<int64_t> thousands;
  counts(1000, 0, &thousands);
  ASSERT_GT(thousands.size(), 3u);
  auto [fewest, most] = std::minmax_element(thousands.begin(), thousands.end() - 1);
  for (int64_t batch_rows : {100000, 40000}) {
    std::vector<int64_t> rows;
    counts(batch_rows, static_cast<int>(batch_rows), &rows);
    ASSERT_GT(rows.size(), 3u);
    int64_t total = 0;
    for (size_t i = 0; i < rows.size(); ++i) {
      total += rows[i];
      if (i + 1 == rows.size()) continue;
      EXPECT_EQ(rows[i] % 1000, 0) << batch_rows;
      EXPECT_GE(rows[i], *fewest - 1000) << batch_rows;
      EXPECT_LE(rows[i], *most + 1000) << batch_rows;
    }
    EXPECT_EQ(total, 400000);
  }
}

// The rows of a sorted table's files, read back in file order.
struct SortedRow {
  int64_t id;
  std::optional<double> score;
};

// Spark's order for "score desc nulls first, id": nulls first, then NaN (above every
// number), then numbers descending with -0.0 equal to 0.0; ties by id ascending.
bool SparkBefore(const SortedRow& a, const SortedRow& b) {
  if (a.score.has_value() != b.score.has_value()) return !a.score.has_value();
  if (a.score && b.score) {
    bool a_nan = std::isnan(*a.score);
    bool b_nan = std::isnan(*b.score);
    if (a_nan != b_nan) return a_nan;
    if (!a_nan && *a.score != *b.score) return *a.score > *b.score;
  }
  return a.id < b.id;
}

// A sorted table: the task holds its rows and writes each partition's in the table's
// order (as Spark sorts a task's rows), rolling on the way, so the files of a partition
// are sorted and follow each other in that order. Every file carries the order's id.
TEST_F(WriteTaskTest, SortedTableFilesHoldRowsInTheSortOrder) {
  auto plan = Plan("region", {{"write.target-file-size-bytes", "1"}},
                   /*clustered=*/false, "score desc nulls first, id");
  ASSERT_TRUE(plan->sorts_rows());
  ASSERT_EQ(plan->mode, WriterMode::kClustered);  // sorted rows come grouped
  constexpr int kPartitions = 8;
  constexpr int64_t kRows = 24000;
  auto schema = *ToArrowSchema(*plan->schema);
  FLOE_ASSIGN_OR_FAIL(auto task, MakeWriteTask(plan, io_, 0, 0));
  // Descending ids in batches that arrive out of order; scores with nulls, NaN, -0.0
  // and 0.0, negatives and repeats, so ties are broken by id.
  for (int64_t batch : {2, 0, 5, 1, 4, 3}) {
    arrow::Int64Builder ids;
    arrow::StringBuilder regions;
    arrow::DoubleBuilder scores;
    for (int64_t i = 0; i < kRows / 6; ++i) {
      int64_t id = kRows - (batch * kRows / 6 + i);
      FLOE_ASSERT_OK(ids.Append(id));
      FLOE_ASSERT_OK(regions.Append("r/" + std::to_string(id % kPartitions) + " ü"));
      switch (id % 9) {
        case 0:
          FLOE_ASSERT_OK(scores.AppendNull());
          break;
        case 1:
          FLOE_ASSERT_OK(scores.Append(std::nan("")));
          break;
        case 2:
          FLOE_ASSERT_OK(scores.Append(-0.0));
          break;
        case 3:
          FLOE_ASSERT_OK(scores.Append(0.0));
          break;
        default:
          FLOE_ASSERT_OK(scores.Append(static_cast<double>(id % 50) - 25.5));
      }
    }
    FLOE_ASSERT_OK(task->Write(arrow::RecordBatch::Make(
        schema, kRows / 6, {*ids.Finish(), *regions.Finish(), *scores.Finish()})));
  }
  EXPECT_EQ(task->rows_written(), 0);  // held until Finish
  FLOE_ASSIGN_OR_FAIL(std::string message, task->Finish());
  task->Acknowledge();
  EXPECT_EQ(task->rows_written(), kRows);
  auto files = Decode(message);
  // Files of a partition in the order written (the file counter in the name).
  std::map<std::string, std::map<std::string, std::vector<SortedRow>>> partitions;
  std::set<int64_t> ids;
  for (const auto& file : files) {
    EXPECT_EQ(file.sort_order_id, plan->sort_order->order_id);
    EXPECT_EQ(file.sort_order_id, 1);
    auto reader = parquet::arrow::OpenFile(*arrow::io::ReadableFile::Open(file.file_path),
                                           arrow::default_memory_pool());
    FLOE_ASSIGN_OR_FAIL(auto table, (*reader)->ReadTable());
    FLOE_ASSIGN_OR_FAIL(auto batch, table->CombineChunksToBatch());
    const auto& id_column = static_cast<const arrow::Int64Array&>(*batch->column(0));
    const auto& score_column = static_cast<const arrow::DoubleArray&>(*batch->column(2));
    std::filesystem::path path(file.file_path);
    auto& rows = partitions[path.parent_path().string()][path.filename().string()];
    for (int64_t i = 0; i < batch->num_rows(); ++i) {
      rows.push_back({id_column.Value(i), score_column.IsNull(i)
                                              ? std::nullopt
                                              : std::optional(score_column.Value(i))});
      EXPECT_TRUE(ids.insert(id_column.Value(i)).second);
    }
  }
  EXPECT_EQ(ids.size(), static_cast<size_t>(kRows));
  ASSERT_EQ(partitions.size(), static_cast<size_t>(kPartitions));
  for (const auto& [partition, in_files] : partitions) {
    EXPECT_GT(in_files.size(), 1u) << partition;  // it rolled
    std::vector<SortedRow> rows;
    for (const auto& [name, file_rows] : in_files)
      rows.insert(rows.end(), file_rows.begin(), file_rows.end());
    for (size_t i = 1; i < rows.size(); ++i) {
      ASSERT_TRUE(SparkBefore(rows[i - 1], rows[i]))
          << partition << " row " << i << ": id " << rows[i - 1].id << " then "
          << rows[i].id;
    }
  }
}

// Tasks that share a sorted table's partitions out hold and sort only their own rows.
TEST_F(WriteTaskTest, SortedTableTasksSortOnlyTheirShare) {
  auto shared = Plan("region", {}, /*clustered=*/false, "id desc");
  int64_t rows = 0;
  for (int t = 0; t < 3; ++t) {
    FLOE_ASSIGN_OR_FAIL(auto task, MakeWriteTask(shared, io_, t, t));
    task->TakeShare(PartitionShare{t, 3});
    for (int64_t start = 0; start < 9000; start += 3000)
      FLOE_ASSERT_OK(task->Write(Rows(*shared, start, 3000, 9)));
    FLOE_ASSIGN_OR_FAIL(std::string message, task->Finish());
    task->Acknowledge();
    int64_t in_files = 0;
    for (const auto& file : Decode(message)) in_files += file.record_count;
    EXPECT_EQ(task->rows_written(), in_files);
    rows += task->rows_written();
  }
  EXPECT_EQ(rows, 9000);
}

// Past its run size a task spills sorted runs to TMPDIR and merges them at the end: the
// files hold exactly what one in-memory sort gives, ties (many here: the sort key is a
// score with few values) in input order, and the spill files are gone afterwards.
TEST_F(WriteTaskTest, SpilledRunsMergeIntoWhatOneSortGives) {
  std::string spill_root = directory_.Child("tmp");
  std::filesystem::create_directories(spill_root);
  // TMPDIR points at the test's directory until the test ends, however it ends.
  testing::ScopedEnvironment tmpdir("TMPDIR", spill_root);
  auto spills = [&] {
    int count = 0;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(spill_root))
      count += entry.path().extension() == ".arrow";
    return count;
  };
  auto write = [&](int64_t run_bytes, int attempt) {
    auto plan = std::make_shared<WritePlan>(*Plan("region",
                                                  {{"write.target-file-size-bytes", "1"}},
                                                  false, "score desc nulls first"));
    plan->task_sort_run_bytes = run_bytes;
    // Per partition, the ids of each file in the order written.
    std::map<std::string, std::vector<int64_t>> ids;
    auto task = MakeWriteTask(plan, io_, 0, attempt);
    EXPECT_TRUE(task.ok());
    for (int64_t start = 0; start < 30000; start += 2500)
      EXPECT_TRUE((*task)->Write(Rows(*plan, start, 2500, 5)).ok());
    if (run_bytes > 0) {
      EXPECT_GT(spills(), 5);
    }
    auto message = (*task)->Finish();
    EXPECT_TRUE(message.ok()) << message.status().ToString();
    (*task)->Acknowledge();
    EXPECT_EQ(spills(), 0);
    std::map<std::string, std::vector<std::string>> files;
    for (const auto& file : Decode(*message)) {
      std::filesystem::path path(file.file_path);
      files[path.parent_path().filename().string()].push_back(file.file_path);
    }
    for (auto& [partition, paths] : files) {
      std::sort(paths.begin(), paths.end());  // the file counter: order written
      for (const auto& path : paths) {
        auto reader = parquet::arrow::OpenFile(*arrow::io::ReadableFile::Open(path),
                                               arrow::default_memory_pool());
        auto table = (*reader)->ReadTable();
        auto batch = (*table)->CombineChunksToBatch();
        const auto& column = static_cast<const arrow::Int64Array&>(*(*batch)->column(0));
        for (int64_t i = 0; i < column.length(); ++i)
          ids[partition].push_back(column.Value(i));
      }
    }
    return ids;
  };
  auto in_memory = write(0, 0);
  auto spilled = write(32 << 10, 1);
  {
    // A task dropped after spilling (a failed write) takes its runs with it.
    auto plan = std::make_shared<WritePlan>(*Plan("region", {}, false, "score"));
    plan->task_sort_run_bytes = 32 << 10;
    FLOE_ASSIGN_OR_FAIL(auto task, MakeWriteTask(plan, io_, 0, 2));
    for (int64_t start = 0; start < 10000; start += 2500)
      FLOE_ASSERT_OK(task->Write(Rows(*plan, start, 2500, 5)));
    EXPECT_GT(spills(), 1);
  }
  EXPECT_EQ(spills(), 0);
  ASSERT_EQ(in_memory.size(), 5u);
  size_t rows = 0;
  for (const auto& [partition, order] : in_memory) rows += order.size();
  EXPECT_EQ(rows, 30000u);
  EXPECT_EQ(spilled, in_memory);
}

}  // namespace
}  // namespace floe::iceberg
