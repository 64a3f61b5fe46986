// The filesystem (Hadoop) catalog: its layout on disk, its commits by rename without
// replace, and its refusals.
#include "floe/iceberg/catalog/filesystem_catalog.h"

#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include <gtest/gtest.h>

#include "floe/iceberg/spec/schema_ddl.h"
#include "floe/testing/temp_directory.h"
#include "floe/util/error.h"

namespace floe::iceberg {
namespace {

namespace fs = std::filesystem;

std::set<std::string> Names(const fs::path& directory) {
  std::set<std::string> names;
  for (const auto& entry : fs::directory_iterator(directory)) {
    names.insert(entry.path().filename().string());
  }
  return names;
}

std::string Read(const fs::path& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

class FilesystemCatalogTest : public ::testing::Test {
 protected:
  std::unique_ptr<Catalog> Open() {
    CatalogOptions options;
    options.uri = "hadoop";
    options.warehouse = directory_.Child("warehouse");
    auto catalog = Catalog::Open(options);
    EXPECT_TRUE(catalog.ok()) << catalog.status().ToString();
    return std::move(*catalog);
  }

  TableMetadataPtr Metadata(Catalog& catalog, const TableIdentifier& id) {
    auto location = catalog.DefaultTableLocation(id);
    EXPECT_TRUE(location.ok());
    auto metadata =
        NewTableMetadata(**ParseSchemaText("id long"), *PartitionSpec::Unpartitioned(),
                         *SortOrder::Unsorted(), *location, {});
    EXPECT_TRUE(metadata.ok()) << metadata.status().ToString();
    return *metadata;
  }

  testing::TempDirectory directory_;
  const TableIdentifier id_{{"db"}, "t"};
};

// HadoopCatalog's layout: <warehouse>/<ns>/<table>/metadata/v<N>.metadata.json with
// version-hint.text naming N; a commit makes v<N+1> and moves the hint.
TEST_F(FilesystemCatalogTest, LaysOutVersionsAndTheHintAsHadoopCatalog) {
  auto catalog = Open();
  FLOE_ASSERT_OK(catalog->CreateNamespace({"db"}, {}));
  FLOE_ASSIGN_OR_FAIL(auto created, catalog->CreateTable(id_, *Metadata(*catalog, id_)));
  const fs::path metadata = directory_.path() / "warehouse/db/t/metadata";
  EXPECT_EQ(Names(metadata),
            (std::set<std::string>{"v1.metadata.json", "version-hint.text"}));
  EXPECT_EQ(Read(metadata / "version-hint.text"), "1");
  FLOE_ASSIGN_OR_FAIL(auto committed,
                      catalog->CommitTable(id_, created, *created.metadata));
  EXPECT_EQ(fs::path(committed.metadata_location).filename(), "v2.metadata.json");
  EXPECT_EQ(Read(metadata / "version-hint.text"), "2");
  FLOE_ASSIGN_OR_FAIL(auto tables, catalog->ListTables({"db"}));
  EXPECT_EQ(tables, std::vector<TableIdentifier>{id_});
  FLOE_ASSIGN_OR_FAIL(auto loaded, Open()->LoadTable(id_));
  EXPECT_EQ(loaded.metadata_location, committed.metadata_location);
}

// Two writers from one base: exactly one commit wins; the loser gets CommitFailed and
// leaves no file behind.
TEST_F(FilesystemCatalogTest, OfTwoCommitsFromOneBaseExactlyOneWins) {
  auto catalog = Open();
  FLOE_ASSERT_OK(catalog->CreateNamespace({"db"}, {}));
  FLOE_ASSIGN_OR_FAIL(auto base, catalog->CreateTable(id_, *Metadata(*catalog, id_)));
  auto other = Open();
  constexpr int kWriters = 8;
  std::vector<arrow::Status> results(kWriters);
  std::vector<std::thread> writers;
  for (int i = 0; i < kWriters; ++i) {
    writers.emplace_back([&, i] {
      auto handle = i % 2 ? Open() : nullptr;
      Catalog& use = handle ? *handle : *other;
      results[i] = use.CommitTable(id_, base, *base.metadata).status();
    });
  }
  for (auto& writer : writers) writer.join();
  int won = 0;
  for (const auto& result : results) {
    if (result.ok()) {
      ++won;
    } else {
      EXPECT_EQ(KindOf(result), ErrorKind::kCommitFailed) << result.ToString();
    }
  }
  EXPECT_EQ(won, 1);
  EXPECT_EQ(Names(directory_.path() / "warehouse/db/t/metadata"),
            (std::set<std::string>{"v1.metadata.json", "v2.metadata.json",
                                   "version-hint.text"}));
}

// A hint behind the versions on disk (a writer that died before moving it) is followed
// to the newest version, as HadoopTableOperations.refresh does.
TEST_F(FilesystemCatalogTest, FollowsVersionsNewerThanTheHint) {
  auto catalog = Open();
  FLOE_ASSERT_OK(catalog->CreateNamespace({"db"}, {}));
  FLOE_ASSIGN_OR_FAIL(auto base, catalog->CreateTable(id_, *Metadata(*catalog, id_)));
  FLOE_ASSIGN_OR_FAIL(auto committed, catalog->CommitTable(id_, base, *base.metadata));
  const fs::path metadata = directory_.path() / "warehouse/db/t/metadata";
  std::ofstream(metadata / "version-hint.text") << "1";
  FLOE_ASSIGN_OR_FAIL(auto loaded, Open()->LoadTable(id_));
  EXPECT_EQ(loaded.metadata_location, committed.metadata_location);
}

TEST_F(FilesystemCatalogTest, RefusesWhatHadoopCatalogRefuses) {
  auto catalog = Open();
  EXPECT_FALSE(catalog->CreateNamespace({"db"}, {{"owner", "x"}}).ok());
  FLOE_ASSERT_OK(catalog->CreateNamespace({"db"}, {}));
  EXPECT_EQ(KindOf(catalog->RenameTable(id_, {{"db"}, "u"})), ErrorKind::kNotSupported);
  EXPECT_EQ(KindOf(catalog->UpdateNamespaceProperties({"db"}, {{"a", "b"}}, {})),
            ErrorKind::kNotSupported);
  CatalogOptions s3;
  s3.uri = "hadoop";
  s3.warehouse = "s3://bucket/warehouse";
  auto refused = Catalog::Open(s3);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("s3"), std::string::npos);
}

}  // namespace
}  // namespace floe::iceberg
