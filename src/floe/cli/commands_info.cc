// describe, snapshots, files, tables, namespaces.
#include <iostream>

#include "floe/cli/commands.h"
#include "floe/cli/commands_delta.h"
#include "floe/cli/flags.h"
#include "floe/cli/output.h"
#include "floe/iceberg/manifest/manifest.h"
#include "floe/iceberg/scan/table_scan.h"
#include "floe/iceberg/table/table.h"
#include "floe/iceberg/transform/partition_path.h"
#include "floe/util/date_time.h"
#include "floe/util/error.h"
#include "floe/util/secrets.h"
#include "floe/util/text.h"

namespace floe::cli {
namespace {

std::string TimeText(int64_t millis) { return FormatIsoDateTime(millis, 1000) + "Z"; }

void PrintFields(const std::vector<NestedField>& fields, int depth) {
  for (const auto& field : fields) {
    std::string indent(static_cast<size_t>(depth) * 2, ' ');
    std::string type = field.type->is_primitive()            ? field.type->ToString()
                       : field.type->id() == TypeId::kStruct ? "struct"
                       : field.type->id() == TypeId::kList   ? "list"
                                                             : "map";
    std::cout << "  " << indent << field.id << "  " << Printable(field.name) << "  "
              << type << (field.required ? "  required" : "")
              << (field.doc.empty() ? "" : "  -- " + Printable(field.doc)) << "\n";
    if (field.type->id() == TypeId::kStruct) {
      PrintFields(static_cast<const StructType&>(*field.type).fields(), depth + 1);
    } else if (field.type->id() == TypeId::kList) {
      PrintFields({static_cast<const ListType&>(*field.type).element()}, depth + 1);
    } else if (field.type->id() == TypeId::kMap) {
      const auto& map = static_cast<const MapType&>(*field.type);
      PrintFields({map.key(), map.value()}, depth + 1);
    }
  }
}

std::string SpecText(const iceberg::PartitionSpec& spec, const Schema& schema) {
  if (spec.fields().empty()) return "unpartitioned";
  std::string text;
  for (const auto& field : spec.fields()) {
    if (!text.empty()) text += ", ";
    std::string source =
        schema.FindColumnName(field.source_id).value_or(std::to_string(field.source_id));
    text += field.name + "=" + field.transform.ToString() + "(" + source + ") [" +
            std::to_string(field.field_id) + "]";
  }
  return text;
}

// floe describe
void RegisterDescribeCommand(CLI::App& app, CommandContext* context) {
  auto* command = AddCommand(app, context, "describe",
                             "Show a table's schema, spec, properties and state");
  auto table = std::make_shared<std::string>();
  command->add_option("table", *table, "NAMESPACE.TABLE, or the path of a Delta table")
      ->required();
  OnRead(command, context, [=]() -> arrow::Status {
    ARROW_ASSIGN_OR_RAISE(auto ref, context->ResolveTable(*table));
    if (ref.by_path) {
      ARROW_ASSIGN_OR_RAISE(auto storage, context->PathStorage());
      return DescribeDelta(*table, storage);
    }
    if (ref.catalog_delta) return DescribeDelta(*table, {}, &*ref.catalog_delta);
    ARROW_ASSIGN_OR_RAISE(auto loaded, context->LoadTable(ref));
    const auto& metadata = *loaded->metadata();
    auto schema = metadata.CurrentSchema();
    std::cout << "table           " << Printable(loaded->id().ToString()) << "\n"
              << "location        " << Printable(metadata.location) << "\n"
              << "metadata        " << Printable(loaded->state().metadata_location)
              << "\n"
              << "uuid            " << Printable(metadata.table_uuid) << "\n"
              << "format version  " << metadata.format_version << "\n"
              << "last updated    " << TimeText(metadata.last_updated_ms) << "\n";
    if (auto current = metadata.CurrentSnapshot()) {
      std::cout << "current snapshot " << current->snapshot_id << " ("
                << Printable(current->summary.operation) << " at "
                << TimeText(current->timestamp_ms) << ", "
                << current->summary.Get("total-records").value_or("?") << " records, "
                << current->summary.Get("total-data-files").value_or("?")
                << " data files)\n";
    } else {
      std::cout << "current snapshot none\n";
    }
    std::cout << "schema " << schema->schema_id() << ":\n";
    PrintFields(schema->fields(), 0);
    if (!schema->identifier_field_ids().empty()) {
      std::cout << "identifier fields:";
      for (int id : schema->identifier_field_ids())
        std::cout << " " << Printable(schema->FindColumnName(id).value_or("?"));
      std::cout << "\n";
    }
    std::cout << "partition spec " << metadata.default_spec_id << ": "
              << Printable(SpecText(*metadata.DefaultSpec(), *schema)) << "\n";
    auto order = metadata.DefaultSortOrder();
    std::cout << "sort order " << order->order_id << ": ";
    if (order->IsUnsorted()) std::cout << "unsorted";
    for (size_t i = 0; i < order->fields.size(); ++i) {
      const auto& field = order->fields[i];
      std::cout << (i ? ", " : "") << field.transform.ToString() << "("
                << Printable(schema->FindColumnName(field.source_id).value_or("?"))
                << ") "
                << (field.direction == iceberg::SortDirection::kAscending ? "asc"
                                                                          : "desc")
                << " "
                << (field.null_order == iceberg::NullOrder::kNullsFirst ? "nulls first"
                                                                        : "nulls last");
    }
    std::cout << "\nproperties:\n";
    for (const auto& [key, value] : metadata.properties) {
      std::cout << "  " << Printable(key) << " = "
                << Printable(PrintableProperty(key, value)) << "\n";
    }
    return arrow::Status::OK();
  });
}

// floe snapshots
void RegisterSnapshotsCommand(CLI::App& app, CommandContext* context) {
  auto* command = AddCommand(app, context, "snapshots", "List a table's snapshots");
  auto table = std::make_shared<std::string>();
  command
      ->add_option("table", *table,
                   "NAMESPACE.TABLE, or the path of a Delta table (its versions)")
      ->required();
  OnRead(command, context, [=]() -> arrow::Status {
    ARROW_ASSIGN_OR_RAISE(auto ref, context->ResolveTable(*table));
    if (ref.by_path) {
      ARROW_ASSIGN_OR_RAISE(auto storage, context->PathStorage());
      return ListDeltaVersions(*table, storage);
    }
    if (ref.catalog_delta) return ListDeltaVersions(*table, {}, &*ref.catalog_delta);
    ARROW_ASSIGN_OR_RAISE(auto loaded, context->LoadTable(ref));
    const auto& metadata = *loaded->metadata();
    if (metadata.snapshots.empty()) std::cout << "(no snapshots)\n";
    for (const auto& snapshot : metadata.snapshots) {
      bool current = metadata.current_snapshot_id == snapshot->snapshot_id;
      std::cout << (current ? "* " : "  ") << snapshot->snapshot_id << "  "
                << TimeText(snapshot->timestamp_ms) << "  "
                << Printable(snapshot->summary.operation) << "  parent "
                << (snapshot->parent_snapshot_id
                        ? std::to_string(*snapshot->parent_snapshot_id)
                        : "none");
      if (snapshot->sequence_number > 0)
        std::cout << "  sequence " << snapshot->sequence_number;
      std::cout << "\n   ";
      for (const auto& [key, value] : snapshot->summary.properties) {
        std::cout << " " << Printable(key) << "=" << Printable(value);
      }
      std::cout << "\n";
    }
    return arrow::Status::OK();
  });
}

// floe files
void RegisterFilesCommand(CLI::App& app, CommandContext* context) {
  auto* command = AddCommand(app, context, "files", "List the data files of a snapshot");
  auto table = std::make_shared<std::string>();
  auto snapshot = std::make_shared<int64_t>(-1);
  command->add_option("table", *table, "NAMESPACE.TABLE, or the path of a Delta table")
      ->required();
  command->add_option("--snapshot", *snapshot,
                      "Snapshot id (default: current; of a Delta table: the version)");
  OnRead(command, context, [=]() -> arrow::Status {
    const auto version =
        *snapshot >= 0 ? std::optional<int64_t>(*snapshot) : std::nullopt;
    ARROW_ASSIGN_OR_RAISE(auto ref, context->ResolveTable(*table));
    if (ref.by_path) {
      ARROW_ASSIGN_OR_RAISE(auto storage, context->PathStorage());
      return ListDeltaFiles(*table, version, storage);
    }
    if (ref.catalog_delta)
      return ListDeltaFiles(*table, version, {}, &*ref.catalog_delta);
    ARROW_ASSIGN_OR_RAISE(auto loaded, context->LoadTable(ref));
    iceberg::ScanOptions options;
    if (*snapshot >= 0) options.snapshot_id = *snapshot;
    ARROW_ASSIGN_OR_RAISE(auto scan, loaded->NewScan(options));
    ARROW_ASSIGN_OR_RAISE(auto tasks, scan->PlanFiles());
    auto schema = loaded->metadata()->CurrentSchema();
    int64_t records = 0;
    int64_t bytes = 0;
    for (const auto& task : tasks) {
      std::string partition = "-";
      if (!task.spec->fields().empty()) {
        auto type = task.spec->PartitionType(*schema);
        if (type.ok())
          partition = iceberg::PartitionToPath(*task.spec, **type, task.file.partition);
      }
      std::cout << Printable(task.file.file_path) << "  " << Printable(partition) << "  "
                << task.file.record_count << " records  " << task.file.file_size_in_bytes
                << " bytes\n";
      records += task.file.record_count;
      bytes += task.file.file_size_in_bytes;
    }
    std::cout << "(" << tasks.size() << " files, " << records << " records, " << bytes
              << " bytes)\n";
    return arrow::Status::OK();
  });
}

// floe tables
void RegisterTablesCommand(CLI::App& app, CommandContext* context) {
  auto* command = AddCommand(app, context, "tables", "List the tables of a namespace");
  auto ns = std::make_shared<std::string>();
  command->add_option("namespace", *ns, "NAMESPACE")->required();
  OnRead(command, context, [=]() -> arrow::Status {
    ARROW_ASSIGN_OR_RAISE(auto parsed, iceberg::ParseNamespace(*ns));
    ARROW_ASSIGN_OR_RAISE(auto catalog, context->OpenCatalog());
    ARROW_ASSIGN_OR_RAISE(auto tables, ListCatalogTables(catalog, parsed));
    for (const auto& table : tables) {
      std::cout << Printable(table.id.ToString())
                << (table.format == TableFormat::kDelta ? "  (Delta)" : "") << "\n";
    }
    return arrow::Status::OK();
  });
}

// floe namespaces
void RegisterNamespacesCommand(CLI::App& app, CommandContext* context) {
  auto* command =
      AddCommand(app, context, "namespaces", "List, create or drop namespaces");
  auto parent = std::make_shared<std::string>();
  auto create = std::make_shared<std::string>();
  auto drop = std::make_shared<std::string>();
  auto show = std::make_shared<std::string>();
  auto properties = std::make_shared<std::vector<std::string>>();
  command->add_option("parent", *parent, "List the namespaces below this one");
  command->add_option("--create", *create, "Create this namespace");
  command->add_option("--drop", *drop, "Drop this (empty) namespace");
  command->add_option("--properties", *show, "Show this namespace's properties");
  command->add_option("--property", *properties, "With --create: property KEY=VALUE");
  OnRun(command, context, [=]() -> arrow::Status {
    // Listing and showing only read: nothing is created for them.
    context->read_only = create->empty() && drop->empty();
    ARROW_ASSIGN_OR_RAISE(auto catalog, context->OpenCatalog());
    if (!create->empty()) {
      ARROW_ASSIGN_OR_RAISE(auto ns, iceberg::ParseNamespace(*create));
      ARROW_ASSIGN_OR_RAISE(auto values, ParseKeyValues(*properties, "--property"));
      ARROW_RETURN_NOT_OK(catalog->CreateNamespace(ns, values));
      std::cout << "created namespace " << Printable(*create) << "\n";
      return arrow::Status::OK();
    }
    if (!drop->empty()) {
      ARROW_ASSIGN_OR_RAISE(auto ns, iceberg::ParseNamespace(*drop));
      ARROW_RETURN_NOT_OK(DropCatalogNamespace(catalog, ns));
      std::cout << "dropped namespace " << Printable(*drop) << "\n";
      return arrow::Status::OK();
    }
    if (!show->empty()) {
      ARROW_ASSIGN_OR_RAISE(auto ns, iceberg::ParseNamespace(*show));
      ARROW_ASSIGN_OR_RAISE(auto values, catalog->LoadNamespaceProperties(ns));
      for (const auto& [key, value] : values) {
        std::cout << Printable(key) << " = " << Printable(PrintableProperty(key, value))
                  << "\n";
      }
      return arrow::Status::OK();
    }
    iceberg::Namespace ns;
    if (!parent->empty()) {
      ARROW_ASSIGN_OR_RAISE(ns, iceberg::ParseNamespace(*parent));
    }
    ARROW_ASSIGN_OR_RAISE(auto namespaces, catalog->ListNamespaces(ns));
    for (const auto& child : namespaces)
      std::cout << Printable(iceberg::NamespaceToString(child)) << "\n";
    return arrow::Status::OK();
  });
}

}  // namespace

void RegisterInfoCommands(CLI::App& app, CommandContext* context) {
  RegisterDescribeCommand(app, context);
  RegisterSnapshotsCommand(app, context);
  RegisterFilesCommand(app, context);
  RegisterTablesCommand(app, context);
  RegisterNamespacesCommand(app, context);
}

}  // namespace floe::cli
