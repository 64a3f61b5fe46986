// The `floe` command's subcommands. Each registers itself on the app and runs against the
// catalog the shared flags select.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "arrow/status.h"
#include "floe/cli/catalog_resolution.h"
#include "floe/cli/commands_delta.h"
#include "floe/delta/catalog/coordinator.h"
#include "floe/iceberg/catalog/catalog.h"
#include "floe/iceberg/table/table.h"
#include "floe/lakehouse/table_ref.h"

namespace floe::cli {

/// What every command shares: the catalog flags and a way to open the catalog.
struct CommandContext {
  CatalogFlags flags;
  /// Opens the selected catalog (once).
  arrow::Result<std::shared_ptr<iceberg::Catalog>> OpenCatalog();
  /// Parses `name` (NAMESPACE.TABLE) and loads that table from the selected catalog.
  arrow::Result<std::shared_ptr<iceberg::Table>> LoadTable(const std::string& name);
  /// The table `argument` names (NAMESPACE.TABLE in the selected catalog, or a Delta
  /// table's path), its format decided by the library (lakehouse/table_ref.h): the one
  /// way every command finds its table.
  arrow::Result<TableRef> ResolveTable(const std::string& argument);
  /// The Iceberg table `ref` names, loaded from the selected catalog.
  arrow::Result<std::shared_ptr<iceberg::Table>> LoadTable(const TableRef& ref);
  /// The storage properties of a table given by path: the --catalog-property values
  /// (InvalidInput for one not of the form KEY=VALUE, its text not echoed).
  arrow::Result<std::map<std::string, std::string>> PathStorage() const;
  /// The action of the subcommand that was chosen.
  std::function<arrow::Status()> action;
  /// The chosen command only reads (OnRead): opening the catalog creates nothing.
  bool read_only = false;

 private:
  std::shared_ptr<iceberg::Catalog> catalog_;
};

/// Adds the catalog flags to `command`, so they work before or after its arguments.
void AddCatalogFlags(CLI::App* command, CommandContext* context);

/// Adds subcommand `name` to `app`, with the catalog flags.
CLI::App* AddCommand(CLI::App& app, CommandContext* context, const std::string& name,
                     const std::string& description);

/// Makes `action` what runs when `command` is the one chosen.
void OnRun(CLI::App* command, CommandContext* context,
           std::function<arrow::Status()> action);
/// As OnRun, for a command that only reads: its catalog is opened without creating
/// anything (no warehouse folder, no database, no catalog tables).
void OnRead(CLI::App* command, CommandContext* context,
            std::function<arrow::Status()> action);

/// How every command that commits ends its line: " as snapshot <id> (<detail>)", with
/// ", committed on attempt <n>" inside the parentheses after a lost race, and a newline.
std::string CommittedAs(const iceberg::CommitReport& commit, const std::string& detail);

void RegisterTableCommands(
    CLI::App& app,
    CommandContext* context);  // create, append, delete, overwrite, scan, drop, rename
void RegisterInfoCommands(
    CLI::App& app,
    CommandContext* context);  // describe, snapshots, files, tables, namespaces
void RegisterMaintenanceCommands(
    CLI::App& app, CommandContext* context);  // explain-write, remove-orphans, expire

}  // namespace floe::cli
