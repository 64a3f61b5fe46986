// Table-level behaviour that needs threads: parallel write tasks and concurrent
// committers. These are the tests the ThreadSanitizer build runs (make test-tsan).
#include "floe/iceberg/table/table.h"

#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include <gtest/gtest.h>

#include "arrow/api.h"
#include "arrow/io/file.h"
#include "floe/iceberg/catalog/sql_catalog.h"
#include "floe/iceberg/spec/schema_ddl.h"
#include "floe/iceberg/spec/sort_order.h"
#include "floe/task/write_driver.h"
#include "floe/testing/temp_directory.h"
#include "floe/types/arrow_schema.h"
#include "floe/util/cancel.h"
#include "floe/util/error.h"
#include "parquet/arrow/reader.h"

namespace floe::iceberg {
namespace {

std::shared_ptr<arrow::RecordBatchReader> Rows(const Table& table, int64_t start,
                                               int64_t count, int64_t batch_rows) {
  auto schema = *ToArrowSchema(*table.metadata()->CurrentSchema());
  std::vector<std::shared_ptr<arrow::RecordBatch>> batches;
  for (int64_t offset = 0; offset < count; offset += batch_rows) {
    int64_t rows = std::min(batch_rows, count - offset);
    arrow::Int64Builder ids;
    arrow::StringBuilder regions;
    for (int64_t i = start + offset; i < start + offset + rows; ++i) {
      EXPECT_TRUE(ids.Append(i).ok());
      EXPECT_TRUE(regions.Append("r" + std::to_string(i % 11)).ok());
    }
    batches.push_back(
        arrow::RecordBatch::Make(schema, rows, {*ids.Finish(), *regions.Finish()}));
  }
  return *arrow::RecordBatchReader::Make(batches, schema);
}

class TableTest : public ::testing::Test {
 protected:
  std::shared_ptr<Catalog> OpenCatalog() {
    CatalogOptions options;
    options.warehouse = directory_.Child("warehouse");
    options.name = "test";
    auto catalog = SqlCatalog::Make(*OpenSqliteDatabase(directory_.Child("catalog.db")),
                                    options, *MakeArrowFileIO());
    EXPECT_TRUE(catalog.ok()) << catalog.status().ToString();
    return std::shared_ptr<Catalog>(std::move(*catalog));
  }

  std::shared_ptr<Table> CreateTable(const std::shared_ptr<Catalog>& catalog,
                                     PropertyMap properties,
                                     const std::string& sort_by = "",
                                     const std::string& partition_by = "region") {
    EXPECT_TRUE(catalog->CreateNamespace({"db"}, {}).ok());
    CreateTableOptions create;
    create.schema = *ParseSchemaText("id long not null, region string");
    create.spec = *ParsePartitionBy(partition_by, *create.schema);
    create.sort_order = *ParseSortBy(sort_by, *create.schema);
    create.properties = std::move(properties);
    auto table = Table::Create(catalog, {{"db"}, "t"}, create);
    EXPECT_TRUE(table.ok()) << table.status().ToString();
    return *table;
  }

  int64_t CountRows(const std::shared_ptr<Table>& table, std::set<int64_t>* ids) {
    auto scan = table->NewScan({});
    auto reader = (*scan)->ToRecordBatchReader();
    int64_t rows = 0;
    while (true) {
      std::shared_ptr<arrow::RecordBatch> batch;
      EXPECT_TRUE((*reader)->ReadNext(&batch).ok());
      if (!batch) break;
      const auto& column = static_cast<const arrow::Int64Array&>(*batch->column(0));
      for (int64_t i = 0; i < column.length(); ++i) ids->insert(column.Value(i));
      rows += batch->num_rows();
    }
    return rows;
  }

