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

TEST_F(TableRefTest, ListDropAndRenameSeeBothFormats) {
  const auto catalog = fixture_->catalog();
  FLOE_ASSIGN_OR_FAIL(auto listed, ListCatalogTables(catalog, {"db"}));
  ASSERT_EQ(listed.size(), 2U);
  EXPECT_EQ(listed[0].id.ToString(), "db.t");
  EXPECT_EQ(listed[0].format, TableFormat::kIceberg);
  EXPECT_EQ(listed[1].id.ToString(), "db.d");
  EXPECT_EQ(listed[1].format, TableFormat::kDelta);

  // A name taken by the other format is refused; nothing moves.
  FLOE_ASSIGN_OR_FAIL(auto iceberg_ref, ResolveTable(Opener(), "db.t"));
  FLOE_ASSIGN_OR_FAIL(auto delta_ref, ResolveTable(Opener(), "db.d"));
  FLOE_ASSIGN_OR_FAIL(auto d_name, iceberg::TableIdentifier::Parse("db.d"));
  FLOE_ASSIGN_OR_FAIL(auto t_name, iceberg::TableIdentifier::Parse("db.t"));
  EXPECT_EQ(KindOf(RenameCatalogTable(catalog, iceberg_ref, d_name)),
            ErrorKind::kAlreadyExists);
  EXPECT_EQ(KindOf(RenameCatalogTable(catalog, delta_ref, t_name)),
            ErrorKind::kAlreadyExists);

  FLOE_ASSIGN_OR_FAIL(auto e_name, iceberg::TableIdentifier::Parse("db.e"));
  FLOE_ASSERT_OK(RenameCatalogTable(catalog, delta_ref, e_name));
  FLOE_ASSIGN_OR_FAIL(auto renamed, ResolveTable(Opener(), "db.e"));
  EXPECT_TRUE(renamed.is_delta());
  EXPECT_EQ(renamed.delta_root, delta_.root);
  FLOE_ASSIGN_OR_FAIL(auto gone, ResolveTable(Opener(), "db.d"));
  EXPECT_FALSE(gone.is_delta());

  // The namespace is not empty while either table is in it.
  FLOE_ASSERT_OK(DropCatalogTable(catalog, iceberg_ref));
  const auto not_empty = DropCatalogNamespace(catalog, {"db"});
  EXPECT_EQ(KindOf(not_empty), ErrorKind::kNamespaceNotEmpty);
  EXPECT_NE(not_empty.message().find("Delta table e"), std::string::npos);
  FLOE_ASSERT_OK(DropCatalogTable(catalog, renamed));
  FLOE_ASSIGN_OR_FAIL(listed, ListCatalogTables(catalog, {"db"}));
  EXPECT_TRUE(listed.empty());
  FLOE_ASSERT_OK(DropCatalogNamespace(catalog, {"db"}));

  // A table given by path is no catalog's to drop or rename.
  FLOE_ASSIGN_OR_FAIL(auto path_ref, ResolveTable(Opener(), directory_.Child("x/y")));
  EXPECT_EQ(KindOf(DropCatalogTable(catalog, path_ref)), ErrorKind::kInvalidInput);
  EXPECT_EQ(KindOf(RenameCatalogTable(catalog, path_ref, e_name)),
            ErrorKind::kInvalidInput);
}

}  // namespace
}  // namespace floe
