// explain-write, remove-orphans.
#include <iostream>

#include "floe/cli/commands.h"
#include "floe/table/maintenance.h"
#include "floe/table/table.h"
#include "floe/util/date_time.h"
#include "floe/util/duration.h"
#include "floe/util/error.h"

namespace floe::cli {

void RegisterMaintenanceCommands(CLI::App& app, CommandContext* context) {
  {
    auto* command = app.add_subcommand(
        "explain-write",
        "Say whether floe writes this table as iceberg-java would, and if not why");
    AddCatalogFlags(command, context);
    auto table = std::make_shared<std::string>();
    auto options = std::make_shared<std::vector<std::string>>();
    command->add_option("table", *table, "NAMESPACE.TABLE")->required();
    command->add_option("--option", *options,
                        "Write option KEY=VALUE (repeatable), as for append");
    command->callback([=] {
      context->action = [=]() -> arrow::Status {
        ARROW_ASSIGN_OR_RAISE(auto id, TableIdentifier::Parse(*table));
        ARROW_ASSIGN_OR_RAISE(auto catalog, context->OpenCatalog());
        ARROW_ASSIGN_OR_RAISE(auto loaded, Table::Load(catalog, id));
        PropertyMap overlay;
        for (const auto& pair : *options) {
          size_t equals = pair.find('=');
          if (equals == std::string::npos || equals == 0) {
            return MakeError(ErrorKind::kInvalidInput, "--option expects KEY=VALUE");
          }
          overlay[pair.substr(0, equals)] = pair.substr(equals + 1);
        }
        GateResult result = loaded->ExplainWrite(overlay);
        if (result.supported()) {
          std::cout << "supported: floe writes " << id.ToString()
                    << " as iceberg-java would\n";
        } else {
          std::cout << "unsupported: floe declines to write " << id.ToString() << ":\n";
          for (const auto& reason : result.reasons) std::cout << "  - " << reason << "\n";
        }
        return arrow::Status::OK();
      };
    });
  }
  {
    auto* command = app.add_subcommand(
        "remove-orphans",
        "Delete files under the table location that the table does not reference");
    AddCatalogFlags(command, context);
    auto table = std::make_shared<std::string>();
    auto older_than = std::make_shared<std::string>("3d");
    auto dry_run = std::make_shared<bool>(false);
    command->add_option("table", *table, "NAMESPACE.TABLE")->required();
    command->add_option(
        "--older-than", *older_than,
        "Only files last modified longer ago than this (default 3d; protects "
        "commits in flight)");
    command->add_flag("--dry-run", *dry_run,
                      "List the orphan files without deleting them");
    command->callback([=] {
      context->action = [=]() -> arrow::Status {
        ARROW_ASSIGN_OR_RAISE(auto id, TableIdentifier::Parse(*table));
        ARROW_ASSIGN_OR_RAISE(int64_t older_than_ms, ParseDurationMs(*older_than));
        ARROW_ASSIGN_OR_RAISE(auto catalog, context->OpenCatalog());
        ARROW_ASSIGN_OR_RAISE(auto loaded, Table::Load(catalog, id));
        ARROW_ASSIGN_OR_RAISE(auto report,
                              RemoveOrphanFiles(*loaded, older_than_ms, *dry_run));
        int64_t bytes = 0;
        for (const auto& orphan : report.orphans) {
          std::cout << (*dry_run ? "orphan " : "deleted ") << orphan.location << "  "
                    << orphan.size << " bytes  modified "
                    << FormatIsoDateTime(orphan.modified_ms * 1000, 1000000) << "Z\n";
          bytes += orphan.size;
        }
        std::cout << "(" << report.orphans.size() << " orphan files, " << bytes
                  << " bytes" << (*dry_run ? ", not deleted (dry run)" : "") << "; "
                  << report.listed << " files listed, " << report.referenced
                  << " referenced, " << report.too_recent
                  << " unreferenced but newer than " << *older_than << " kept";
        if (report.delete_failures > 0)
          std::cout << "; " << report.delete_failures << " could not be deleted";
        std::cout << ")\n";
        return arrow::Status::OK();
      };
    });
  }
}

}  // namespace floe::cli