  // `writers` threads, each with its own Table handle on the shared catalog (Table is not
  // thread-safe), append `appends` times `rows` distinct ids; then every append is a
  // snapshot and every id is read back exactly once.
  void AppendFromThreads(const std::shared_ptr<Catalog>& catalog,
                         const std::shared_ptr<Table>& created, int writers, int appends,
                         int64_t rows, int tasks) {
    std::atomic<int> failures{0};
    std::vector<std::thread> threads;
    for (int w = 0; w < writers; ++w) {
      threads.emplace_back([&, w] {
        auto table = Table::Load(catalog, {{"db"}, "t"});
        if (!table.ok()) {
          ++failures;
          return;
        }
        for (int a = 0; a < appends; ++a) {
          AppendOptions options;
          options.threads = tasks;
          auto appended = (*table)->Append(
              *Rows(**table, (w * appends + a) * rows, rows, 300), options);
          if (!appended.ok()) {
            ADD_FAILURE() << appended.status().ToString();
            ++failures;
          }
          if (!(*table)->Refresh().ok()) ++failures;
        }
      });
    }
    for (auto& thread : threads) thread.join();
    EXPECT_EQ(failures.load(), 0);
    ASSERT_TRUE(created->Refresh().ok());
    EXPECT_EQ(created->metadata()->snapshots.size(),
              static_cast<size_t>(writers * appends));
    std::set<int64_t> ids;
    EXPECT_EQ(CountRows(created, &ids), writers * appends * rows);
    EXPECT_EQ(ids.size(), static_cast<size_t>(writers * appends * rows));
  }

  // Ids 0..19999 in 11 partitions, appended by 4 tasks.
  arrow::Result<AppendResult> AppendWithFourTasks(Table& table) {
    AppendOptions options;
    options.threads = 4;
    return table.Append(*Rows(table, 0, 20000, 700), options);
  }

