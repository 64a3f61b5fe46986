#include "floe/lakehouse/delta_tables.h"

#include <filesystem>
#include <system_error>

#include "floe/delta/write.h"
#include "floe/iceberg/catalog/sql_catalog.h"
#include "floe/io/file_io.h"
#include "floe/util/error.h"
#include "floe/util/location.h"
#include "floe/util/uuid.h"

namespace floe {

arrow::Result<std::shared_ptr<delta::SqlCommitCoordinator>> DeltaCoordinatorOf(
    const std::shared_ptr<iceberg::Catalog>& catalog, bool create_tables) {
  auto* sql = dynamic_cast<iceberg::SqlCatalog*>(catalog.get());
  if (sql == nullptr) {
    return MakeError(ErrorKind::kInvalidInput,
                     "catalog " + catalog->name() +
                         " keeps no Delta tables: catalog-managed Delta tables live in "
                         "floe's SQL catalog (SQLite or PostgreSQL)");
  }
  return delta::SqlCommitCoordinator::Make(sql->database(), create_tables);
}

arrow::Result<std::optional<CatalogDeltaTable>> FindDeltaTable(
    const std::shared_ptr<iceberg::Catalog>& catalog,
    const iceberg::TableIdentifier& id) {
  const auto* sql = dynamic_cast<const iceberg::SqlCatalog*>(catalog.get());
  if (sql == nullptr) return std::nullopt;
  ARROW_ASSIGN_OR_RAISE(auto coordinator,
                        DeltaCoordinatorOf(catalog, /*create_tables=*/false));
  ARROW_ASSIGN_OR_RAISE(
      auto found, coordinator->LookupTable(catalog->name(),
                                           iceberg::NamespaceToString(id.ns), id.name));
  if (!found) return std::nullopt;
  CatalogDeltaTable table;
  table.name = id.ToString();
  table.root = found->location;
  ARROW_ASSIGN_OR_RAISE(table.io, sql->FileIOFor(found->location));
  table.committer = std::make_shared<delta::CatalogCommitter>(
      table.io, coordinator, found->table_id, found->location);
  table.registered = *found;
  return table;
}

arrow::Status DropDeltaTable(const std::shared_ptr<iceberg::Catalog>& catalog,
                             const CatalogDeltaTable& table) {
  arrow::Status published = table.committer->PublishBacklog();
  if (!published.ok()) {
    return WithContext(published, "Delta table " + table.name +
                                      " is not dropped: its ratified commits must be "
                                      "published first");
  }
  ARROW_ASSIGN_OR_RAISE(auto coordinator,
                        DeltaCoordinatorOf(catalog, /*create_tables=*/false));
  return coordinator->DropTable(table.registered);
}

arrow::Status RenameDeltaTable(const std::shared_ptr<iceberg::Catalog>& catalog,
                               const CatalogDeltaTable& from,
                               const iceberg::TableIdentifier& to) {
  auto iceberg = catalog->LoadTable(to);
  if (iceberg.ok()) {
    return MakeError(ErrorKind::kAlreadyExists,
                     "table " + to.ToString() + " already exists in catalog " +
                         catalog->name() + " (an Iceberg table)");
  }
  ARROW_ASSIGN_OR_RAISE(bool namespace_exists, catalog->NamespaceExists(to.ns));
  if (!namespace_exists) {
    return MakeError(
        ErrorKind::kNoSuchNamespace,
        "namespace " + iceberg::NamespaceToString(to.ns) + " does not exist");
  }
  ARROW_ASSIGN_OR_RAISE(auto coordinator,
                        DeltaCoordinatorOf(catalog, /*create_tables=*/false));
  return coordinator->RenameTable(catalog->name(), from.registered.table_namespace,
                                  from.registered.table_name,
                                  iceberg::NamespaceToString(to.ns), to.name);
}

arrow::Result<CatalogDeltaTable> CreateDeltaTable(
    const std::shared_ptr<iceberg::Catalog>& catalog, const iceberg::TableIdentifier& id,
    const arrow::Schema& schema, const std::vector<std::string>& partition_columns,
    const std::map<std::string, std::string>& properties, const std::string& location,
    bool* created_namespace) {
  if (created_namespace) *created_namespace = false;
  ARROW_ASSIGN_OR_RAISE(auto coordinator,
                        DeltaCoordinatorOf(catalog, /*create_tables=*/true));
  auto iceberg = catalog->LoadTable(id);
  if (iceberg.ok()) {
    return MakeError(ErrorKind::kAlreadyExists,
                     "table " + id.ToString() + " already exists in catalog " +
                         catalog->name() + " (an Iceberg table)");
  }
  if (KindOf(iceberg.status()) != ErrorKind::kNoSuchTable &&
      KindOf(iceberg.status()) != ErrorKind::kNoSuchNamespace) {
    return iceberg.status();
  }
  ARROW_ASSIGN_OR_RAISE(bool namespace_exists, catalog->NamespaceExists(id.ns));
  if (!namespace_exists) ARROW_RETURN_NOT_OK(catalog->CreateNamespace(id.ns, {}));
  auto created = [&]() -> arrow::Result<CatalogDeltaTable> {
    std::string root = location;
    if (root.empty()) {
      ARROW_ASSIGN_OR_RAISE(root, catalog->DefaultTableLocation(id));
    }
    ARROW_ASSIGN_OR_RAISE(
        auto io, static_cast<const iceberg::SqlCatalog&>(*catalog).FileIOFor(root));
    delta::CreateTableOptions options;
    options.partition_columns = partition_columns;
    options.properties = properties;
    options.catalog_managed = true;
    options.table_id = Uuid::Random(catalog->env()).ToString();
    options.committer = std::make_shared<delta::CatalogCommitter>(
        io, coordinator, options.table_id, root,
        delta::CatalogTableName{catalog->name(), iceberg::NamespaceToString(id.ns),
                                id.name});
    ARROW_RETURN_NOT_OK(delta::CreateTable(io, root, schema, options).status());
    CatalogDeltaTable table;
    table.name = id.ToString();
    table.root = root;
    table.io = io;
    table.committer = std::make_shared<delta::CatalogCommitter>(io, coordinator,
                                                                options.table_id, root);
    return table;
  }();
  // A failed create leaves nothing behind, not even the namespace made for it.
  if (!created.ok() && !namespace_exists) (void)catalog->DropNamespace(id.ns);
  if (created.ok() && created_namespace) *created_namespace = !namespace_exists;
  return created;
}

std::string TableRoot(const std::string& argument) {
  if (LocationScheme(argument) != "file" || argument.rfind("file:", 0) == 0) {
    return StripTrailingSlash(argument);
  }
  // A relative path is taken from the working directory.
  std::error_code error;
  auto absolute = std::filesystem::absolute(argument, error);
  if (error) return StripTrailingSlash(argument);
  return StripTrailingSlash(absolute.lexically_normal().string());
}

}  // namespace floe
