// Catalog-managed Delta tables in floe's SQL catalog, for every caller (the floe command,
// the Python package, a C++ program): finding one by NAMESPACE.TABLE, creating one (its
// name checked against the catalog's Iceberg tables, its namespace created as for an
// Iceberg table), dropping and renaming one; and a Delta table's path as floe resolves
// it. The commit protocol itself is floe::delta's (delta/catalog/); this layer, above
// both formats, joins it to the catalog the names live in.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "arrow/type.h"
#include "floe/delta/catalog/catalog_committer.h"
#include "floe/delta/catalog/coordinator.h"
#include "floe/iceberg/catalog/catalog.h"

namespace floe {

/// A catalog-managed Delta table found in a catalog.
struct CatalogDeltaTable {
  std::string name;  ///< NAMESPACE.TABLE
  std::string root;  ///< Its location.
  /// Its files' FileIO, configured as the catalog's own (SqlCatalog::FileIOFor).
  std::shared_ptr<FileIO> io;
  std::shared_ptr<delta::CatalogCommitter> committer;
  delta::RegisteredDeltaTable registered;
};

/// The Delta commit coordinator in `catalog`'s database (its tables created when
/// `create_tables`); InvalidInput when `catalog` is not floe's SQL catalog, the only one
/// that keeps Delta tables.
arrow::Result<std::shared_ptr<delta::SqlCommitCoordinator>> DeltaCoordinatorOf(
    const std::shared_ptr<iceberg::Catalog>& catalog, bool create_tables);

/// The catalog-managed Delta table `id` of `catalog`; nullopt when it has none of that
/// name, or keeps no Delta tables (a REST or filesystem catalog).
arrow::Result<std::optional<CatalogDeltaTable>> FindDeltaTable(
    const std::shared_ptr<iceberg::Catalog>& catalog, const iceberg::TableIdentifier& id);

/// Creates the catalog-managed Delta table `id` at `location` (default: the catalog's
/// location for the name) with `schema` (Delta's types), `partition_columns` and
/// `properties`. AlreadyExists when the name is taken by an Iceberg or a Delta table. The
/// namespace is created when missing (and dropped again if the create fails);
/// `created_namespace` says whether it was.
arrow::Result<CatalogDeltaTable> CreateDeltaTable(
    const std::shared_ptr<iceberg::Catalog>& catalog, const iceberg::TableIdentifier& id,
    const arrow::Schema& schema, const std::vector<std::string>& partition_columns,
    const std::map<std::string, std::string>& properties, const std::string& location,
    bool* created_namespace = nullptr);

/// Drops the catalog-managed Delta table `table` from `catalog`: its ratified commits are
/// published first (a failure refuses the drop), then its registration and commit rows
/// go. Its files stay (and, catalog-managed, can no longer be read by path).
arrow::Status DropDeltaTable(const std::shared_ptr<iceberg::Catalog>& catalog,
                             const CatalogDeltaTable& table);

/// Renames the catalog-managed Delta table `from` to `to`: AlreadyExists when `to` is an
/// Iceberg or a Delta table, NoSuchNamespace when its namespace does not exist.
arrow::Status RenameDeltaTable(const std::shared_ptr<iceberg::Catalog>& catalog,
                               const CatalogDeltaTable& from,
                               const iceberg::TableIdentifier& to);

/// A Delta table's path as floe resolves it, for the command and the Python package
/// alike: a local path made absolute (from the working directory) and normalised, a URI
/// as given; no trailing slash.
std::string TableRoot(const std::string& argument);

}  // namespace floe
