// The floe command: create, append to, scan and inspect Iceberg tables.
#include <csignal>
#include <cstdlib>
#include <iostream>

#include <csignal>

#include "arrow/compute/initialize.h"
#include "floe/cli/commands.h"
#include "floe/cli/flags.h"
#include "floe/io/s3_file_io.h"
#include "floe/util/cancel.h"
#include "floe/util/error.h"
#include "floe/util/secrets.h"
#include "floe/util/text.h"

namespace floe::cli {

arrow::Result<std::shared_ptr<iceberg::Catalog>> CommandContext::OpenCatalog() {
  if (catalog_) return catalog_;
  ARROW_ASSIGN_OR_RAISE(
      auto options,
      ResolveCatalog(flags, read_only ? CatalogAccess::kRead : CatalogAccess::kWrite));
  auto opened = iceberg::Catalog::Open(options);
  if (!opened.ok())
    return WithContext(opened.status(), "catalog " + RedactUri(options.uri));
  catalog_ = std::move(*opened);
  return catalog_;
}

arrow::Result<std::shared_ptr<iceberg::Table>> CommandContext::LoadTable(
    const std::string& name) {
  ARROW_ASSIGN_OR_RAISE(auto id, iceberg::TableIdentifier::Parse(name));
  ARROW_ASSIGN_OR_RAISE(auto catalog, OpenCatalog());
  return iceberg::Table::Load(catalog, id);
}

arrow::Result<TableRef> CommandContext::ResolveTable(const std::string& argument) {
  return floe::ResolveTable([this] { return OpenCatalog(); }, argument);
}

arrow::Result<std::shared_ptr<iceberg::Table>> CommandContext::LoadTable(
    const TableRef& ref) {
  return LoadIcebergTable([this] { return OpenCatalog(); }, ref);
}

arrow::Result<std::map<std::string, std::string>> CommandContext::PathStorage() const {
  return ParseKeyValues(flags.properties, "--catalog-property");
}

CLI::App* AddCommand(CLI::App& app, CommandContext* context, const std::string& name,
                     const std::string& description) {
  auto* command = app.add_subcommand(name, description);
  AddCatalogFlags(command, context);
  return command;
}

void OnRun(CLI::App* command, CommandContext* context,
           std::function<arrow::Status()> action) {
  command->callback([context, action = std::move(action)] { context->action = action; });
}

void OnRead(CLI::App* command, CommandContext* context,
            std::function<arrow::Status()> action) {
  command->callback([context, action = std::move(action)] {
    context->read_only = true;
    context->action = action;
  });
}

std::string CommittedAs(const iceberg::CommitReport& commit, const std::string& detail) {
  std::string text =
      " as snapshot " + std::to_string(commit.snapshot->snapshot_id) + " (" + detail;
  if (commit.attempts > 1)
    text += ", committed on attempt " + std::to_string(commit.attempts);
  return text + ")\n";
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

namespace {

// SIGINT and SIGTERM ask the running command to stop at its next safe point (a write
// deletes what it wrote and commits nothing); a second one ends the process at once.
extern "C" void OnStopSignal(int signal) {
  if (floe::CancelRequested()) {
    std::signal(signal, SIG_DFL);
    std::raise(signal);
    return;
  }
  floe::RequestCancel(signal);
}

void InstallSignalHandlers() {
  struct sigaction action {};
  action.sa_handler = OnStopSignal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;  // no SA_RESTART: a blocking read returns EINTR and is rechecked
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  // A file-size limit (ulimit -f) makes a write fail with EFBIG, which the writer reports
  // and cleans up after, instead of killing the process mid-file.
  std::signal(SIGXFSZ, SIG_IGN);
}

// The error text: the message, plus what a library attached (an errno, say) when it is
// not floe's own kind; control characters escaped, since names and paths come from
// catalogs and files.
std::string ErrorText(const arrow::Status& status) {
  std::string message = status.message();
  if (status.detail() && floe::KindOf(status) == floe::ErrorKind::kUnknown) {
    std::string detail = status.detail()->ToString();
    if (!detail.empty() && message.find(detail) == std::string::npos)
      message += " (" + detail + ")";
  }
  for (auto& c : message) {
    if (c == '\n') c = ' ';  // one line, as before; other controls are escaped
  }
  return floe::Printable(message);
}

}  // namespace

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
  } catch (...) {
    std::cerr << "floe: error: "
              << ErrorText(floe::StatusFromCurrentException("reading the arguments"))
              << "\n";
    return 2;
  }
  if (!arrow::compute::Initialize().ok()) {
    std::cerr << "floe: error: cannot initialise Arrow compute functions\n";
    return 1;
  }
  InstallSignalHandlers();
  // No exception ends the process: one that escapes a command (a bug) is an error like
  // any other, after the stack unwound and its guards deleted what they own.
  arrow::Status status;
  try {
    if (context.action) status = context.action();
  } catch (...) {
    status = floe::StatusFromCurrentException("the floe command");
  }
  context.action = nullptr;  // the catalogs and FileIOs it held go first
  floe::FinalizeStorage();
  const int signal = floe::CancelSignal();
  if (!status.ok()) {
    floe::ErrorKind kind = floe::KindOf(status);
    if (kind == floe::ErrorKind::kCancelled && signal != 0) {
      std::cerr << "floe: cancelled by " << (signal == SIGINT ? "SIGINT" : "SIGTERM")
                << ": " << ErrorText(status) << "\n";
      return 128 + signal;
    }
    std::cerr << "floe: error: " << ErrorText(status);
    if (kind != floe::ErrorKind::kUnknown)
      std::cerr << " [" << floe::ErrorKindName(kind) << "]";
    std::cerr << "\n";
    return 1;
  }
  if (signal != 0) {
    std::cerr << "floe: the " << (signal == SIGINT ? "SIGINT" : "SIGTERM")
              << " came after the command's commit point; it completed\n";
  }
  return 0;
}