  testing::TempDirectory directory_;
};

TEST_F(TableTest, ParallelTasksWriteEveryRowOnce) {
  auto catalog = OpenCatalog();
  auto table = CreateTable(catalog, {});
  FLOE_ASSIGN_OR_FAIL(auto result, AppendWithFourTasks(*table));
  EXPECT_EQ(result.rows, 20000);
  // The tasks share the 11 partitions out (Spark's default hash distribution): one file
  // each, each task handed its partitions' rows by the reading thread.
  EXPECT_EQ(result.data_files, 11);
  std::set<int64_t> ids;
  EXPECT_EQ(CountRows(table, &ids), 20000);
  EXPECT_EQ(ids.size(), 20000u);
}

TEST_F(TableTest, WithoutDistributionEveryTaskWritesWhatItGets) {
  auto catalog = OpenCatalog();
  auto table = CreateTable(catalog, {{"write.distribution-mode", "none"}});
  AppendOptions options;
  options.threads = 4;
  FLOE_ASSIGN_OR_FAIL(auto result, table->Append(*Rows(*table, 0, 20000, 700), options));
  EXPECT_EQ(result.rows, 20000);
  EXPECT_GT(result.data_files, 11);  // partitions written by more than one task
  std::set<int64_t> ids;
  EXPECT_EQ(CountRows(table, &ids), 20000);
  EXPECT_EQ(ids.size(), 20000u);
}

// Without `threads` a write runs one task per core (DefaultWriteTasks), the tasks after
// the first joining in as the input grows: a small input is one task's file, as a
// one-task write makes it; a large one on an unpartitioned sorted table is one key range
// per task (a split that does not depend on which task took which batch); a memory limit
// with room for one task's share runs one.
TEST_F(TableTest, DefaultTasksFollowTheCoresTheInputAndTheMemoryLimit) {
  auto catalog = OpenCatalog();
  auto sorted = CreateTable(catalog, {}, "id", /*partition_by=*/"");
  const AppendOptions defaults;
  ASSERT_EQ(defaults.threads, 0);
  FLOE_ASSIGN_OR_FAIL(auto small, sorted->Append(*Rows(*sorted, 0, 5000, 100), defaults));
  EXPECT_EQ(small.data_files, 1);
  const int64_t rows = 4 * kDefaultTaskRows;
  FLOE_ASSIGN_OR_FAIL(auto large,
                      sorted->Append(*Rows(*sorted, 5000, rows, 50000), defaults));
  EXPECT_EQ(large.rows, rows);
  EXPECT_EQ(large.data_files, std::min(DefaultWriteTasks(0), 4));
  AppendOptions limited;
  limited.memory_limit = kMinDefaultTaskMemory * 3 / 2;
  FLOE_ASSIGN_OR_FAIL(auto one,
                      sorted->Append(*Rows(*sorted, 5000 + rows, rows, 50000), limited));
  EXPECT_EQ(one.data_files, 1);
  std::set<int64_t> ids;
  EXPECT_EQ(CountRows(sorted, &ids), 5000 + 2 * rows);
  EXPECT_EQ(ids.size(), static_cast<size_t>(5000 + 2 * rows));
}

// Unsorted and unpartitioned, by default: a small input in many batches is one file; a
// large one at most a file per task, every row once.
TEST_F(TableTest, DefaultTasksWriteASmallInputAsOneFile) {
  auto catalog = OpenCatalog();
  auto plain = CreateTable(catalog, {}, "", "");
  FLOE_ASSIGN_OR_FAIL(auto batches, plain->Append(*Rows(*plain, 0, 5000, 10), {}));
  EXPECT_EQ(batches.data_files, 1);
  const int64_t rows = 4 * kDefaultTaskRows;
  FLOE_ASSIGN_OR_FAIL(auto many, plain->Append(*Rows(*plain, 5000, rows, 50000), {}));
  EXPECT_GE(many.data_files, 1);
  EXPECT_LE(many.data_files, DefaultWriteTasks(0));
  std::set<int64_t> ids;
  EXPECT_EQ(CountRows(plain, &ids), 5000 + rows);
  EXPECT_EQ(ids.size(), static_cast<size_t>(5000 + rows));
}

// Parallel tasks on a sorted table each sort what they write, with or without sharing
// the partitions out, and with a memory limit far below their input.
TEST_F(TableTest, ParallelTasksOnASortedTableWriteSortedFiles) {
  auto catalog = OpenCatalog();
  auto table =
      CreateTable(catalog, {{"write.target-file-size-bytes", "4096"}}, "id desc");
  for (const char* distribution : {"hash", "none"}) {
    AppendOptions options;
    options.threads = 4;
    options.options = {{"write.distribution-mode", distribution}};
    FLOE_ASSIGN_OR_FAIL(auto result,
                        table->Append(*Rows(*table, 0, 20000, 700), options));
    EXPECT_EQ(result.rows, 20000);
  }
  int64_t rows = 0;
  int files = 0;
  for (const auto& entry :
       std::filesystem::recursive_directory_iterator(directory_.Child("warehouse"))) {
    if (entry.path().extension() != ".parquet") continue;
    ++files;
    auto reader = parquet::arrow::OpenFile(*arrow::io::ReadableFile::Open(entry.path()),
                                           arrow::default_memory_pool());
    FLOE_ASSIGN_OR_FAIL(auto read, (*reader)->ReadTable());
    FLOE_ASSIGN_OR_FAIL(auto batch, read->CombineChunksToBatch());
    const auto& ids = static_cast<const arrow::Int64Array&>(*batch->column(0));
    for (int64_t i = 1; i < ids.length(); ++i)
      ASSERT_GT(ids.Value(i - 1), ids.Value(i)) << entry.path();
    rows += ids.length();
  }
  EXPECT_EQ(rows, 40000);
  EXPECT_GT(files, 22);  // rolled, so the order runs across files

  // A memory limit far below the input: the tasks spill sorted runs and merge them,
  // reporting the rows they write out once the input is read.
  AppendOptions limited;
  limited.threads = 2;
  limited.memory_limit = 8 << 20;
  std::vector<AppendProgress> reports;
  limited.progress = [&](const AppendProgress& progress) { reports.push_back(progress); };
  FLOE_ASSIGN_OR_FAIL(auto spilled,
                      table->Append(*Rows(*table, 0, 200000, 5000), limited));
  EXPECT_EQ(spilled.rows, 200000);
  ASSERT_FALSE(reports.empty());
  size_t input_reports = 0;
  for (size_t i = 0; i < reports.size(); ++i) {
    const AppendProgress& report = reports[i];
    if (!report.input_done) {
      ++input_reports;
      EXPECT_EQ(report.rows_sorted, 0);  // nothing is written before the input ends
      continue;
    }
    EXPECT_EQ(report.rows, 200000);
    if (i > 0) {
      EXPECT_GE(report.rows_sorted, reports[i - 1].rows_sorted);
    }
  }
  EXPECT_EQ(input_reports, 200000u / 5000);      // one per input batch
  EXPECT_GT(reports.size(), input_reports + 2);  // several slices from each task
  EXPECT_EQ(reports.back().rows_sorted, 200000);
  std::set<int64_t> ids;
  EXPECT_EQ(CountRows(table, &ids), 240000);
}

TEST_F(TableTest, ConcurrentAppendsFromThreadsAllLand) {
  auto catalog = OpenCatalog();
  auto created = CreateTable(catalog, {{"commit.retry.num-retries", "100"},
                                       {"commit.retry.min-wait-ms", "1"},
                                       {"commit.retry.max-wait-ms", "20"}});
  AppendFromThreads(catalog, created, /*writers=*/4, /*appends=*/5, /*rows=*/1000,
                    /*tasks=*/2);
}

// The memory catalog: threads sharing one handle commit through its compare-and-swap,
// and nothing reaches the disk.
TEST_F(TableTest, MemoryCatalogSharesOneHandleAcrossThreadsAndWritesNothingToDisk) {
  CatalogOptions options;
  options.uri = "memory";
  FLOE_ASSIGN_OR_FAIL(auto opened, Catalog::Open(options));
  std::shared_ptr<Catalog> catalog = std::move(opened);
  auto created = CreateTable(catalog, {{"commit.retry.num-retries", "100"},
                                       {"commit.retry.min-wait-ms", "1"},
                                       {"commit.retry.max-wait-ms", "20"}});
  ASSERT_EQ(created->metadata()->location.rfind("memory://warehouse/db/t", 0), 0u)
      << created->metadata()->location;
  AppendFromThreads(catalog, created, /*writers=*/4, /*appends=*/3, /*rows=*/500,
                    /*tasks=*/1);
  FLOE_ASSIGN_OR_FAIL(auto files, catalog->io()->List("memory://warehouse/db/t/data"));
  EXPECT_GE(files.size(), static_cast<size_t>(4 * 3 * 11));  // 11 regions per append
  EXPECT_TRUE(std::filesystem::is_empty(directory_.path()));
}

}  // namespace
}  // namespace floe::iceberg

