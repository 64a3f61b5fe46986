#include "floe/iceberg/commit/committer.h"

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "floe/iceberg/catalog/sql_catalog.h"
#include "floe/iceberg/commit/fast_append.h"
#include "floe/iceberg/spec/schema_ddl.h"
#include "floe/task/task_commit.h"
#include "floe/testing/fake_env.h"
#include "floe/testing/temp_directory.h"
#include "floe/util/error.h"

namespace floe::iceberg {
namespace {

void Touch(const std::string& path) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path) << "x";
}

class CommitterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    io_ = *MakeArrowFileIO();
    CatalogOptions options;
    options.warehouse = directory_.Child("warehouse");
    options.name = "test";
    auto catalog =
        SqlCatalog::Make(*OpenSqliteDatabase(directory_.Child("c.db")), options, io_);
    ASSERT_TRUE(catalog.ok()) << catalog.status().ToString();
    catalog_ = std::move(*catalog);
    ASSERT_TRUE(catalog_->CreateNamespace({"db"}, {}).ok());
    auto schema = ParseSchemaText("id long");
    auto metadata =
        NewTableMetadata(**schema, *PartitionSpec::Unpartitioned(),
                         *SortOrder::Unsorted(), directory_.Child("warehouse/db/t"), {});
    auto state = catalog_->CreateTable({{"db"}, "t"}, **metadata);
    ASSERT_TRUE(state.ok()) << state.status().ToString();
    state_ = *state;
  }

  std::unique_ptr<Committer> Make() {
    return std::make_unique<Committer>(
        std::make_unique<FastAppend>(CommitTarget{catalog_, {{"db"}, "t"}, io_}, true),
        state_, state_.metadata->location + "/data");
  }

  testing::TempDirectory directory_;
  std::shared_ptr<FileIO> io_;
  std::shared_ptr<Catalog> catalog_;
  TableState state_;
};

// A message naming a file outside the write's data location is refused, and that file is
// never deleted, even when the committer later aborts; the message's files inside are.
TEST_F(CommitterTest, NeverTakesOrDeletesFilesOutsideTheDataLocation) {
  std::string inside = state_.metadata->location + "/data/00000-0-op-00001.parquet";
  std::string sibling =
      state_.metadata->location + "/data-other/x.parquet";  // prefix, not under
  std::string elsewhere = directory_.Child("precious.txt");
  for (const auto& path : {inside, sibling, elsewhere}) Touch(path);
  auto committer = Make();
  TaskCommit message;
  message.locations = {inside, sibling, elsewhere};
  auto added = committer->Add(EncodeTaskCommit(message));
  ASSERT_FALSE(added.ok());
  EXPECT_EQ(KindOf(added), ErrorKind::kInvalidMetadata);
  EXPECT_NE(added.message().find(sibling), std::string::npos) << added.ToString();
  EXPECT_EQ(committer->Abort(), 0);
  EXPECT_FALSE(std::filesystem::exists(inside));
  EXPECT_TRUE(std::filesystem::exists(sibling));
  EXPECT_TRUE(std::filesystem::exists(elsewhere));
}

// A corrupt manifest after valid locations: the locations are owned and deleted on abort.
TEST_F(CommitterTest, OwnsLocationsOfAMessageWhoseManifestIsCorrupt) {
  std::string inside = state_.metadata->location + "/data/a.parquet";
  Touch(inside);
  auto committer = Make();
  TaskCommit message;
  message.locations = {inside};
  message.files = "not avro";
  auto added = committer->Add(EncodeTaskCommit(message));
  ASSERT_FALSE(added.ok());
  committer.reset();  // destroyed without commit: aborts
  EXPECT_FALSE(std::filesystem::exists(inside));
  auto loaded = catalog_->LoadTable({{"db"}, "t"});
  ASSERT_TRUE(loaded.ok());
  EXPECT_EQ(loaded->metadata_location, state_.metadata_location);
}

// An SQL catalog database whose table-pointer updates find the pointer moved (the race
// lost) for the first `losses` of them.
class LosingUpdates final : public SqlDatabase {
 public:
  LosingUpdates(std::unique_ptr<SqlDatabase> inner, int losses)
      : inner_(std::move(inner)), losses_(losses) {}

  arrow::Result<int64_t> ExecuteWithLockWait(std::string_view sql,
                                             const std::vector<SqlValue>& params,
                                             int64_t lock_wait_ms) override {
    if (sql.rfind("UPDATE iceberg_tables", 0) == 0 && losses_ > 0) {
      --losses_;
      return 0;  // no row matched the expected pointer
    }
    return inner_->ExecuteWithLockWait(sql, params, lock_wait_ms);
  }
  arrow::Result<std::vector<SqlRow>> Query(std::string_view sql,
                                           const std::vector<SqlValue>& params) override {
    return inner_->Query(sql, params);
  }
  std::vector<std::string> Files() const override { return inner_->Files(); }

