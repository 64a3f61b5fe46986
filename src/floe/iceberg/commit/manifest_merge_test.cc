// Manifest merging on append, as iceberg-java's MergeAppend does it
// (commit.manifest-merge.enabled, commit.manifest.min-count-to-merge,
// commit.manifest.target-size-bytes); the parity suite checks the same shapes against
// iceberg-java itself.
#include <gtest/gtest.h>

#include "floe/iceberg/commit/overwrite_files.h"

#include "floe/iceberg/manifest/manifest.h"
#include "floe/iceberg/manifest/snapshot_manifests.h"
#include "floe/testing/table_fixture.h"
#include "floe/testing/temp_directory.h"
#include "floe/util/error.h"

namespace floe::iceberg {
namespace {

// The statuses of each manifest's entries in the current snapshot, newest manifest first.
std::vector<std::vector<EntryStatus>> Shape(testing::TableFixture& table) {
  std::vector<std::vector<EntryStatus>> shape;
  auto state = table.Load();
  EXPECT_TRUE(state.ok());
  auto manifests =
      ReadSnapshotManifests(*table.io(), *state->metadata->CurrentSnapshot());
  EXPECT_TRUE(manifests.ok());
  for (const auto& manifest : *manifests) {
    auto contents = ReadManifest(*table.io()->ReadAll(manifest.manifest_path));
    EXPECT_TRUE(contents.ok());
    std::vector<EntryStatus> statuses;
    for (const auto& entry : contents->entries) statuses.push_back(entry.status);
    shape.push_back(statuses);
  }
  return shape;
}

std::unique_ptr<testing::TableFixture> Table(const testing::TempDirectory& directory,
                                             const PropertyMap& properties) {
  auto table =
      testing::TableFixture::Make(directory.path().string(), "id long", "", properties);
  EXPECT_TRUE(table.ok()) << table.status().ToString();
  return std::move(*table);
}

constexpr EntryStatus kAdded = EntryStatus::kAdded;
constexpr EntryStatus kExisting = EntryStatus::kExisting;

// Below min-count-to-merge each append's manifest is kept as it is; reaching it, the bin
// of all manifests is merged into one: the new file ADDED, the earlier ones EXISTING.
TEST(ManifestMergeTest, AppendsMergeOnceTheMinimumCountIsReached) {
  testing::TempDirectory directory;
  auto table = Table(directory, {{"commit.manifest.min-count-to-merge", "3"}});
  FLOE_ASSERT_OK(table->Append({table->File("a", {}, 1)}));
  EXPECT_EQ(Shape(*table), (std::vector<std::vector<EntryStatus>>{{kAdded}}));
  FLOE_ASSERT_OK(table->Append({table->File("b", {}, 1)}));
  EXPECT_EQ(Shape(*table), (std::vector<std::vector<EntryStatus>>{{kAdded}, {kAdded}}));
  FLOE_ASSIGN_OR_FAIL(auto state, table->Append({table->File("c", {}, 1)}));
  auto shape = Shape(*table);
  ASSERT_EQ(shape.size(), 1u);
  std::sort(shape[0].begin(), shape[0].end(), [](EntryStatus a, EntryStatus b) {
    return static_cast<int>(a) < static_cast<int>(b);
  });
  EXPECT_EQ(shape[0], (std::vector<EntryStatus>{kExisting, kExisting, kAdded}));
  const auto& summary = state.metadata->CurrentSnapshot()->summary;
  EXPECT_EQ(summary.GetLong("manifests-replaced"), 2);
  EXPECT_EQ(summary.GetLong("total-data-files"), 3);
  FLOE_ASSIGN_OR_FAIL(auto live, table->LiveFiles());
  EXPECT_EQ(live.size(), 3u);
}

// Merging disabled: every append keeps every manifest.
TEST(ManifestMergeTest, DisabledMergingKeepsEveryManifest) {
  testing::TempDirectory directory;
  auto table = Table(directory, {{"commit.manifest-merge.enabled", "false"},
                                 {"commit.manifest.min-count-to-merge", "2"}});
  for (const char* name : {"a", "b", "c", "d"}) {
    FLOE_ASSERT_OK(table->Append({table->File(name, {}, 1)}));
  }
  EXPECT_EQ(Shape(*table).size(), 4u);
}

// Manifests larger than the target size are bins of their own: nothing merges.
TEST(ManifestMergeTest, ManifestsOverTheTargetSizeAreNeverMerged) {
  testing::TempDirectory directory;
  auto table = Table(directory, {{"commit.manifest.min-count-to-merge", "2"},
                                 {"commit.manifest.target-size-bytes", "1"}});
  for (const char* name : {"a", "b", "c"}) {
    FLOE_ASSERT_OK(table->Append({table->File(name, {}, 1)}));
  }
  EXPECT_EQ(Shape(*table),
            (std::vector<std::vector<EntryStatus>>{{kAdded}, {kAdded}, {kAdded}}));
}

// A delete of a whole file leaves its position deletes behind at the table's last
// sequence number (iceberg-java's merging producers drop only delete files older than
// it). Aged, they stay through commits that remove nothing, whose manifest filter reads
// no delete manifest (a merge append, a row delta adding deletes), and go with the next
// commit that removes a data file, as in iceberg-java (the parity suite compares the
// summaries with iceberg-java's own).
TEST(ManifestMergeTest, AgedDeleteFilesGoWithTheNextCommitThatRemovesFiles) {
  testing::TempDirectory directory;
  auto table = Table(directory, {{"format-version", "2"}});
  auto position_deletes = [&](const std::string& name, const DataFile& data) {
    DataFile deletes = table->File(name, {}, 2);
    deletes.content = FileContent::kPositionDeletes;
    deletes.referenced_data_file = data.file_path;
    return deletes;
  };
  auto add_deletes = [&](const DataFile& deletes) -> arrow::Result<TableState> {
    ARROW_ASSIGN_OR_RAISE(auto base, table->Load());
    OverwriteFiles row_delta(table->target());
    row_delta.AddDeleteFile(deletes);
    ARROW_ASSIGN_OR_RAISE(auto report, row_delta.Commit(base));
    return report.state;
  };
  auto summary_of = [](const TableState& state) {
    return state.metadata->CurrentSnapshot()->summary;
  };
  const DataFile a = table->File("a", {}, 10, 0, 9);
  const DataFile b = table->File("b", {}, 3, 20, 22);
  const DataFile a_deletes = position_deletes("a-deletes", a);
  const DataFile b_deletes = position_deletes("b-deletes", b);
  FLOE_ASSERT_OK(table->Append({a}));
  FLOE_ASSERT_OK(add_deletes(a_deletes));
  FLOE_ASSIGN_OR_FAIL(auto state, table->Remove({a.file_path}));
  EXPECT_EQ(summary_of(state).Get("total-delete-files"), "1");

  FLOE_ASSIGN_OR_FAIL(state, table->Append({b}));  // a merge append
  EXPECT_EQ(summary_of(state).Get("removed-delete-files"), std::nullopt);
  EXPECT_EQ(summary_of(state).Get("total-delete-files"), "1");
  FLOE_ASSIGN_OR_FAIL(state, add_deletes(b_deletes));
  EXPECT_EQ(summary_of(state).Get("removed-delete-files"), std::nullopt);
  EXPECT_EQ(summary_of(state).Get("total-delete-files"), "2");
  FLOE_ASSIGN_OR_FAIL(auto live, table->LiveFiles());
  EXPECT_EQ(live, (std::vector<std::string>{a_deletes.file_path, b.file_path,
                                            b_deletes.file_path}));

  // Removing b drops a's deletes, older than every data file left; b's own, at the last
  // sequence number, stay.
  FLOE_ASSIGN_OR_FAIL(state, table->Remove({b.file_path}));
  const SnapshotSummary summary = summary_of(state);
  EXPECT_EQ(summary.Get("removed-delete-files"), "1");
  EXPECT_EQ(summary.Get("removed-position-delete-files"), "1");
  EXPECT_EQ(summary.Get("removed-position-deletes"), "2");
  EXPECT_EQ(summary.Get("total-delete-files"), "1");
  FLOE_ASSIGN_OR_FAIL(live, table->LiveFiles());
  EXPECT_EQ(live, std::vector<std::string>{b_deletes.file_path});
}

}  // namespace
}  // namespace floe::iceberg
