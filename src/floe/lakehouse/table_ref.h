// One way to name any table floe keeps, for every caller (the floe command, the Python
// package, a C++ program, the JNI layer): NAMESPACE.TABLE is looked up in the catalog (a
// catalog-managed Delta table of that name, else an Iceberg table), a path is a Delta
// table. The caller asks for the table once and learns its format from the answer;
// it never decides the format itself.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "arrow/result.h"
#include "floe/iceberg/catalog/catalog.h"
#include "floe/iceberg/table/table.h"
#include "floe/lakehouse/delta_tables.h"

namespace floe {

enum class TableFormat { kIceberg, kDelta };

/// "iceberg" or "delta".
std::string_view TableFormatName(TableFormat format);

/// A table as named, resolved to its format and where it lives; nothing of it is read
/// yet (a Delta table given by path need not exist: a create or write makes it).
struct TableRef {
  TableFormat format = TableFormat::kIceberg;
  /// As given: NAMESPACE.TABLE, or a Delta table's path.
  std::string argument;
  /// A Delta table given by its path (not by a name in the catalog).
  bool by_path = false;
  /// The name, parsed (a table named in the catalog).
  std::optional<iceberg::TableIdentifier> id;
  /// The catalog-managed Delta table of that name (a Delta table named in the catalog).
  std::optional<CatalogDeltaTable> catalog_delta;
  /// A Delta table's location: the path as TableRoot resolves it, or the catalog's.
  std::string delta_root;

  bool is_delta() const { return format == TableFormat::kDelta; }
};

/// Opens the catalog names resolve through; called only for a name, at most once.
using CatalogOpener = std::function<arrow::Result<std::shared_ptr<iceberg::Catalog>>()>;

/// True when `argument` names a table by its path (it holds a '/'), which is a Delta
/// table; otherwise it is NAMESPACE.TABLE.
bool IsTablePath(std::string_view argument);

/// Resolves `argument`: a path is a Delta table (no catalog is opened); a name is the
/// catalog's catalog-managed Delta table of that name when it keeps one, else its Iceberg
/// table of that name (not loaded: LoadTable reports NoSuchTable). InvalidInput for a
/// name that does not parse.
arrow::Result<TableRef> ResolveTable(const CatalogOpener& open_catalog,
                                     const std::string& argument);

/// Resolves the name `id` in `catalog` as ResolveTable resolves a name.
arrow::Result<TableRef> ResolveCatalogTable(
    const std::shared_ptr<iceberg::Catalog>& catalog, iceberg::TableIdentifier id);

/// The Iceberg table `ref` names, loaded from the catalog; InvalidInput naming the table
/// when `ref` is a Delta table.
arrow::Result<std::shared_ptr<iceberg::Table>> LoadIcebergTable(
    const CatalogOpener& open_catalog, const TableRef& ref);

/// A table a catalog keeps, of either format.
struct CatalogTableEntry {
  iceberg::TableIdentifier id;
  TableFormat format = TableFormat::kIceberg;
};

/// The tables directly in namespace `ns` of `catalog`: its Iceberg tables in the
/// catalog's order, then the catalog-managed Delta tables by name (only floe's SQL
/// catalog keeps those).
arrow::Result<std::vector<CatalogTableEntry>> ListCatalogTables(
    const std::shared_ptr<iceberg::Catalog>& catalog, const iceberg::Namespace& ns);

/// Removes the table `ref` names from `catalog`, whichever its format (its files stay); a
/// Delta table's ratified commits are published first. InvalidInput for a table given by
/// path, which no catalog keeps.
arrow::Status DropCatalogTable(const std::shared_ptr<iceberg::Catalog>& catalog,
                               const TableRef& ref);

/// Renames the table `from` names to `to`, whichever its format; AlreadyExists when `to`
/// is taken by a table of either format.
arrow::Status RenameCatalogTable(const std::shared_ptr<iceberg::Catalog>& catalog,
                                 const TableRef& from,
                                 const iceberg::TableIdentifier& to);

/// Drops the empty namespace `ns`: NamespaceNotEmpty naming a catalog-managed Delta table
/// it still holds (the Iceberg catalog does not see those), as for an Iceberg table.
arrow::Status DropCatalogNamespace(const std::shared_ptr<iceberg::Catalog>& catalog,
                                   const iceberg::Namespace& ns);

}  // namespace floe