 private:
  std::unique_ptr<SqlDatabase> inner_;
  int losses_;
};

class CommitRetryTest : public ::testing::Test {
 protected:
  // A table in a catalog whose next `losses` commits lose their race; `properties` are
  // the table's (commit.retry.*).
  void Open(int losses, const std::map<std::string, std::string>& properties) {
    io_ = *MakeArrowFileIO();
    CatalogOptions options;
    options.warehouse = directory_.Child("warehouse");
    options.env = &env_;
    auto database = std::make_unique<LosingUpdates>(
        *OpenSqliteDatabase(directory_.Child("c.db"), {}, &env_), losses);
    auto catalog = SqlCatalog::Make(std::move(database), options, io_);
    ASSERT_TRUE(catalog.ok()) << catalog.status().ToString();
    catalog_ = std::move(*catalog);
    ASSERT_TRUE(catalog_->CreateNamespace({"db"}, {}).ok());
    auto metadata = NewTableMetadata(
        **ParseSchemaText("id long"), *PartitionSpec::Unpartitioned(),
        *SortOrder::Unsorted(), directory_.Child("warehouse/db/t"), properties, &env_);
    auto state = catalog_->CreateTable({{"db"}, "t"}, **metadata);
    ASSERT_TRUE(state.ok()) << state.status().ToString();
    state_ = *state;
  }

  arrow::Result<CommitReport> Commit() {
    Committer committer(std::make_unique<FastAppend>(
                            CommitTarget{catalog_, {{"db"}, "t"}, io_, &env_}, true),
                        state_, state_.metadata->location + "/data");
    return committer.Commit();
  }

  testing::TempDirectory directory_;
  testing::FakeEnv env_;
  std::shared_ptr<FileIO> io_;
  std::shared_ptr<Catalog> catalog_;
  TableState state_;
};

// Lost races are retried after iceberg-java's backoff (min-wait-ms doubling, up to 10%
// jitter), slept through the Env: the fake clock moves, the test does not wait.
TEST_F(CommitRetryTest, RetriesLostRacesAfterBackoffThroughTheEnv) {
  Open(/*losses=*/2, {});
  FLOE_ASSIGN_OR_FAIL(auto report, Commit());
  EXPECT_EQ(report.attempts, 3);
  // 100 ms then 200 ms (commit.retry.min-wait-ms defaults to 100), each plus <= 10%.
  EXPECT_GE(env_.slept_micros(), 300'000);
  EXPECT_LE(env_.slept_micros(), 330'000);
  // The snapshot's timestamp and the metadata's last-updated-ms come from the Env's
  // clock.
  EXPECT_EQ(report.snapshot->timestamp_ms, env_.NowMillis());
  EXPECT_EQ(report.state.metadata->last_updated_ms, env_.NowMillis());
  FLOE_ASSIGN_OR_FAIL(auto loaded, catalog_->LoadTable({{"db"}, "t"}));
  EXPECT_EQ(loaded.metadata->CurrentSnapshot()->snapshot_id,
            report.snapshot->snapshot_id);
}

TEST_F(CommitRetryTest, GivesUpAfterTheRetriesAndNamesTheProperties) {
  Open(/*losses=*/100, {{"commit.retry.num-retries", "3"},
                        {"commit.retry.min-wait-ms", "1000"},
                        {"commit.retry.max-wait-ms", "2500"}});
  auto failed = Commit();
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(KindOf(failed.status()), ErrorKind::kCommitFailed);
  EXPECT_NE(failed.status().message().find("gave up after 4 attempts"), std::string::npos)
      << failed.status().ToString();
  EXPECT_NE(failed.status().message().find("commit.retry.num-retries=3"),
            std::string::npos);
  // 1000, 2000, then 2500 (max-wait-ms caps 4000), each plus <= 10%.
  EXPECT_GE(env_.slept_micros(), 5'500'000);
  EXPECT_LE(env_.slept_micros(), 6'050'000);
  FLOE_ASSIGN_OR_FAIL(auto loaded, catalog_->LoadTable({{"db"}, "t"}));
  EXPECT_EQ(loaded.metadata->CurrentSnapshot(), nullptr);
}

// The total timeout is measured on the Env's monotonic clock.
TEST_F(CommitRetryTest, StopsAtTheTotalTimeoutOnTheEnvClock) {
  Open(/*losses=*/100, {{"commit.retry.num-retries", "50"},
                        {"commit.retry.min-wait-ms", "100"},
                        {"commit.retry.total-timeout-ms", "250"}});
  auto failed = Commit();
  ASSERT_FALSE(failed.ok());
  // Attempt 1 at 0 ms, attempt 2 after ~100 ms, attempt 3 after ~300 ms: past 250.
  EXPECT_NE(failed.status().message().find("gave up after 3 attempts"), std::string::npos)
      << failed.status().ToString();
}

}  // namespace
}  // namespace floe::iceberg