namespace floe::iceberg {
namespace {

// Hands out its batches and asks for cancellation (as a signal handler would) once the
// write has taken `before` of them.
class CancellingReader final : public arrow::RecordBatchReader {
 public:
  CancellingReader(std::shared_ptr<arrow::RecordBatchReader> source, int before)
      : source_(std::move(source)), before_(before) {}
  std::shared_ptr<arrow::Schema> schema() const override { return source_->schema(); }
  arrow::Status ReadNext(std::shared_ptr<arrow::RecordBatch>* batch) override {
    if (read_++ == before_) RequestCancel();
    return source_->ReadNext(batch);
  }

 private:
  std::shared_ptr<arrow::RecordBatchReader> source_;
  int before_;
  int read_ = 0;
};

// Files read ahead (several at once, each on a thread of its own, bounded or to their
// end for a caller that keeps every batch) give the rows one file reading at a time
// gives, in the same order; a reader dropped half-way stops its threads; a corrupt file
// fails the scan after the rows of the files before it.
TEST_F(TableTest, ReadingFilesAheadKeepsTheRowsAndTheirOrder) {
  auto catalog = OpenCatalog();
  auto table = CreateTable(catalog, {});
  FLOE_ASSIGN_OR_FAIL(auto result, AppendWithFourTasks(*table));
  ASSERT_EQ(result.data_files, 11);
  auto read = [&](int files_ahead, size_t max_batches, arrow::Status* status,
                  RowConsumer consumer = RowConsumer::kStreams) {
    ScanOptions options;
    options.files_ahead = files_ahead;
    std::vector<int64_t> ids;
    auto scan = table->NewScan(options);
    EXPECT_TRUE(scan.ok());
    auto reader = (*scan)->ToRecordBatchReader(consumer);
    EXPECT_TRUE(reader.ok());
    for (size_t n = 0; n < max_batches; ++n) {
      std::shared_ptr<arrow::RecordBatch> batch;
      *status = (*reader)->ReadNext(&batch);
      if (!status->ok() || !batch) break;
      const auto& column = static_cast<const arrow::Int64Array&>(*batch->column(0));
      for (int64_t i = 0; i < column.length(); ++i) ids.push_back(column.Value(i));
    }
    return ids;
  };
  arrow::Status status;
  const std::vector<int64_t> one_at_a_time = read(1, SIZE_MAX, &status);
  ASSERT_TRUE(status.ok()) << status;
  ASSERT_EQ(one_at_a_time.size(), 20000u);
  for (auto consumer : {RowConsumer::kStreams, RowConsumer::kKeepsAll}) {
    for (int ahead : {2, 3, 16}) {
      EXPECT_EQ(read(ahead, SIZE_MAX, &status, consumer), one_at_a_time) << ahead;
      EXPECT_TRUE(status.ok()) << status;
    }
    // Dropped with threads still reading.
    EXPECT_FALSE(read(4, 1, &status, consumer).empty());
  }

  // Corrupt the sixth file planned: the first five files' rows, then its error.
  FLOE_ASSIGN_OR_FAIL(auto scan, table->NewScan({}));
  FLOE_ASSIGN_OR_FAIL(auto tasks, scan->PlanFiles());
  std::string path = tasks[5].file.file_path;
  if (path.starts_with("file:")) path = path.substr(5);
  int64_t before = 0;
  for (size_t i = 0; i < 5; ++i) before += tasks[i].file.record_count;
  {
    std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(4);
    std::string garbage(64, 'x');
    file.write(garbage.data(), static_cast<std::streamsize>(garbage.size()));
  }
  for (auto consumer : {RowConsumer::kStreams, RowConsumer::kKeepsAll}) {
    const std::vector<int64_t> partial = read(3, SIZE_MAX, &status, consumer);
    EXPECT_FALSE(status.ok());
    EXPECT_NE(status.message().find(
                  tasks[5].file.file_path.substr(tasks[5].file.file_path.rfind('/') + 1)),
              std::string::npos)
        << status;
    EXPECT_EQ(partial, std::vector<int64_t>(one_at_a_time.begin(),
                                            one_at_a_time.begin() + before));
  }
}

TEST_F(TableTest, ACancelledAppendDeletesWhatItWroteAndCommitsNothing) {
  auto catalog = OpenCatalog();
  auto table = CreateTable(catalog, {});
  const std::string pointer = table->state().metadata_location;
  for (int threads : {1, 4}) {
    CancellingReader input(Rows(*table, 0, 40000, 1000), 10);
    AppendOptions options;
    options.threads = threads;
    auto result = table->Append(input, options);
    ResetCancel();
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(KindOf(result.status()), ErrorKind::kCancelled)
        << result.status().ToString();
    EXPECT_NE(result.status().message().find("nothing was committed"), std::string::npos);
    FLOE_ASSIGN_OR_FAIL(auto loaded, catalog->LoadTable({{"db"}, "t"}));
    EXPECT_EQ(loaded.metadata_location, pointer);
    FLOE_ASSIGN_OR_FAIL(auto files,
                        catalog->io()->List(table->metadata()->location + "/data"));
    EXPECT_TRUE(files.empty()) << files.size() << " files left, such as "
                               << files.front().location;
  }
  // Uncancelled, the same append goes through.
  auto done = table->Append(*Rows(*table, 0, 40000, 1000), AppendOptions{});
  EXPECT_TRUE(done.ok()) << done.status().ToString();
}

}  // namespace
}  // namespace floe::iceberg
