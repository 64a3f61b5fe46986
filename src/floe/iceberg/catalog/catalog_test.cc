// The catalog registry (Catalog::Open by type or URI form) and the FileIO a catalog and
// its tables get.
#include "floe/iceberg/catalog/catalog.h"

#include <algorithm>

#include <gtest/gtest.h>

#include "floe/iceberg/spec/schema_ddl.h"
#include "floe/testing/fake_env.h"
#include "floe/testing/temp_directory.h"
#include "floe/util/error.h"

namespace floe::iceberg {
namespace {

TEST(CatalogRegistryTest, OpensByTypeOrByTheLongestUriForm) {
  std::vector<std::string> opened;
  auto recording = [&](const std::string& what) -> CatalogFactory {
    return [&opened,
            what](const CatalogOptions&) -> arrow::Result<std::unique_ptr<Catalog>> {
      opened.push_back(what);
      return arrow::Status::IOError("test catalog " + what);
    };
  };
  RegisterCatalog("test-short", {"tst:*"}, "tst://x", recording("short"));
  RegisterCatalog("test-long", {"tst:long:*", "tst-exact"}, "tst:long://x",
                  recording("long"));
  CatalogOptions options;
  options.uri = "tst://anything";
  EXPECT_FALSE(Catalog::Open(options).ok());
  options.uri = "tst:long://anything";
  EXPECT_FALSE(Catalog::Open(options).ok());
  options.uri = "tst-exact";
  EXPECT_FALSE(Catalog::Open(options).ok());
  options.uri = "tst-exact/more";  // an exact form matches only itself
  auto unknown = Catalog::Open(options);
  EXPECT_EQ(KindOf(unknown.status()), ErrorKind::kInvalidInput);
  options.uri = "tst://by-uri";
  options.type = "test-long";  // the type wins over the URI
  EXPECT_FALSE(Catalog::Open(options).ok());
  EXPECT_EQ(opened, (std::vector<std::string>{"short", "long", "long", "long"}));

  options.type = "no-such-type";
  auto no_type = Catalog::Open(options);
  ASSERT_FALSE(no_type.ok());
  EXPECT_EQ(KindOf(no_type.status()), ErrorKind::kInvalidInput);
  EXPECT_NE(no_type.status().message().find("sql"), std::string::npos)
      << no_type.status().ToString();
  auto types = RegisteredCatalogTypes();
  for (const char* type :
       {"hadoop", "memory", "rest", "sql", "test-long", "test-short"}) {
    EXPECT_NE(std::find(types.begin(), types.end(), type), types.end()) << type;
  }
}

// A catalog's Env reaches its commits; its io_factory makes its FileIO (from the
// warehouse location and the catalog's properties) and, by default, its tables'.
TEST(CatalogRegistryTest, TheCatalogOptionsEnvAndFileIOFactoryAreUsed) {
  testing::TempDirectory directory;
  testing::FakeEnv env;
  std::vector<std::string> asked;
  CatalogOptions options;
  options.uri = "sqlite:///" + directory.Child("c.db");
  options.warehouse = directory.Child("warehouse");
  options.properties = {{"custom", "1"}};
  options.env = &env;
  options.io_factory = [&](std::string_view location,
                           const std::map<std::string, std::string>& properties)
      -> arrow::Result<std::shared_ptr<FileIO>> {
    asked.push_back(std::string(location) + " custom=" + properties.at("custom"));
    return MakeArrowFileIO();
  };
  FLOE_ASSIGN_OR_FAIL(std::shared_ptr<Catalog> catalog, Catalog::Open(options));
  EXPECT_EQ(catalog->env(), &env);
  EXPECT_EQ(asked, std::vector<std::string>{directory.Child("warehouse") + " custom=1"});
  FLOE_ASSERT_OK(catalog->CreateNamespace({"db"}, {}));
  FLOE_ASSIGN_OR_FAIL(auto location, catalog->DefaultTableLocation({{"db"}, "t"}));
  auto metadata =
      NewTableMetadata(**ParseSchemaText("id long"), *PartitionSpec::Unpartitioned(),
                       *SortOrder::Unsorted(), location, {}, &env);
  ASSERT_TRUE(metadata.ok()) << metadata.status().ToString();
  EXPECT_EQ((*metadata)->last_updated_ms, env.NowMillis());
  FLOE_ASSIGN_OR_FAIL(auto state, catalog->CreateTable({{"db"}, "t"}, **metadata));
  FLOE_ASSIGN_OR_FAIL(auto io, catalog->TableIO({{"db"}, "t"}, state));
  EXPECT_EQ(io, catalog->io());
}

}  // namespace
}  // namespace floe::iceberg
