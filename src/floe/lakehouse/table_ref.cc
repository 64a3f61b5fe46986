#include "floe/lakehouse/table_ref.h"

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

}  // namespace floe
