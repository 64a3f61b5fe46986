// Manifest merging on append, as iceberg-java's MergeAppend does it
// (commit.manifest-merge.enabled, commit.manifest.min-count-to-merge,
// commit.manifest.target-size-bytes); the parity suite checks the same shapes against
// iceberg-java itself.
#include <gtest/gtest.h>

#include "floe/manifest/manifest.h"
#include "floe/manifest/snapshot_manifests.h"
#include "floe/testing/table_fixture.h"
#include "floe/testing/temp_directory.h"
#include "floe/util/error.h"

namespace floe {
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

}  // namespace
}  // namespace floe
