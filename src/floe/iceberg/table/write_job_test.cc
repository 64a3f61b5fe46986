// The split write path as a driver elsewhere (Python, Spark) runs it, and WriteJob's
// ownership of a failed job's files.
#include "floe/iceberg/table/write_job.h"

#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include <gtest/gtest.h>

#include "arrow/api.h"
#include "floe/expr/binder.h"
#include "floe/expr/parser.h"
#include "floe/iceberg/catalog/sql_catalog.h"
#include "floe/iceberg/commit/fast_append.h"
#include "floe/iceberg/spec/location_provider.h"
#include "floe/iceberg/spec/schema_ddl.h"
#include "floe/iceberg/table/table.h"
#include "floe/iceberg/write/iceberg_task.h"
#include "floe/testing/temp_directory.h"
#include "floe/types/arrow_schema.h"
#include "floe/util/error.h"

namespace floe::iceberg {
namespace {

namespace fs = std::filesystem;

std::shared_ptr<arrow::RecordBatch> Batch(const arrow::Schema& table_schema,
                                          int64_t start, int64_t rows) {
  auto schema = std::make_shared<arrow::Schema>(table_schema.fields());
  arrow::Int64Builder ids;
  arrow::StringBuilder regions;
  for (int64_t i = start; i < start + rows; ++i) {
    EXPECT_TRUE(ids.Append(i).ok());
    EXPECT_TRUE(regions.Append("r" + std::to_string(i % 9)).ok());
  }
  return arrow::RecordBatch::Make(schema, rows, {*ids.Finish(), *regions.Finish()});
}

// Every regular file below `root`, with its size.
std::map<std::string, uintmax_t> Files(const fs::path& root) {
  std::map<std::string, uintmax_t> files;
  if (!fs::exists(root)) return files;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (entry.is_regular_file()) files[entry.path().string()] = entry.file_size();
  }
  return files;
}

class SplitWriteTest : public ::testing::Test {
 protected:
  void SetUp() override {
    CatalogOptions options;
    options.warehouse = directory_.Child("warehouse");
    auto catalog = SqlCatalog::Make(*OpenSqliteDatabase(directory_.Child("catalog.db")),
                                    options, *MakeArrowFileIO());
    ASSERT_TRUE(catalog.ok()) << catalog.status().ToString();
    catalog_ = std::move(*catalog);
    ASSERT_TRUE(catalog_->CreateNamespace({"db"}, {}).ok());
    CreateTableOptions create;
    create.schema = *ParseSchemaText("id long not null, region string");
    create.spec = *ParsePartitionBy("region", *create.schema);
    auto table = Table::Create(catalog_, {{"db"}, "t"}, create);
    ASSERT_TRUE(table.ok()) << table.status().ToString();
    table_ = *table;
    arrow_schema_ = *ToArrowSchema(*table_->metadata()->CurrentSchema());
    // Arrow computes fingerprints lazily and caches them in the schema and its fields;
    // the executors' batches share these fields, so the caches are filled here, before
    // any thread reads them (WriteJob does the same for its conformed batches).
    (void)arrow_schema_->fingerprint();
    (void)arrow_schema_->metadata_fingerprint();
  }

  std::set<int64_t> ReadIds() {
    std::set<int64_t> ids;
    auto loaded = Table::Load(catalog_, {{"db"}, "t"});
    EXPECT_TRUE(loaded.ok());
    auto scan = (*loaded)->NewScan({});
    auto reader = (*scan)->ToRecordBatchReader();
    while (true) {
      std::shared_ptr<arrow::RecordBatch> batch;
      EXPECT_TRUE((*reader)->ReadNext(&batch).ok());
      if (!batch) break;
      const auto& column = static_cast<const arrow::Int64Array&>(*batch->column(0));
      for (int64_t i = 0; i < column.length(); ++i) {
        EXPECT_TRUE(ids.insert(column.Value(i)).second) << "id read twice: " << i;
      }
    }
    return ids;
  }

  // Appends rows [start, start + rows) through the split write's three steps (one task).
  void AppendThroughSplitWrite(int64_t start, int64_t rows) {
    FLOE_ASSIGN_OR_FAIL(auto plan, table_->PlanWrite({}, {}));
    FLOE_ASSIGN_OR_FAIL(auto committer,
                        table_->NewCommitter(*plan, WriteOperation::kAppend));
    FLOE_ASSIGN_OR_FAIL(auto task, MakeWriteTask(plan, table_->io(), 0, 0));
    ASSERT_TRUE(task->Write(Batch(*arrow_schema_, start, rows)).ok());
    FLOE_ASSIGN_OR_FAIL(auto message, task->Finish());
    ASSERT_TRUE(committer->Add(message).ok());
    task->Acknowledge();
    ASSERT_TRUE(committer->Commit().ok());
    ASSERT_TRUE(table_->Refresh().ok());
  }

  // One task of `plan` writes rows [start, start + rows), finishes and is acknowledged
  // (its files are whoever's holds the message): its message.
  // Commits `message` by itself, with a committer of its own.
  void CommitAlone(const WritePlan& plan, WriteOperation operation,
                   const std::string& message) {
    FLOE_ASSIGN_OR_FAIL(auto committer, table_->NewCommitter(plan, operation));
    ASSERT_TRUE(committer->Add(message).ok());
    ASSERT_TRUE(committer->Commit().ok());
  }

