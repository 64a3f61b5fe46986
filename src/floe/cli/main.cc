// The floe command: create, append to, scan and inspect Iceberg tables.
#include <cstdlib>
#include <iostream>

#include "arrow/compute/initialize.h"
#include "floe/cli/commands.h"
#include "floe/util/error.h"

namespace floe::cli {

arrow::Result<std::shared_ptr<Catalog>> CommandContext::OpenCatalog() {
  if (catalog_) return catalog_;
  ARROW_ASSIGN_OR_RAISE(auto options, ResolveCatalog(flags));
  auto opened = Catalog::Open(options);
  if (!opened.ok())
    return WithContext(opened.status(), "catalog " + RedactUri(options.uri));
  catalog_ = std::move(*opened);
  return catalog_;
}

void AddCatalogFlags(CLI::App* command, CommandContext* context) {
  command->add_option(
      "--catalog", context->flags.uri,
      "Catalog URI: sqlite:////abs/path/catalog.db, postgresql://user@host:port/db, "
      "hadoop:///abs/warehouse, memory or http(s)://rest-server:port/ (env "
      "FLOE_CATALOG)");
  command->add_option(
      "--warehouse", context->flags.warehouse,
      "Warehouse directory or file:// URI (env FLOE_WAREHOUSE; default ./warehouse)");
  command->add_option(
      "--catalog-name", context->flags.name,
      "Catalog name in the SQL catalog tables (env FLOE_CATALOG_NAME; default floe)");
  command->add_option(
      "--catalog-property", context->flags.properties,
      "Catalog property KEY=VALUE (repeatable), e.g. credentials for the catalog "
      "or its storage; never printed");
}

}  // namespace floe::cli

int main(int argc, char** argv) {
  // Arrow's default pool in the pyarrow wheel is mimalloc, which returns freed pages to
  // the kernel and faults them in again; a fanout write (hundreds of open Parquet
  // writers) ran twice as fast on jemalloc. A user's own ARROW_DEFAULT_MEMORY_POOL still
  // wins.
  setenv("ARROW_DEFAULT_MEMORY_POOL", "jemalloc", /*overwrite=*/0);
  CLI::App app{"floe: write, commit and read Apache Iceberg tables"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "floe " FLOE_VERSION);
  floe::cli::CommandContext context;
  // The catalog flags work before the command name too ("floe --warehouse w scan t").
  floe::cli::AddCatalogFlags(&app, &context);
  floe::cli::RegisterTableCommands(app, &context);
  floe::cli::RegisterInfoCommands(app, &context);
  floe::cli::RegisterMaintenanceCommands(app, &context);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    int code = app.exit(error);
    return code == 0 ? 0 : 2;
  }
  if (!arrow::compute::Initialize().ok()) {
    std::cerr << "floe: error: cannot initialise Arrow compute functions\n";
    return 1;
  }
  auto status = context.action ? context.action() : arrow::Status::OK();
  if (!status.ok()) {
    std::string message = status.message();
    for (auto& c : message) {
      if (c == '\n') c = ' ';
    }
    std::cerr << "floe: error: " << message;
    floe::ErrorKind kind = floe::KindOf(status);
    if (kind != floe::ErrorKind::kUnknown)
      std::cerr << " [" << floe::ErrorKindName(kind) << "]";
    std::cerr << "\n";
    return 1;
  }
  return 0;
}
