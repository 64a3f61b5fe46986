// OverwriteFiles' validations against concurrent commits (iceberg-java's
// BaseOverwriteFiles / BaseReplacePartitions semantics), on hand-described data files.
#include "floe/iceberg/commit/overwrite_files.h"

#include <gtest/gtest.h>

#include "floe/expr/binder.h"
#include "floe/expr/parser.h"
#include "floe/testing/table_fixture.h"
#include "floe/testing/temp_directory.h"
#include "floe/util/error.h"

namespace floe::iceberg {
namespace {

class OverwriteFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto table = testing::TableFixture::Make(directory_.path().string(),
                                             "id long, region string", "region");
    ASSERT_TRUE(table.ok()) << table.status().ToString();
    table_ = std::move(*table);
  }

  // An overwrite that read `read` (the table's state then), validated as floe's writes
  // validate one under `isolation`.
  std::unique_ptr<OverwriteFiles> Overwrite(const TableState& read,
                                            IsolationLevel isolation,
                                            const ExpressionPtr& filter = nullptr) {
    auto overwrite = std::make_unique<OverwriteFiles>(table_->target());
    auto current = read.metadata->CurrentSnapshot();
    overwrite->ValidateFromSnapshot(current ? std::optional(current->snapshot_id)
                                            : std::nullopt);
    if (filter)
      overwrite->ConflictDetectionFilter(filter, read.metadata->CurrentSchema());
    if (isolation == IsolationLevel::kSerializable)
      overwrite->ValidateNoConflictingData();
    overwrite->ValidateNoConflictingDeletes();
    return overwrite;
  }

  ExpressionPtr Bound(const TableState& state, const std::string& text) {
    auto parsed = ParseFilter(text);
    EXPECT_TRUE(parsed.ok());
    auto bound = Bind(*parsed, *state.metadata->CurrentSchema());
    EXPECT_TRUE(bound.ok()) << bound.status().ToString();
    return *bound;
  }

  testing::TempDirectory directory_;
  std::unique_ptr<testing::TableFixture> table_;
};

// A dynamic overwrite of r1 that lost the race to an append into r1: serializable fails
// it (the append's rows would be replaced unseen); snapshot replaces them too.
TEST_F(OverwriteFilesTest,
       ReplacedPartitionWithAConcurrentAppendConflictsUnderSerializable) {
  FLOE_ASSIGN_OR_FAIL(auto read, table_->Append({table_->File("a", {"r1"}, 10)}));
  FLOE_ASSERT_OK(table_->Append({table_->File("b", {"r1"}, 5)}));  // concurrent
  auto serializable = Overwrite(read, IsolationLevel::kSerializable);
  serializable->ReplacePartitions();
  serializable->AddDataFile(table_->File("new", {"r1"}, 7));
  auto failed = serializable->Commit(read);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(KindOf(failed.status()), ErrorKind::kValidationFailed)
      << failed.status().ToString();
  FLOE_ASSIGN_OR_FAIL(auto unchanged, table_->LiveFiles());
  EXPECT_EQ(unchanged.size(), 2u);

  auto snapshot = Overwrite(read, IsolationLevel::kSnapshot);
  snapshot->ReplacePartitions();
  snapshot->AddDataFile(table_->File("new", {"r1"}, 7));
  FLOE_ASSIGN_OR_FAIL(auto report, snapshot->Commit(read));
  EXPECT_EQ(report.attempts, 2);  // lost once, rebased on the append
  FLOE_ASSIGN_OR_FAIL(auto live, table_->LiveFiles());
  EXPECT_EQ(live, std::vector<std::string>{table_->File("new", {"r1"}, 7).file_path});
  EXPECT_EQ(report.snapshot->summary.Get("replace-partitions"), "true");
}

// An append into another partition is no conflict, even under serializable.
TEST_F(OverwriteFilesTest, AnAppendToAnotherPartitionIsNoConflict) {
  FLOE_ASSIGN_OR_FAIL(auto read, table_->Append({table_->File("a", {"r1"}, 10)}));
  FLOE_ASSERT_OK(table_->Append({table_->File("b", {"r2"}, 5)}));
  auto overwrite = Overwrite(read, IsolationLevel::kSerializable);
  overwrite->ReplacePartitions();
  overwrite->AddDataFile(table_->File("new", {"r1"}, 7));
  FLOE_ASSIGN_OR_FAIL(auto report, overwrite->Commit(read));
  FLOE_ASSIGN_OR_FAIL(auto live, table_->LiveFiles());
  EXPECT_EQ(live, (std::vector<std::string>{table_->File("b", {"r2"}, 5).file_path,
                                            table_->File("new", {"r1"}, 7).file_path}));
}

// A file to delete that a concurrent commit already removed fails the commit, whatever
// the isolation: its rows may have been rewritten elsewhere.
TEST_F(OverwriteFilesTest, DeletingAFileAConcurrentCommitRemovedFails) {
  FLOE_ASSIGN_OR_FAIL(auto read, table_->Append({table_->File("a", {"r1"}, 10),
                                                 table_->File("b", {"r2"}, 10)}));
  auto first = Overwrite(read, IsolationLevel::kSnapshot);
  first->DeleteFile(table_->File("a", {"r1"}, 10).file_path);
  FLOE_ASSERT_OK(first->Commit(read));
  auto second = Overwrite(read, IsolationLevel::kSnapshot);
  second->DeleteFile(table_->File("a", {"r1"}, 10).file_path);
  auto failed = second->Commit(read);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(KindOf(failed.status()), ErrorKind::kValidationFailed);
  EXPECT_NE(failed.status().message().find("Missing required files to delete"),
            std::string::npos)
      << failed.status().ToString();
}

// With a conflict filter, only concurrent files that might hold matching rows conflict
// (their id bounds against `id < 10`).
TEST_F(OverwriteFilesTest, TheConflictFilterDecidesWhichConcurrentFilesConflict) {
  FLOE_ASSIGN_OR_FAIL(auto read, table_->Append({table_->File("a", {"r1"}, 10, 0, 9)}));
  FLOE_ASSERT_OK(table_->Append({table_->File("far", {"r1"}, 5, 100, 200)}));
  auto clear = Overwrite(read, IsolationLevel::kSerializable, Bound(read, "id < 10"));
  clear->DeleteFile(table_->File("a", {"r1"}, 10).file_path);
  FLOE_ASSIGN_OR_FAIL(auto cleared, clear->Commit(read));

  FLOE_ASSERT_OK(table_->Append({table_->File("near", {"r1"}, 5, 5, 50)}));
  auto conflicting =
      Overwrite(cleared.state, IsolationLevel::kSerializable, Bound(read, "id < 10"));
  conflicting->DeleteFile(table_->File("far", {"r1"}, 5).file_path);
  auto failed = conflicting->Commit(cleared.state);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(KindOf(failed.status()), ErrorKind::kValidationFailed);
  EXPECT_NE(failed.status().message().find("near"), std::string::npos)
      << failed.status().ToString();
}

}  // namespace
}  // namespace floe::iceberg
