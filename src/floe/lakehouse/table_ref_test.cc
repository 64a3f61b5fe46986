#include "floe/lakehouse/table_ref.h"

#include <gtest/gtest.h>

#include "arrow/api.h"
#include "floe/testing/table_fixture.h"
#include "floe/testing/temp_directory.h"
#include "floe/util/error.h"

namespace floe {
namespace {

// A catalog holding the Iceberg table db.t and the catalog-managed Delta table db.d.
class TableRefTest : public ::testing::Test {
 protected:
  void SetUp() override {
    FLOE_ASSIGN_OR_FAIL(
        fixture_, testing::TableFixture::Make(directory_.path().string(), "id long", ""));
    auto schema = arrow::schema({arrow::field("id", arrow::int64())});
    FLOE_ASSIGN_OR_FAIL(auto id, iceberg::TableIdentifier::Parse("db.d"));
    FLOE_ASSIGN_OR_FAIL(delta_,
                        CreateDeltaTable(fixture_->catalog(), id, *schema, {}, {}, ""));
  }

  CatalogOpener Opener() {
    return [this]() -> arrow::Result<std::shared_ptr<iceberg::Catalog>> {
      ++opened_;
      return fixture_->catalog();
    };
  }

  testing::TempDirectory directory_;
  std::unique_ptr<testing::TableFixture> fixture_;
  CatalogDeltaTable delta_;
  int opened_ = 0;
};

TEST_F(TableRefTest, ANameIsTheCatalogsIcebergTable) {
  FLOE_ASSIGN_OR_FAIL(auto ref, ResolveTable(Opener(), "db.t"));
  EXPECT_EQ(ref.format, TableFormat::kIceberg);
  EXPECT_FALSE(ref.by_path);
  ASSERT_TRUE(ref.id.has_value());
  EXPECT_EQ(ref.id->ToString(), "db.t");
  EXPECT_FALSE(ref.catalog_delta.has_value());
  FLOE_ASSIGN_OR_FAIL(auto table, LoadIcebergTable(Opener(), ref));
  EXPECT_EQ(table->id().ToString(), "db.t");
}

TEST_F(TableRefTest, ANameOfACatalogManagedDeltaTableIsThatTable) {
  FLOE_ASSIGN_OR_FAIL(auto ref, ResolveTable(Opener(), "db.d"));
  EXPECT_EQ(ref.format, TableFormat::kDelta);
  EXPECT_FALSE(ref.by_path);
  ASSERT_TRUE(ref.catalog_delta.has_value());
  EXPECT_EQ(ref.catalog_delta->root, delta_.root);
  EXPECT_EQ(ref.delta_root, delta_.root);
  auto loaded = LoadIcebergTable(Opener(), ref);
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(KindOf(loaded.status()), ErrorKind::kInvalidInput);
  EXPECT_NE(loaded.status().message().find("db.d is a Delta table"), std::string::npos);
}

TEST_F(TableRefTest, APathIsADeltaTableAndOpensNoCatalog) {
  const std::string path = directory_.Child("some/table/");
  FLOE_ASSIGN_OR_FAIL(auto ref, ResolveTable(Opener(), path));
  EXPECT_EQ(opened_, 0);
  EXPECT_EQ(ref.format, TableFormat::kDelta);
  EXPECT_TRUE(ref.by_path);
  EXPECT_FALSE(ref.id.has_value());
  EXPECT_EQ(ref.delta_root, TableRoot(path));
  EXPECT_EQ(ref.delta_root.back(), 'e');  // no trailing slash
}

TEST_F(TableRefTest, AnUnknownNameIsNoSuchTableAndABadOneInvalidInput) {
  FLOE_ASSIGN_OR_FAIL(auto ref, ResolveTable(Opener(), "db.missing"));
  EXPECT_EQ(ref.format, TableFormat::kIceberg);
  auto loaded = LoadIcebergTable(Opener(), ref);
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(KindOf(loaded.status()), ErrorKind::kNoSuchTable);
  auto bad = ResolveTable(Opener(), "");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(KindOf(bad.status()), ErrorKind::kInvalidInput);
}

}  // namespace
}  // namespace floe
