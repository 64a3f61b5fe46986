// explain-write, remove-orphans, expire, vacuum.
#include <iostream>
#include <sstream>

#include "floe/cli/commands.h"
#include "floe/cli/flags.h"
#include "floe/iceberg/table/maintenance.h"
#include "floe/iceberg/table/orphan_files.h"
#include "floe/iceberg/table/table.h"
#include "floe/iceberg/write/row_sorter.h"
#include "floe/iceberg/write/write_plan.h"
#include "floe/task/write_driver.h"
#include "floe/util/date_time.h"
#include "floe/util/duration.h"
#include "floe/util/error.h"
#include "floe/util/text.h"

namespace floe::cli {
namespace {

// How an append would write the table: computed values only, never a property's text.
std::string DescribePlan(const iceberg::WritePlan& plan) {
  std::ostringstream out;
  out << "  writer: ";
  if (plan.sorts_rows()) {
    out << (plan.mode == WriterMode::kUnpartitioned ? "unpartitioned" : "clustered")
        << ", after each task sorts its rows by sort order " << plan.sort_order->order_id
        << (plan.spec->IsUnpartitioned() ? "" : " within partitions")
        << "; a task holds up to "
        << (plan.task_sort_run_bytes > 0 ? plan.task_sort_run_bytes
                                         : iceberg::RowSorter::kDefaultRunBytes)
        << " bytes of rows (a quarter of its share of --memory-limit when given) and "
           "spills sorted runs past that to TMPDIR, merged at the end\n";
  } else if (plan.mode == WriterMode::kUnpartitioned) {
    out << "unpartitioned\n";
  } else if (plan.mode == WriterMode::kFanout &&
             iceberg::properties::kSparkFanoutEnabled.Get(plan.properties)) {
    out << "fanout (write.spark.fanout.enabled)\n";
  } else {
    out << "fanout, or clustered when the input is declared grouped by partition "
           "(--input-clustered)\n";
  }
  if (plan.distribution == iceberg::Distribution::kBySortKey) {
    out << "  tasks (--threads): the rows are split by sort key, each task writing one "
           "key range gathered from every task's rows, as under Spark's range "
           "distribution (write.distribution-mode)\n";
  } else if (plan.sorts_rows() && plan.spec->IsUnpartitioned()) {
    out << "  tasks (--threads): each task sorts and writes the rows it gets, so tasks' "
           "files overlap in key range, as under write.distribution-mode none or hash\n";
  }
  if (!plan.spec->IsUnpartitioned()) {
    out << "  tasks (--threads): "
        << (plan.distribution == iceberg::Distribution::kByPartition
                ? "each partition is written by one task, as under Spark's hash or range "
                  "distribution (write.distribution-mode)\n"
                : "every task writes the partitions of the rows it gets, as under "
                  "write.distribution-mode none\n");
  }
  const int tasks = DefaultWriteTasks(/*memory_limit=*/0);
  out << "  tasks: " << tasks
      << " by default (one per core; under --memory-limit, at most"
      << " one per " << (kMinDefaultTaskMemory >> 20) << " MiB of it)";
  if (plan.distribution != iceberg::Distribution::kByPartition) {
    out << ", each after the first starting once the input has " << kDefaultTaskRows
        << " rows for every task running";
  }
  out << "; --threads N runs N\n";
  const ParquetSettings& parquet = plan.parquet;
  out << "  files: roll at " << plan.target_file_size_bytes << " bytes; row groups of "
      << parquet.row_group_size_bytes << " bytes; pages of " << parquet.page_size_bytes
      << " bytes or " << parquet.page_row_limit << " rows; " << parquet.codec;
  if (parquet.compression_level) {
    out << " level " << *parquet.compression_level;
  } else if (parquet.codec == "zstd" || parquet.codec == "gzip" ||
             parquet.codec == "brotli") {
    out << " at its default level";
  }
  out << "\n";
  return out.str();
}

// floe explain-write
void RegisterExplainWriteCommand(CLI::App& app, CommandContext* context) {
  auto* command = AddCommand(
      app, context, "explain-write",
      "Say whether floe writes this table as iceberg-java would, and if not why");
  auto table = std::make_shared<std::string>();
  auto options = std::make_shared<std::vector<std::string>>();
  command->add_option("table", *table, "NAMESPACE.TABLE")->required();
  command->add_option("--option", *options,
                      "Write option KEY=VALUE (repeatable), as for append");
  OnRead(command, context, [=]() -> arrow::Status {
    ARROW_ASSIGN_OR_RAISE(auto loaded, context->LoadTable(*table));
    const iceberg::TableIdentifier& id = loaded->id();
    ARROW_ASSIGN_OR_RAISE(iceberg::PropertyMap overlay,
                          ParseKeyValues(*options, "--option"));
    iceberg::GateResult result = loaded->ExplainWrite(overlay);
    if (result.supported()) {
      std::cout << "supported: floe writes " << id.ToString()
                << " as iceberg-java would\n";
      ARROW_ASSIGN_OR_RAISE(auto plan,
                            iceberg::WritePlan::Make(*loaded->metadata(), overlay));
      std::cout << DescribePlan(*plan);
    } else {
      std::cout << "unsupported: floe declines to write " << id.ToString() << ":\n";
      for (const auto& reason : result.reasons)
        std::cout << "  - " << Printable(reason) << "\n";
    }
    return arrow::Status::OK();
  });
}

// floe remove-orphans
void RegisterRemoveOrphansCommand(CLI::App& app, CommandContext* context) {
  auto* command = AddCommand(
      app, context, "remove-orphans",
      "Delete files in the table's data and metadata folders that nothing references");
  auto table = std::make_shared<std::string>();
  auto older_than = std::make_shared<std::string>("3d");
  auto dry_run = std::make_shared<bool>(false);
  auto any_name = std::make_shared<bool>(false);
  auto no_concurrent_writes = std::make_shared<bool>(false);
  command->add_option("table", *table, "NAMESPACE.TABLE")->required();
  command->add_option(
      "--older-than", *older_than,
      "Only files last modified longer ago than this (default 3d, at least 24h; "
      "protects commits in flight)");
  command->add_flag("--no-concurrent-writes", *no_concurrent_writes,
                    "No write to the table is running: allow an --older-than under 24h "
                    "(a running write's files would be deleted and its commit fail)");
  command->add_flag("--dry-run", *dry_run, "List the orphan files without deleting them");
  command->add_flag("--any-name", *any_name,
                    "Also delete unreferenced files whose names Iceberg writers never "
                    "give (by default they are kept and counted)");
  OnRun(command, context, [=]() -> arrow::Status {
    ARROW_ASSIGN_OR_RAISE(auto id, iceberg::TableIdentifier::Parse(*table));
    iceberg::RemoveOrphanFilesOptions options;
    ARROW_ASSIGN_OR_RAISE(options.older_than_ms, ParseDurationMs(*older_than));
    options.dry_run = *dry_run;
    options.any_name = *any_name;
    options.no_concurrent_writes = *no_concurrent_writes;
    ARROW_ASSIGN_OR_RAISE(auto catalog, context->OpenCatalog());
    ARROW_ASSIGN_OR_RAISE(auto loaded, iceberg::Table::Load(catalog, id));
    ARROW_ASSIGN_OR_RAISE(auto report, iceberg::RemoveOrphanFiles(*loaded, options));
    int64_t bytes = 0;
    for (const auto& orphan : report.orphans) {
      std::cout << (*dry_run ? "orphan " : "deleted ") << Printable(orphan.location)
                << "  " << orphan.size << " bytes  modified "
                << FormatIsoDateTime(orphan.modified_ms, 1000) << "Z\n";
      bytes += orphan.size;
    }
    std::cout << "(" << report.orphans.size() << " orphan files, " << bytes << " bytes"
              << (*dry_run ? ", not deleted (dry run)" : "") << "; " << report.listed
              << " files listed in";
    for (const auto& folder : report.folders) std::cout << " " << Printable(folder);
    std::cout << ", " << report.referenced << " referenced, " << report.too_recent
              << " unreferenced but newer than " << *older_than << " kept";
    if (report.unrecognised > 0) {
      std::cout << ", " << report.unrecognised
                << " kept whose names Iceberg writers never give (--any-name)";
    }
    if (report.hidden > 0) std::cout << ", " << report.hidden << " hidden kept";
    if (report.symbolic_links > 0)
      std::cout << ", " << report.symbolic_links << " symbolic links not followed";
    if (report.other_tables > 0) {
      std::cout << ", " << report.other_tables
                << " kept that other tables or the catalog own";
    }
    if (report.delete_failures > 0)
      std::cout << "; " << report.delete_failures << " could not be deleted";
    std::cout << ")\n";
    return arrow::Status::OK();
  });
}

// floe expire
void RegisterExpireCommand(CLI::App& app, CommandContext* context) {
  auto* command = AddCommand(
      app, context, "expire",
      "Expire old snapshots and delete the files only they reached (iceberg-java's "
      "ExpireSnapshots)");
  auto table = std::make_shared<std::string>();
  auto older_than = std::make_shared<std::string>();
  auto retain_last = std::make_shared<int>(0);
  auto snapshot_ids = std::make_shared<std::vector<int64_t>>();
  auto dry_run = std::make_shared<bool>(false);
  auto keep_files = std::make_shared<bool>(false);
  command->add_option("table", *table, "NAMESPACE.TABLE")->required();
  command->add_option("--older-than", *older_than,
                      "Expire snapshots older than this, e.g. 7d (default: the table's "
                      "history.expire.max-snapshot-age-ms, else 5 days)");
  auto* retain_option =
      command->add_option("--retain-last", *retain_last,
                          "Keep at least this many snapshots of each branch (default: "
                          "history.expire.min-snapshots-to-keep, else 1)");
  command->add_option("--snapshot", *snapshot_ids,
                      "Also expire this snapshot id (repeatable)");
  command->add_flag("--dry-run", *dry_run,
                    "Say what would expire and be deleted; change nothing");
  command->add_flag("--keep-files", *keep_files,
                    "Expire the snapshots but delete no files");
  OnRun(command, context, [=]() -> arrow::Status {
    ARROW_ASSIGN_OR_RAISE(auto id, iceberg::TableIdentifier::Parse(*table));
    iceberg::ExpireSnapshotsOptions options;
    if (!older_than->empty()) {
      ARROW_ASSIGN_OR_RAISE(options.older_than_ms, ParseDurationMs(*older_than));
    }
    // Given, even as 0 (refused: a branch keeps at least one), never read as "unset".
    if (retain_option->count() > 0) options.retain_last = *retain_last;
    options.snapshot_ids = *snapshot_ids;
    options.dry_run = *dry_run;
    options.clean_files = !*keep_files;
    ARROW_ASSIGN_OR_RAISE(auto catalog, context->OpenCatalog());
    ARROW_ASSIGN_OR_RAISE(auto loaded, iceberg::Table::Load(catalog, id));
    ARROW_ASSIGN_OR_RAISE(auto report, iceberg::ExpireSnapshots(*loaded, options));
    const char* verb = *dry_run ? "would expire" : "expired";
    for (int64_t snapshot_id : report.expired)
      std::cout << verb << " snapshot " << snapshot_id << "\n";
    for (const auto& ref : report.removed_refs)
      std::cout << (*dry_run ? "would remove" : "removed") << " ref " << Printable(ref)
                << "\n";
    const char* deleted = *dry_run ? "would delete" : "deleted";
    for (const auto& [kind, files] :
         {std::pair{"data file", &report.data_files},
          std::pair{"manifest", &report.manifests},
          std::pair{"manifest list", &report.manifest_lists},
          std::pair{"statistics file", &report.statistics_files}}) {
      for (const auto& file : *files)
        std::cout << deleted << " " << kind << " " << Printable(file) << "\n";
    }
    for (const auto& file : report.kept_outside)
      std::cout << "kept (not the table's own) " << Printable(file) << "\n";
    std::cout << "expired=" << report.expired.size()
              << " data_files=" << report.data_files.size()
              << " manifests=" << report.manifests.size()
              << " manifest_lists=" << report.manifest_lists.size()
              << " statistics_files=" << report.statistics_files.size()
              << " kept_outside=" << report.kept_outside.size()
              << " delete_failures=" << report.delete_failures
              << " attempts=" << report.attempts << (*dry_run ? " (dry run)" : "")
              << "\n";
    if (!report.cleanup_error.empty()) {
      std::cerr << "warning: the snapshots expired but no file was deleted: "
                << report.cleanup_error
                << " (floe remove-orphans can collect them later)\n";
    }
    return arrow::Status::OK();
  });
}

// floe vacuum (Delta tables)
void RegisterVacuumCommand(CLI::App& app, CommandContext* context) {
  auto* command = AddCommand(
      app, context, "vacuum",
      "Delete a Delta table's data files no version within the retention period needs");
  auto table = std::make_shared<std::string>();
  auto retain = std::make_shared<std::string>();
  auto dry_run = std::make_shared<bool>(false);
  auto any_name = std::make_shared<bool>(false);
  auto unchecked = std::make_shared<bool>(false);
  command->add_option("table", *table, "The path of a Delta table")->required();
  command->add_option("--retain", *retain,
                      "Keep files removed within this long, e.g. 168h (default: the "
                      "table's delta.deletedFileRetentionDuration, a week)");
  command->add_flag("--dry-run", *dry_run, "List what would be deleted; delete nothing");
  command->add_flag("--any-name", *any_name,
                    "Also delete unreferenced files whose names Delta writers never give "
                    "data files");
  command->add_flag("--no-retention-check", *unchecked,
                    "Allow a --retain shorter than the table's retention (readers of "
                    "recent versions and running writers may still need those files)");
  OnRun(command, context, [=]() -> arrow::Status {
    ARROW_ASSIGN_OR_RAISE(auto ref, context->ResolveTable(*table));
    if (!ref.by_path) {
      if (ref.catalog_delta) {
        return MakeError(ErrorKind::kInvalidInput,
                         "Delta table " + *table +
                             " is catalog-managed: the protocol allows vacuum only where "
                             "its catalog permits it, and floe's catalog permits none");
      }
      return MakeError(ErrorKind::kInvalidInput,
                       "vacuum takes the path of a Delta table; an Iceberg table's "
                       "unreferenced files go with floe remove-orphans and floe expire");
    }
    std::optional<int64_t> retention;
    if (!retain->empty()) {
      ARROW_ASSIGN_OR_RAISE(retention, ParseDurationMs(*retain));
    }
    ARROW_ASSIGN_OR_RAISE(auto storage, context->PathStorage());
    return VacuumDelta(*table, storage, retention, *dry_run, *any_name, !*unchecked);
  });
}

}  // namespace

void RegisterMaintenanceCommands(CLI::App& app, CommandContext* context) {
  RegisterExplainWriteCommand(app, context);
  RegisterRemoveOrphansCommand(app, context);
  RegisterExpireCommand(app, context);
  RegisterVacuumCommand(app, context);
}

}  // namespace floe::cli
