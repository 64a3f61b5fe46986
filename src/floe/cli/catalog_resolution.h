// Which catalog a command talks to: --catalog/--warehouse/--catalog-name, the
// FLOE_CATALOG / FLOE_WAREHOUSE / FLOE_CATALOG_NAME environment, or the embedded default
// ./warehouse/.
#pragma once

#include <string>
#include <vector>

#include "floe/catalog/catalog.h"

namespace floe::cli {

struct CatalogFlags {
  std::string uri;
  std::string warehouse;
  std::string name;
  /// --catalog-property KEY=VALUE, in order (later ones win).
  std::vector<std::string> properties;
};

/// Fills what the flags leave empty from the environment, then from the defaults:
/// warehouse
/// ./warehouse (made absolute), catalog sqlite:////<warehouse>/catalog.db, name "floe". A
/// warehouse given as file:// stays a URI. The warehouse directory is created when
/// needed. A catalog property not of the form KEY=VALUE gives InvalidInput (its text is
/// not echoed: it may hold a credential).
arrow::Result<CatalogOptions> ResolveCatalog(const CatalogFlags& flags);

}  // namespace floe::cli
