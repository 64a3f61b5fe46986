#include "floe/lakehouse/table_ref.h"

#include "floe/iceberg/catalog/sql_catalog.h"
#include "floe/util/error.h"

namespace floe {

std::string_view TableFormatName(TableFormat format) {
  return format == TableFormat::kDelta ? "delta" : "iceberg";
}

bool IsTablePath(std::string_view argument) {
  return argument.find('/') != std::string_view::npos;
}

arrow::Result<TableRef> ResolveTable(const CatalogOpener& open_catalog,
                                     const std::string& argument) {
  TableRef ref;
  ref.argument = argument;
  if (IsTablePath(argument)) {
    ref.format = TableFormat::kDelta;
    ref.by_path = true;
    ref.delta_root = TableRoot(argument);
    return ref;
  }
  ARROW_ASSIGN_OR_RAISE(auto id, iceberg::TableIdentifier::Parse(argument));
  ARROW_ASSIGN_OR_RAISE(auto catalog, open_catalog());
  ARROW_ASSIGN_OR_RAISE(ref, ResolveCatalogTable(catalog, std::move(id)));
  ref.argument = argument;
  return ref;
}

arrow::Result<TableRef> ResolveCatalogTable(
    const std::shared_ptr<iceberg::Catalog>& catalog, iceberg::TableIdentifier id) {
  TableRef ref;
  ref.argument = id.ToString();
  ARROW_ASSIGN_OR_RAISE(ref.catalog_delta, FindDeltaTable(catalog, id));
  ref.id = std::move(id);
  if (ref.catalog_delta) {
    ref.format = TableFormat::kDelta;
    ref.delta_root = ref.catalog_delta->root;
  }
  return ref;
}

arrow::Result<std::shared_ptr<iceberg::Table>> LoadIcebergTable(
    const CatalogOpener& open_catalog, const TableRef& ref) {
  if (ref.is_delta() || !ref.id) {
    return MakeError(ErrorKind::kInvalidInput,
                     ref.argument + " is a Delta table, not an Iceberg table");
  }
  ARROW_ASSIGN_OR_RAISE(auto catalog, open_catalog());
  return iceberg::Table::Load(catalog, *ref.id);
}

namespace {

// The catalog-managed Delta tables of `ns`; none when `catalog` is not floe's SQL
// catalog.
arrow::Result<std::vector<delta::RegisteredDeltaTable>> DeltaTablesOf(
    const std::shared_ptr<iceberg::Catalog>& catalog, const iceberg::Namespace& ns) {
  if (dynamic_cast<iceberg::SqlCatalog*>(catalog.get()) == nullptr) {
    return std::vector<delta::RegisteredDeltaTable>{};
  }
  ARROW_ASSIGN_OR_RAISE(auto coordinator,
                        DeltaCoordinatorOf(catalog, /*create_tables=*/false));
  return coordinator->ListTables(catalog->name(), iceberg::NamespaceToString(ns));
}

arrow::Status RefuseAPath(const TableRef& ref) {
  if (ref.by_path || !ref.id) {
    return MakeError(
        ErrorKind::kInvalidInput,
        ref.argument + " is a Delta table given by path: no catalog keeps it");
  }
  return arrow::Status::OK();
}

}  // namespace

arrow::Result<std::vector<CatalogTableEntry>> ListCatalogTables(
    const std::shared_ptr<iceberg::Catalog>& catalog, const iceberg::Namespace& ns) {
  std::vector<CatalogTableEntry> out;
  ARROW_ASSIGN_OR_RAISE(auto iceberg_tables, catalog->ListTables(ns));
  for (auto& id : iceberg_tables) out.push_back({std::move(id), TableFormat::kIceberg});
  ARROW_ASSIGN_OR_RAISE(auto delta_tables, DeltaTablesOf(catalog, ns));
  for (const auto& table : delta_tables) {
    out.push_back({iceberg::TableIdentifier{ns, table.table_name}, TableFormat::kDelta});
  }
  return out;
}

arrow::Status DropCatalogTable(const std::shared_ptr<iceberg::Catalog>& catalog,
                               const TableRef& ref) {
  ARROW_RETURN_NOT_OK(RefuseAPath(ref));
  if (ref.catalog_delta) return DropDeltaTable(catalog, *ref.catalog_delta);
  return catalog->DropTable(*ref.id);
}

arrow::Status RenameCatalogTable(const std::shared_ptr<iceberg::Catalog>& catalog,
                                 const TableRef& from,
                                 const iceberg::TableIdentifier& to) {
  ARROW_RETURN_NOT_OK(RefuseAPath(from));
  if (from.catalog_delta) return RenameDeltaTable(catalog, *from.catalog_delta, to);
  ARROW_ASSIGN_OR_RAISE(auto taken, FindDeltaTable(catalog, to));
  if (taken) {
    return MakeError(
        ErrorKind::kAlreadyExists,
        "table " + to.ToString() +
            " already exists in the catalog (a catalog-managed Delta table)");
  }
  return catalog->RenameTable(*from.id, to);
}

arrow::Status DropCatalogNamespace(const std::shared_ptr<iceberg::Catalog>& catalog,
                                   const iceberg::Namespace& ns) {
  ARROW_ASSIGN_OR_RAISE(auto delta_tables, DeltaTablesOf(catalog, ns));
  if (!delta_tables.empty()) {
    return MakeError(ErrorKind::kNamespaceNotEmpty,
                     "namespace " + iceberg::NamespaceToString(ns) +
                         " is not empty: it holds Delta table " +
                         delta_tables.front().table_name);
  }
  return catalog->DropNamespace(ns);
}

}  // namespace floe