  std::string FinishedTask(const std::shared_ptr<const WritePlan>& plan, int partition,
                           int64_t attempt, int64_t start, int64_t rows) {
    auto task = MakeWriteTask(plan, table_->io(), partition, attempt);
    EXPECT_TRUE(task.ok());
    EXPECT_TRUE((*task)->Write(Batch(*arrow_schema_, start, rows)).ok());
    auto message = (*task)->Finish();
    EXPECT_TRUE(message.ok());
    (*task)->Acknowledge();
    return *message;
  }

  testing::TempDirectory directory_;
  std::shared_ptr<Catalog> catalog_;
  std::shared_ptr<Table> table_;
  std::shared_ptr<arrow::Schema> arrow_schema_;
};

// plan -> text -> WriteTask(plan, partition id, attempt id) on "executors" -> TaskCommit
// -> one Committer: every row once, one snapshot; a retried attempt's files (a first
// attempt that failed) never reach the table and never collide with the retry's.
TEST_F(SplitWriteTest, TasksFromATravelledPlanCommitOnce) {
  FLOE_ASSIGN_OR_FAIL(auto driver_plan, WritePlan::Make(*table_->metadata(), {}));
  const std::string plan_text = driver_plan->Serialize();
  Committer committer(
      std::make_unique<FastAppend>(table_->commit_target(), true), table_->state(),
      LocationProvider(driver_plan->table_location, driver_plan->properties)
          .data_location());
  constexpr int kTasks = 8;
  constexpr int64_t kRows = 500;
  std::vector<std::thread> executors;
  std::atomic<int> failures{0};
  for (int partition = 0; partition < kTasks; ++partition) {
    executors.emplace_back([&, partition] {
      auto plan = WritePlan::Deserialize(plan_text);
      if (!plan.ok()) {
        ++failures;
        return;
      }
      // Attempt 0 of partition 3 fails after writing: its task deletes what it wrote.
      if (partition == 3) {
        auto failed = MakeWriteTask(*plan, table_->io(), partition, 0);
        if (!failed.ok() || !(*failed)->Write(Batch(*arrow_schema_, 0, 10)).ok())
          ++failures;
      }
      const int64_t attempt = partition == 3 ? 1 : 0;
      auto task = MakeWriteTask(*plan, table_->io(), partition, attempt);
      if (!task.ok() ||
          !(*task)->Write(Batch(*arrow_schema_, partition * kRows, kRows)).ok()) {
        ++failures;
        return;
      }
      auto message = (*task)->Finish();
      if (!message.ok() || !committer.Add(*message).ok()) {
        ++failures;
        return;
      }
      (*task)->Acknowledge();
    });
  }
  for (auto& executor : executors) executor.join();
  ASSERT_EQ(failures.load(), 0);
  FLOE_ASSIGN_OR_FAIL(auto report, committer.Commit());
  EXPECT_EQ(report.attempts, 1);
  EXPECT_EQ(report.state.metadata->snapshots.size(), 1u);
  auto ids = ReadIds();
  EXPECT_EQ(ids.size(), static_cast<size_t>(kTasks * kRows));
  EXPECT_EQ(*ids.begin(), 0);
  EXPECT_EQ(*ids.rbegin(), kTasks * kRows - 1);
  // Only committed files are on disk: the failed attempt left none.
  std::set<std::string> committed;
  for (const auto& entry : fs::recursive_directory_iterator(
           fs::path(table_->metadata()->location) / "data")) {
    if (entry.is_regular_file()) committed.insert(entry.path().string());
  }
  EXPECT_EQ(committed.size(), static_cast<size_t>(committer.files()));
  for (const auto& path : committed) {
    EXPECT_EQ(path.find("/00003-0-"), std::string::npos)
        << "failed attempt's file " << path;
  }
}

// A job whose input fails midway (here: a row check) aborts its committer: every file
// any task wrote is gone, the table is unchanged, and the committer refuses to commit.
TEST_F(SplitWriteTest, AFailedJobLeavesNoFilesAndNothingToCommit) {
  const auto before = Files(directory_.path() / "warehouse");
  FLOE_ASSIGN_OR_FAIL(auto plan, WritePlan::Make(*table_->metadata(), {}, {.tasks = 4}));
  Committer committer(
      std::make_unique<FastAppend>(table_->commit_target(), true), table_->state(),
      LocationProvider(plan->table_location, plan->properties).data_location());
  WriteJobOptions options;
  options.threads = 4;
  int64_t checked = 0;
  options.check_rows = [&](const arrow::RecordBatch& batch) -> arrow::Status {
    checked += batch.num_rows();
    if (checked > 3000) return arrow::Status::Invalid("row check failed");
    return arrow::Status::OK();
  };
  int progress_calls = 0;
  options.progress = [&](const WriteProgress&) { ++progress_calls; };
  WriteJob job(plan, table_->io(), &committer, "db.t", options);
  std::vector<std::shared_ptr<arrow::RecordBatch>> batches;
  for (int i = 0; i < 10; ++i) batches.push_back(Batch(*arrow_schema_, i * 1000, 1000));
  auto input = *arrow::RecordBatchReader::Make(batches, batches[0]->schema());
  auto run = job.Run(*input);
  ASSERT_FALSE(run.ok());
  EXPECT_NE(run.status().message().find("row check failed"), std::string::npos);
  EXPECT_GE(progress_calls, 3);
  EXPECT_EQ(Files(directory_.path() / "warehouse"), before);
  EXPECT_FALSE(committer.Commit().ok());
  FLOE_ASSIGN_OR_FAIL(auto loaded, catalog_->LoadTable({{"db"}, "t"}));
  EXPECT_EQ(loaded.metadata_location, table_->state().metadata_location);
}

// A job that succeeds leaves the commit to its caller: every task's message is the
// committer's, one file per partition (each partition's rows in one task).
TEST_F(SplitWriteTest, AJobHandsEveryTasksFilesToTheCommitter) {
  FLOE_ASSIGN_OR_FAIL(auto plan, WritePlan::Make(*table_->metadata(), {}, {.tasks = 4}));
  ASSERT_EQ(plan->distribution, Distribution::kByPartition);
  Committer committer(
      std::make_unique<FastAppend>(table_->commit_target(), true), table_->state(),
      LocationProvider(plan->table_location, plan->properties).data_location());
  WriteJobOptions options;
  options.threads = 4;
  WriteJob job(plan, table_->io(), &committer, "db.t", options);
  std::vector<std::shared_ptr<arrow::RecordBatch>> batches;
  for (int i = 0; i < 12; ++i) batches.push_back(Batch(*arrow_schema_, i * 100, 100));
  auto input = *arrow::RecordBatchReader::Make(batches, batches[0]->schema());
  FLOE_ASSIGN_OR_FAIL(auto result, job.Run(*input));
  EXPECT_EQ(result.rows, 1200);
  EXPECT_EQ(result.batches, 12);
  EXPECT_EQ(committer.files(), 9);  // r0..r8, one task each
  EXPECT_EQ(committer.records(), 1200);
  FLOE_ASSIGN_OR_FAIL(auto report, committer.Commit());
  EXPECT_EQ(ReadIds().size(), 1200u);
  EXPECT_EQ(report.snapshot->summary.GetLong("added-data-files"), 9);
}

// Each task's open files buffer one row group's worth, whatever the distribution (a share
// of it would cut a large partition's row groups short of what one task writes); a memory
// limit is shared by the tasks.
TEST_F(SplitWriteTest, EachTaskBuffersOneRowGroupAndTheTasksShareAMemoryLimit) {
  constexpr int64_t kRowGroup = 134217728;  // write.parquet.row-group-size-bytes default
  FLOE_ASSIGN_OR_FAIL(auto one, WritePlan::Make(*table_->metadata(), {}, {.tasks = 1}));
  EXPECT_EQ(one->task_buffer_budget_bytes, kRowGroup);
  FLOE_ASSIGN_OR_FAIL(auto four, WritePlan::Make(*table_->metadata(), {}, {.tasks = 4}));
  ASSERT_EQ(four->distribution, Distribution::kByPartition);
  EXPECT_EQ(four->task_buffer_budget_bytes, kRowGroup);
  FLOE_ASSIGN_OR_FAIL(
      auto none, WritePlan::Make(*table_->metadata(),
                                 {{"write.distribution-mode", "none"}}, {.tasks = 4}));
  ASSERT_EQ(none->distribution, Distribution::kNone);
  EXPECT_EQ(none->task_buffer_budget_bytes, kRowGroup);
  FLOE_ASSIGN_OR_FAIL(auto limited,
                      WritePlan::Make(*table_->metadata(), {},
                                      {.tasks = 4, .memory_limit = int64_t{64} << 20}));
  EXPECT_EQ(limited->task_buffer_budget_bytes, int64_t{8} << 20);
  // The budget travels with the plan to tasks in other processes.
  FLOE_ASSIGN_OR_FAIL(auto carried, WritePlan::Deserialize(four->Serialize()));
  EXPECT_EQ(carried->task_buffer_budget_bytes, kRowGroup);
}

// Table::PlanWrite runs the gate: a declined write gives NotSupported carrying each
// reason (names only), before anything exists.
TEST_F(SplitWriteTest, PlanWriteDeclinesWithTheGatesReasons) {
  const auto before = Files(directory_.path() / "warehouse");
  auto plan = table_->PlanWrite({{"write.format.default", "orc"}}, {});
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(KindOf(plan.status()), ErrorKind::kNotSupported);
  const auto reasons = DeclineReasons(plan.status());
  ASSERT_EQ(reasons.size(), 1u) << plan.status().ToString();
  EXPECT_NE(reasons[0].find("write.format.default"), std::string::npos) << reasons[0];
  EXPECT_EQ(reasons[0].find("orc"), std::string::npos)
      << "a value leaked: " << reasons[0];
  // The reasons survive added context; other statuses carry none.
  EXPECT_EQ(DeclineReasons(WithContext(plan.status(), "ctx")), reasons);
  EXPECT_TRUE(DeclineReasons(MakeError(ErrorKind::kNotSupported, "x")).empty());
  EXPECT_EQ(Files(directory_.path() / "warehouse"), before);
}

// A driver retrying after a crash or a CommitStateUnknown hands the same task message to
// a second committer of the plan: its files are committed once, whatever happened in
// between (the table read 20 rows of 10 written), and the second committer deletes none
// of them (they are the table's).
TEST_F(SplitWriteTest, ASecondCommitterOfThePlanNeverCommitsTheSameFilesAgain) {
  FLOE_ASSIGN_OR_FAIL(auto plan, table_->PlanWrite({}, {}));
  const std::string message = FinishedTask(plan, 0, 0, 0, 10);
  CommitAlone(*plan, WriteOperation::kAppend, message);
  AppendThroughSplitWrite(1000, 3);  // another writer commits in between
  const fs::path table_folder = table_->metadata()->location;
  const auto before = Files(table_folder / "data");
  for (const auto operation :
       {WriteOperation::kAppend, WriteOperation::kDynamicOverwrite}) {
    FLOE_ASSIGN_OR_FAIL(auto again, table_->NewCommitter(*plan, operation));
    ASSERT_TRUE(again->Add(message).ok());
    auto committed = again->Commit();
    ASSERT_FALSE(committed.ok());
    EXPECT_EQ(KindOf(committed.status()), ErrorKind::kValidationFailed);
    EXPECT_NE(committed.status().message().find("already committed"), std::string::npos)
        << committed.status().ToString();
  }
  EXPECT_EQ(Files(table_folder / "data"), before);
  std::set<int64_t> expected;
  for (int64_t id = 0; id < 10; ++id) expected.insert(id);
  for (int64_t id = 1000; id < 1003; ++id) expected.insert(id);
  EXPECT_EQ(ReadIds(), expected);
  // A message of the plan not committed yet still commits (a plan committed in parts).
  CommitAlone(*plan, WriteOperation::kAppend, FinishedTask(plan, 1, 0, 100, 5));
  for (int64_t id = 100; id < 105; ++id) expected.insert(id);
  EXPECT_EQ(ReadIds(), expected);
}

// A commit never publishes a file that is gone (a remove-orphans given too short an age
// deleted it while the write ran): it fails, and the table stays readable.
TEST_F(SplitWriteTest, ACommitWhoseFileIsGoneFailsAndCommitsNothing) {
  AppendThroughSplitWrite(0, 4);
  FLOE_ASSIGN_OR_FAIL(auto plan, table_->PlanWrite({}, {}));
  const std::string message = FinishedTask(plan, 0, 0, 10, 10);
  FLOE_ASSIGN_OR_FAIL(auto committer,
                      table_->NewCommitter(*plan, WriteOperation::kAppend));
  ASSERT_TRUE(committer->Add(message).ok());
  const fs::path data = fs::path(table_->metadata()->location) / "data";
  int removed = 0;
  for (const auto& [path, size] : Files(data)) {
    if (path.find(plan->operation_id) != std::string::npos) removed += fs::remove(path);
  }
  ASSERT_GT(removed, 0);
  const std::string metadata = table_->state().metadata_location;
  auto committed = committer->Commit();
  ASSERT_FALSE(committed.ok());
  EXPECT_EQ(KindOf(committed.status()), ErrorKind::kValidationFailed);
  EXPECT_NE(committed.status().message().find("is gone"), std::string::npos)
      << committed.status().ToString();
  ASSERT_TRUE(table_->Refresh().ok());
  EXPECT_EQ(table_->state().metadata_location, metadata);
  EXPECT_EQ(ReadIds(), (std::set<int64_t>{0, 1, 2, 3}));
}

// NewCommitter refuses a plan made for another table: its tasks' files live under that
// table's location, and committing them here would share files between tables.
TEST_F(SplitWriteTest, NewCommitterRefusesAnotherTablesPlan) {
  CreateTableOptions create;
  create.schema = table_->metadata()->CurrentSchema();
  FLOE_ASSIGN_OR_FAIL(auto other, Table::Create(catalog_, {{"db"}, "other"}, create));
  FLOE_ASSIGN_OR_FAIL(auto plan, other->PlanWrite({}, {}));
  auto committer = table_->NewCommitter(*plan, WriteOperation::kAppend);
  ASSERT_FALSE(committer.ok());
  EXPECT_EQ(KindOf(committer.status()), ErrorKind::kInvalidInput);
  EXPECT_NE(committer.status().message().find(plan->table_location), std::string::npos);
}

// A split write's abort deletes the files of task attempts whose messages never
// arrived (here: a task "killed" after writing, its destructor never run), and only
// those: another write's files, a committed file, a file of another name and a file
// outside the data location stay.
TEST_F(SplitWriteTest, AbortDeletesUnreportedTaskFilesOfThisWriteOnly) {
  // A committed file of an earlier write.
  AppendThroughSplitWrite(0, 20);
  const auto committed = Files(directory_.path() / "warehouse");

  FLOE_ASSIGN_OR_FAIL(auto plan, table_->PlanWrite({}, {}));
  FLOE_ASSIGN_OR_FAIL(auto committer,
                      table_->NewCommitter(*plan, WriteOperation::kAppend));
  // Task 0 reports; task 1 writes and "dies": its files are on disk, its message lost.
  FLOE_ASSIGN_OR_FAIL(auto reported, MakeWriteTask(plan, table_->io(), 0, 0));
  ASSERT_TRUE(reported->Write(Batch(*arrow_schema_, 100, 30)).ok());
  FLOE_ASSIGN_OR_FAIL(auto message, reported->Finish());
  ASSERT_TRUE(committer->Add(message).ok());
  reported->Acknowledge();
  FLOE_ASSIGN_OR_FAIL(auto killed, MakeWriteTask(plan, table_->io(), 1, 7));
  ASSERT_TRUE(killed->Write(Batch(*arrow_schema_, 200, 30)).ok());
  FLOE_ASSIGN_OR_FAIL(auto lost_message, killed->Finish());
  killed->Acknowledge();  // as if the process died holding the message
  (void)lost_message;
  // Lookalikes that are not this write's: another operation id, another name, and a
  // file of this write's name outside the data location.
  const fs::path data = fs::path(table_->metadata()->location) / "data";
  const fs::path outside = directory_.path() / "outside";
  fs::create_directories(outside);
  const std::string other_id = "00000000-0000-0000-0000-000000000000";
  for (const fs::path& path :
       {data / ("00001-0-" + other_id + "-00001.parquet"),
        data / ("notes-" + plan->operation_id + "-00001.parquet"),
        outside / ("00001-7-" + plan->operation_id + "-00001.parquet")}) {
    std::ofstream(path) << "x";
  }
  // A symbolic link named as this write's task file, to a file outside: never followed,
  // never deleted (nor its target).
  const fs::path target = outside / "someone-elses.parquet";
  std::ofstream(target) << "theirs";
  const fs::path link = data / ("00002-9-" + plan->operation_id + "-00001.parquet");
  fs::create_symlink(target, link);
  const auto before_abort = Files(directory_.path());
  size_t ours = 0;
  for (const auto& [path, size] : before_abort) {
    if (path == link.string()) continue;
    if (path.find(plan->operation_id) != std::string::npos &&
        path.find("/data/") != std::string::npos &&
        fs::path(path).filename().string().rfind("notes", 0) != 0)
      ++ours;
  }
  ASSERT_GE(ours, 2u);
  EXPECT_EQ(committer->Abort(), 0);
  auto after = Files(directory_.path());
  for (const auto& [path, size] : after) {
    if (path == link.string()) continue;
    const bool task_file_of_this_write =
        path.find(plan->operation_id) != std::string::npos &&
        path.find(data.string()) == 0 &&
        fs::path(path).filename().string().rfind("notes", 0) != 0;
    EXPECT_FALSE(task_file_of_this_write) << "left behind: " << path;
  }
  EXPECT_EQ(before_abort.size() - after.size(), ours);
  for (const auto& [path, size] : committed) EXPECT_TRUE(after.count(path)) << path;
  EXPECT_TRUE(after.count(
      (outside / ("00001-7-" + plan->operation_id + "-00001.parquet")).string()));
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(after.at(target.string()), 6u);
  EXPECT_TRUE(IsTaskFileOf("00003-12-" + plan->operation_id + "-00001.parquet",
                           plan->operation_id));
  EXPECT_FALSE(IsTaskFileOf("0000x-12-" + plan->operation_id + "-00001.parquet",
                            plan->operation_id));
  EXPECT_FALSE(IsTaskFileOf("00003-12-" + plan->operation_id + "-00001.parquet.tmp",
                            plan->operation_id));
}

// After a successful commit, the files of this write's attempts that no message reported
// (a lost speculative twin, a killed worker) are deleted; the committed ones, the files
// another committer of the same plan committed, symbolic links and lookalikes stay.
TEST_F(SplitWriteTest, CommitDeletesUnreportedTaskFilesItAndTheTableDoNotReference) {
  FLOE_ASSIGN_OR_FAIL(auto plan, table_->PlanWrite({}, {}));
  auto write = [&](int partition, int attempt, int64_t start) {
    return FinishedTask(plan, partition, attempt, start, 25);
  };
  // A first committer of the plan commits task 5's files (a caller committing twice).
  {
    FLOE_ASSIGN_OR_FAIL(auto first, table_->NewCommitter(*plan, WriteOperation::kAppend));
    ASSERT_TRUE(first->Add(write(5, 0, 500)).ok());
    ASSERT_TRUE(first->Commit().ok());
    ASSERT_TRUE(table_->Refresh().ok());
  }
  FLOE_ASSIGN_OR_FAIL(auto committer,
                      table_->NewCommitter(*plan, WriteOperation::kAppend));
  ASSERT_TRUE(committer->Add(write(0, 1, 0)).ok());
  (void)write(0, 2, 100);  // a speculative twin of task 0: its message never arrives
  (void)write(1, 3, 200);  // a worker killed after writing
  const fs::path data = fs::path(table_->metadata()->location) / "data";
  const fs::path outside = directory_.path() / "outside";
  fs::create_directories(outside);
  const fs::path target = outside / "theirs.parquet";
  std::ofstream(target) << "theirs";
  const fs::path link = data / ("00009-9-" + plan->operation_id + "-00001.parquet");
  fs::create_symlink(target, link);
  const fs::path other =
      data / ("00001-0-00000000-0000-0000-0000-000000000000-00001.parquet");
  std::ofstream(other) << "x";
  const auto before = Files(data);
  size_t lost = 0;  // the files of attempts 2 and 3
  for (const auto& [path, size] : before) {
    const std::string name = fs::path(path).filename().string();
    if (name.find("-2-" + plan->operation_id) != std::string::npos ||
        name.find("-3-" + plan->operation_id) != std::string::npos)
      ++lost;
  }
  ASSERT_GE(lost, 2u);
  FLOE_ASSIGN_OR_FAIL(auto report, committer->Commit());
  EXPECT_EQ(committer->unreported_deleted(), static_cast<int64_t>(lost));
  const auto after = Files(data);
  EXPECT_EQ(before.size() - after.size(), lost);
  for (const auto& [path, size] : after) {
    EXPECT_EQ(path.find("-2-" + plan->operation_id), std::string::npos) << path;
    EXPECT_EQ(path.find("-3-" + plan->operation_id), std::string::npos) << path;
  }
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_TRUE(fs::exists(target));
  EXPECT_TRUE(fs::exists(other));
  // Both commits' rows read back, once each.
  auto ids = ReadIds();
  EXPECT_EQ(ids.size(), 50u);
  EXPECT_TRUE(ids.count(0) && ids.count(500));
  EXPECT_EQ(report.state.metadata->snapshots.size(), 2u);
}

// A caller's summary properties reach the snapshot; a key floe computes is refused.
TEST_F(SplitWriteTest, SummaryPropertiesReachTheSnapshotButNotComputedKeys) {
  FLOE_ASSIGN_OR_FAIL(auto plan, table_->PlanWrite({}, {}));
  FLOE_ASSIGN_OR_FAIL(auto committer,
                      table_->NewCommitter(*plan, WriteOperation::kAppend));
  ASSERT_TRUE(committer->SetSummaryProperty("spark.app.id", "local-1").ok());
  ASSERT_TRUE(committer->SetSummaryProperty("partition-owner", "etl").ok());
  for (const char* key : {"added-records", "total-data-files", "engine-name",
                          "partitions.region=eu", "partition-summaries-included",
                          "changed-partition-count", "replace-partitions", ""}) {
    auto status = committer->SetSummaryProperty(key, "1");
    EXPECT_EQ(KindOf(status), ErrorKind::kInvalidInput) << key;
  }
  FLOE_ASSIGN_OR_FAIL(auto report, committer->Commit());
  EXPECT_EQ(report.snapshot->summary.Get("spark.app.id"), "local-1");
  EXPECT_EQ(report.snapshot->summary.Get("engine-name"), "floe");
  EXPECT_EQ(report.snapshot->summary.Get("partition-owner"), "etl");
}

// A plan carries the snapshot it was made on; a dynamic overwrite committed from another
// process (a committer made on a freshly loaded table) still sees the concurrent append
// to the partition it replaces, and fails validation.
TEST_F(SplitWriteTest, AnOverwriteValidatesFromThePlansSnapshotWhereverItCommits) {
  AppendThroughSplitWrite(0, 10);
  FLOE_ASSIGN_OR_FAIL(auto plan, table_->PlanWrite({}, {}));
  ASSERT_TRUE(plan->base_snapshot_id.has_value());
  EXPECT_EQ(*plan->base_snapshot_id, table_->metadata()->CurrentSnapshot()->snapshot_id);
  FLOE_ASSIGN_OR_FAIL(auto travelled, WritePlan::Deserialize(plan->Serialize()));
  EXPECT_EQ(travelled->base_snapshot_id, plan->base_snapshot_id);
  FLOE_ASSIGN_OR_FAIL(auto task, MakeWriteTask(travelled, table_->io(), 0, 0));
  ASSERT_TRUE(task->Write(Batch(*arrow_schema_, 100, 10)).ok());
  FLOE_ASSIGN_OR_FAIL(auto message, task->Finish());
  AppendThroughSplitWrite(200, 10);  // a concurrent append into the same partitions
  FLOE_ASSIGN_OR_FAIL(auto fresh, Table::Load(catalog_, {{"db"}, "t"}));
  FLOE_ASSIGN_OR_FAIL(auto committer,
                      fresh->NewCommitter(*travelled, WriteOperation::kDynamicOverwrite));
  ASSERT_TRUE(committer->Add(message).ok());
  task->Acknowledge();
  auto report = committer->Commit();
  EXPECT_EQ(KindOf(report.status()), ErrorKind::kValidationFailed) << report.status();
  EXPECT_EQ(ReadIds().size(), 20u);
}

// The split overwrite by filter: the plan carries the filter, a partial match fails at
// plan time, the committer replaces the matching files, and an abort-only committer
// deletes a failed job's files without checking anything.
TEST_F(SplitWriteTest, AnOverwriteByFilterReplacesTheMatchingFiles) {
  AppendThroughSplitWrite(0, 18);  // regions r0..r8, two rows each
  WritePlanOptions partial;
  partial.row_filter = "id < 3";
  EXPECT_EQ(KindOf(table_->PlanWrite({}, partial).status()),
            ErrorKind::kValidationFailed);
  WritePlanOptions options;
  options.row_filter = "region = 'r1'";
  FLOE_ASSIGN_OR_FAIL(auto plan, table_->PlanWrite({}, options));
  FLOE_ASSIGN_OR_FAIL(auto travelled, WritePlan::Deserialize(plan->Serialize()));
  EXPECT_EQ(travelled->row_filter, "region = 'r1'");
  EXPECT_EQ(KindOf(table_->NewCommitter(*plan, WriteOperation::kAppend).status()),
            ErrorKind::kInvalidInput);
  FLOE_ASSIGN_OR_FAIL(auto task, MakeWriteTask(travelled, table_->io(), 0, 0));
  // Rows 100, 109 and 118 fall in r1 (i % 9 == 1).
  std::shared_ptr<arrow::RecordBatch> batch = Batch(*arrow_schema_, 100, 1);
  ASSERT_TRUE(task->Write(batch).ok());
  FLOE_ASSIGN_OR_FAIL(auto message, task->Finish());
  FLOE_ASSIGN_OR_FAIL(auto aborter,
                      table_->NewCommitter(*travelled, WriteOperation::kAbortOnly));
  EXPECT_EQ(KindOf(aborter->Commit().status()), ErrorKind::kInvalidInput);
  FLOE_ASSIGN_OR_FAIL(
      auto committer,
      table_->NewCommitter(*travelled, WriteOperation::kOverwriteByFilter));
  ASSERT_TRUE(committer->Add(message).ok());
  task->Acknowledge();
  FLOE_ASSIGN_OR_FAIL(auto report, committer->Commit());
  EXPECT_EQ(report.snapshot->summary.operation, "overwrite");
  EXPECT_EQ(report.snapshot->summary.Get("deleted-records"), "2");
  auto ids = ReadIds();
  EXPECT_EQ(ids.size(), 17u);
  EXPECT_FALSE(ids.count(1) || ids.count(10));
  EXPECT_TRUE(ids.count(100));
  // Every row a task writes must match: the check the task's driver makes.
  FLOE_ASSIGN_OR_FAIL(auto bound, Bind(*ParseFilter("region = 'r1'"),
                                       *table_->metadata()->CurrentSchema()));
  int64_t offset = 0;
  EXPECT_TRUE(CheckRowsMatchFilter(*bound, *Batch(*arrow_schema_, 1, 1), &offset).ok());
  auto stray = CheckRowsMatchFilter(*bound, *Batch(*arrow_schema_, 1, 3), &offset);
  EXPECT_EQ(KindOf(stray), ErrorKind::kInvalidInput);
  EXPECT_NE(stray.message().find("row 3 of the input"), std::string::npos) << stray;
}

// A failed job's abort in another process (Spark calls abort after a commit that raised)
// must not delete what a commit whose outcome was unknown did commit: the abort-only
// committer keeps every file the table references and deletes the rest.
TEST_F(SplitWriteTest, AnAbortOnlyCommitterKeepsWhatTheTableReferences) {
  FLOE_ASSIGN_OR_FAIL(auto plan, table_->PlanWrite({}, {}));
  auto write = [&](int partition, int attempt, int64_t start) {
    return FinishedTask(plan, partition, attempt, start, 9);
  };
  const std::string committed_message = write(0, 0, 0);
  // Committed, as if its caller never learned it worked.
  CommitAlone(*plan, WriteOperation::kAppend, committed_message);
  // Written after that commit (so its sweep did not see it): an uncommitted message.
  const std::string other_message = write(1, 1, 100);
  const fs::path data = fs::path(table_->metadata()->location) / "data";
  const auto before = Files(data);
  FLOE_ASSIGN_OR_FAIL(auto fresh, Table::Load(catalog_, {{"db"}, "t"}));
  FLOE_ASSIGN_OR_FAIL(auto aborter,
                      fresh->NewCommitter(*plan, WriteOperation::kAbortOnly));
  ASSERT_TRUE(aborter->Add(committed_message).ok());
  ASSERT_TRUE(aborter->Add(other_message).ok());
  EXPECT_EQ(aborter->Abort(), 0);
  const auto after = Files(data);
  EXPECT_EQ(before.size() - after.size(), 9u);  // task 1's nine files (one per region)
  for (const auto& [path, size] : after)
    EXPECT_EQ(path.find("-1-" + plan->operation_id), std::string::npos) << path;
  EXPECT_EQ(ReadIds().size(), 9u);  // the committed rows all read back
}

// One plan serving two committers (a streaming query's epochs, a caller committing in
// parts): the second one's abort deletes its own files and keeps every file of the plan
// that the first one committed, though they carry the same operation id.
TEST_F(SplitWriteTest, AnAbortKeepsWhatAnotherCommitterOfThePlanCommitted) {
  FLOE_ASSIGN_OR_FAIL(auto plan, table_->PlanWrite({}, {}));
  const std::string first = FinishedTask(plan, 0, 0, 0, 9);
  CommitAlone(*plan, WriteOperation::kAppend, first);
  const std::string second = FinishedTask(plan, 1, 1, 100, 9);
  const fs::path data = fs::path(table_->metadata()->location) / "data";
  const auto before = Files(data);
  ASSERT_EQ(before.size(), 18u);
  FLOE_ASSIGN_OR_FAIL(auto fresh, Table::Load(catalog_, {{"db"}, "t"}));
  FLOE_ASSIGN_OR_FAIL(auto aborter, fresh->NewCommitter(*plan, WriteOperation::kAppend));
  ASSERT_TRUE(aborter->Add(second).ok());
  EXPECT_EQ(aborter->Abort(), 0);
  const auto after = Files(data);
  EXPECT_EQ(after.size(), 9u);
  for (const auto& [path, size] : after) {
    EXPECT_NE(path.find("-0-" + plan->operation_id), std::string::npos) << path;
    EXPECT_EQ(before.at(path), size);
  }
  auto ids = ReadIds();
  EXPECT_EQ(ids.size(), 9u);
  EXPECT_TRUE(ids.count(0) && ids.count(8));
}

// The same with a commit that fails cleanably: a dynamic overwrite whose validation
// sees the first committer's files in the partitions it replaces. Its failure deletes
// its own files only.
TEST_F(SplitWriteTest, AFailedCommitKeepsWhatAnotherCommitterOfThePlanCommitted) {
  AppendThroughSplitWrite(0, 9);
  FLOE_ASSIGN_OR_FAIL(auto plan, table_->PlanWrite({}, {}));
  const std::string first = FinishedTask(plan, 0, 0, 100, 9);
  const std::string second = FinishedTask(plan, 1, 1, 200, 9);
  CommitAlone(*plan, WriteOperation::kDynamicOverwrite, first);
  FLOE_ASSIGN_OR_FAIL(auto fresh, Table::Load(catalog_, {{"db"}, "t"}));
  FLOE_ASSIGN_OR_FAIL(auto loser,
                      fresh->NewCommitter(*plan, WriteOperation::kDynamicOverwrite));
  ASSERT_TRUE(loser->Add(second).ok());
  auto report = loser->Commit();
  ASSERT_EQ(KindOf(report.status()), ErrorKind::kValidationFailed) << report.status();
  const fs::path data = fs::path(table_->metadata()->location) / "data";
  for (const auto& [path, size] : Files(data))
    EXPECT_EQ(path.find("-1-" + plan->operation_id), std::string::npos) << path;
  auto ids = ReadIds();
  EXPECT_EQ(ids.size(), 9u);
  EXPECT_TRUE(ids.count(100) && ids.count(108));
}

// A message handed in twice is refused: its files would be listed twice in the
// snapshot, and each row read twice.
TEST_F(SplitWriteTest, AMessageAddedTwiceIsRefused) {
  FLOE_ASSIGN_OR_FAIL(auto plan, table_->PlanWrite({}, {}));
  const std::string message = FinishedTask(plan, 0, 0, 0, 9);
  FLOE_ASSIGN_OR_FAIL(auto committer,
                      table_->NewCommitter(*plan, WriteOperation::kAppend));
  ASSERT_TRUE(committer->Add(message).ok());
  auto again = committer->Add(message);
  EXPECT_EQ(KindOf(again), ErrorKind::kInvalidInput) << again;
  EXPECT_NE(again.message().find("already added"), std::string::npos) << again;
  FLOE_ASSIGN_OR_FAIL(auto report, committer->Commit());
  EXPECT_EQ(report.snapshot->summary.Get("added-records"), "9");
  EXPECT_EQ(report.snapshot->summary.Get("total-data-files"), "9");
}

// A scan restricted to some of the snapshot's files plans and reads only those.
TEST_F(SplitWriteTest, AScanOfChosenFilesReadsOnlyThem) {
  AppendThroughSplitWrite(0, 10);
  AppendThroughSplitWrite(100, 10);
  FLOE_ASSIGN_OR_FAIL(auto all, table_->NewScan({}));
  FLOE_ASSIGN_OR_FAIL(auto tasks, all->PlanFiles());
  ASSERT_GE(tasks.size(), 2u);
  ScanOptions options;
  options.files = {tasks[0].file.file_path, "/not/in/the/table.parquet"};
  FLOE_ASSIGN_OR_FAIL(auto one, table_->NewScan(options));
  FLOE_ASSIGN_OR_FAIL(auto planned, one->PlanFiles());
  ASSERT_EQ(planned.size(), 1u);
  EXPECT_EQ(planned[0].file.file_path, tasks[0].file.file_path);
  FLOE_ASSIGN_OR_FAIL(auto reader, one->ToRecordBatchReader());
  FLOE_ASSIGN_OR_FAIL(auto rows, reader->ToTable());
  EXPECT_EQ(rows->num_rows(), tasks[0].file.record_count);
}

// Creating a table that exists is AlreadyExists, also once the table holds data files
// (the new-location check must not report the table's own files instead).
TEST_F(SplitWriteTest, CreatingAnExistingTableIsAlreadyExists) {
  AppendThroughSplitWrite(0, 5);
  CreateTableOptions create;
  create.schema = table_->metadata()->CurrentSchema();
  auto again = Table::Create(catalog_, {{"db"}, "t"}, create);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(KindOf(again.status()), ErrorKind::kAlreadyExists)
      << again.status().ToString();
  EXPECT_NE(again.status().message().find("db.t"), std::string::npos);
}
}  // namespace
}  // namespace floe::iceberg
