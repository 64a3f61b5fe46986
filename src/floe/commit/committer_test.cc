#include "floe/commit/committer.h"

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "floe/catalog/sql_catalog.h"
#include "floe/spec/schema_ddl.h"
#include "floe/testing/temp_directory.h"
#include "floe/util/error.h"
#include "floe/write/task_commit.h"

namespace floe {
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
    return std::make_unique<Committer>(CommitTarget{catalog_, {{"db"}, "t"}, io_}, state_,
                                       state_.metadata->location + "/data");
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
  message.manifest = "not avro";
  auto added = committer->Add(EncodeTaskCommit(message));
  ASSERT_FALSE(added.ok());
  committer.reset();  // destroyed without commit: aborts
  EXPECT_FALSE(std::filesystem::exists(inside));
  auto loaded = catalog_->LoadTable({{"db"}, "t"});
  ASSERT_TRUE(loaded.ok());
  EXPECT_EQ(loaded->metadata_location, state_.metadata_location);
}

}  // namespace
}  // namespace floe
