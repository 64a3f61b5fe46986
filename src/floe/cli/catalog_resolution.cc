#include "floe/cli/catalog_resolution.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "floe/cli/flags.h"
#include "floe/util/env.h"
#include "floe/util/error.h"

namespace floe::cli {
namespace {

std::string FromEnvironment(const std::string& value, const char* variable) {
  if (!value.empty()) return value;
  return Env::Default()->GetVar(variable).value_or("");
}

// The local directory of a warehouse given as a path or file: URI ("" for other schemes).
std::string LocalDirectory(const std::string& warehouse) {
  if (warehouse.rfind("file://", 0) == 0) return warehouse.substr(7);
  if (warehouse.rfind("file:", 0) == 0) return warehouse.substr(5);
  if (warehouse.find("://") != std::string::npos) return "";
  return warehouse;
}

}  // namespace

arrow::Result<iceberg::CatalogOptions> ResolveCatalog(const CatalogFlags& flags,
                                                      CatalogAccess access) {
  iceberg::CatalogOptions options;
  options.uri = FromEnvironment(flags.uri, "FLOE_CATALOG");
  options.warehouse = FromEnvironment(flags.warehouse, "FLOE_WAREHOUSE");
  options.name = FromEnvironment(flags.name, "FLOE_CATALOG_NAME");
  if (options.name.empty()) options.name = "floe";
  ARROW_ASSIGN_OR_RAISE(options.properties,
                        ParseKeyValues(flags.properties, "--catalog-property"));
  const bool default_warehouse = options.warehouse.empty() && options.uri.empty();
  if (default_warehouse) options.warehouse = "warehouse";
  options.create = access != CatalogAccess::kRead;
  const bool warehouse_given = !options.warehouse.empty();
  if (options.warehouse.empty() && options.uri.rfind("sqlite:////", 0) == 0) {
    // An SQLite catalog without a warehouse keeps its tables next to its database file.
    std::string path = options.uri.substr(10);
    path.resize(std::min(path.size(), path.find('?')));
    options.warehouse = std::filesystem::path(path).parent_path().string();
  }
  if (!options.warehouse.empty()) {
    std::string local = LocalDirectory(options.warehouse);
    if (!local.empty()) {
      std::error_code error;
      std::filesystem::path absolute = std::filesystem::absolute(local, error);
      if (error) {
        return MakeError(ErrorKind::kInvalidInput,
                         "warehouse '" + options.warehouse + "' is not a usable path");
      }
      absolute = absolute.lexically_normal();
      std::string text = absolute.string();
      while (text.size() > 1 && text.back() == '/') text.pop_back();
      // Opening creates a warehouse named (or the default one), never the folder of a
      // database path that may be mistyped.
      const bool creates =
          access == CatalogAccess::kWrite ||
          (access == CatalogAccess::kOpen && (default_warehouse || warehouse_given));
      if (creates) {
        std::filesystem::create_directories(text, error);
        if (error) {
          return MakeError(
              ErrorKind::kInvalidInput,
              "cannot create warehouse directory " + text + ": " + error.message());
        }
      } else if (!std::filesystem::is_directory(text, error)) {
        return MakeError(ErrorKind::kNotFound,
                         "warehouse directory " + text + " does not exist" +
                             (access == CatalogAccess::kRead
                                  ? " (a command that only reads creates none)"
                                  : ""));
      }
      options.warehouse =
          options.warehouse.rfind("file:", 0) == 0 ? "file://" + text : text;
      if (options.uri.empty()) options.uri = "sqlite:///" + text + "/catalog.db";
    }
  }
  if (options.uri.empty()) {
    return MakeError(ErrorKind::kInvalidInput,
                     "no catalog: give --catalog (e.g. sqlite:////path/catalog.db) or a "
                     "local --warehouse");
  }
  return options;
}

}  // namespace floe::cli
