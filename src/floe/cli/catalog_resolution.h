// Which catalog a command talks to: --catalog/--warehouse/--catalog-name, the
// FLOE_CATALOG / FLOE_WAREHOUSE / FLOE_CATALOG_NAME environment, or the embedded default
// ./warehouse/.
#pragma once

#include <string>
#include <vector>

#include "floe/iceberg/catalog/catalog.h"

namespace floe::cli {

struct CatalogFlags {
  std::string uri;
  std::string warehouse;
  std::string name;
  /// --catalog-property KEY=VALUE, in order (later ones win).
  std::vector<std::string> properties;
};

/// What opening the catalog may create.
enum class CatalogAccess {
  /// A command that only reads: nothing is created. A local warehouse directory that
  /// does not exist is NotFound; the catalog opens with CatalogOptions::create false.
  kRead,
  /// Opening a catalog to work with (the Python package's Catalog): the catalog's
  /// database and tables are created when missing, and the warehouse directory given (or
  /// the default ./warehouse), but not the folder of an SQLite URI's database (a
  /// mistyped path is NotFound, not a new tree of folders).
  kOpen,
  /// A command that writes: the warehouse directory is created when needed.
  kWrite,
};

/// Fills what the flags leave empty from the environment, then from the defaults:
/// warehouse
/// ./warehouse (made absolute), catalog sqlite:////<warehouse>/catalog.db, name "floe". A
/// warehouse given as file:// stays a URI. What may be created follows `access`. A
/// catalog property not of the form KEY=VALUE gives InvalidInput (its text is not
/// echoed: it may hold a credential).
arrow::Result<iceberg::CatalogOptions> ResolveCatalog(const CatalogFlags& flags,
                                                      CatalogAccess access);

}  // namespace floe::cli
