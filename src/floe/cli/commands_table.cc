// create, append, scan, drop, rename.
#include <chrono>
#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>

#include <unistd.h>

#include "arrow/type.h"

#include "floe/cli/commands.h"
#include "floe/cli/commands_delta.h"
#include "floe/cli/flags.h"
#include "floe/cli/input_files.h"
#include "floe/cli/output.h"
#include "floe/iceberg/spec/schema_ddl.h"
#include "floe/iceberg/spec/sort_order.h"
#include "floe/iceberg/table/file_ownership.h"
#include "floe/iceberg/table/table.h"
#include "floe/task/limited_memory_pool.h"
#include "floe/types/arrow_schema.h"
#include "floe/util/env.h"
#include "floe/util/error.h"
#include "floe/util/text.h"
#include "parquet/arrow/reader.h"

namespace floe::cli {
namespace {

arrow::Result<std::string> ReadTextArgument(const std::string& value) {
  if (value.empty() || value[0] != '@') return value;
  std::ifstream file(value.substr(1));
  if (!file) return MakeError(ErrorKind::kInvalidInput, "cannot read " + value.substr(1));
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

std::string WithThousands(int64_t value) {
  std::string digits = std::to_string(value);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out.push_back(',');
    out.push_back(digits[i]);
  }
  return out;
}

arrow::Result<SchemaPtr> SchemaOfFile(const std::string& path) {
  ARROW_RETURN_NOT_OK(CheckInputFile(path));
  parquet::arrow::FileReaderBuilder builder;
  FLOE_RETURN_NOT_OK_CONTEXT(builder.OpenFile(path), "reading the schema of " + path);
  std::unique_ptr<parquet::arrow::FileReader> reader;
  FLOE_RETURN_NOT_OK_CONTEXT(builder.Build(&reader), "reading the schema of " + path);
  std::shared_ptr<arrow::Schema> schema;
  ARROW_RETURN_NOT_OK(reader->GetSchema(&schema));
  return FromArrowSchemaAssigningIds(*schema);
}

// `floe create PATH`: a Delta table. Timestamps become microseconds (Delta's unit),
// field ids and metadata are dropped, partition columns are plain column names.
// With `context`, `table` is NAMESPACE.TABLE: a catalog-managed Delta table there.
arrow::Status CreateDeltaFromArrow(const std::string& table, const arrow::Schema& schema,
                                   const std::string& partition_by,
                                   const std::vector<std::string>& properties,
                                   const std::string& sort_by,
                                   const std::string& location,
                                   const StorageProperties& storage,
                                   CommandContext* context = nullptr) {
  if (!sort_by.empty()) {
    return MakeError(ErrorKind::kInvalidInput,
                     "--sort-by does not apply to a Delta table");
  }
  if (!location.empty() && context == nullptr) {
    return MakeError(ErrorKind::kInvalidInput,
                     "--location does not apply to a Delta table by path");
  }
  std::function<std::shared_ptr<arrow::DataType>(const std::shared_ptr<arrow::DataType>&)>
      micros = [&](const std::shared_ptr<arrow::DataType>& type) {
        if (type->id() == arrow::Type::TIMESTAMP) {
          return arrow::timestamp(
              arrow::TimeUnit::MICRO,
              static_cast<const arrow::TimestampType&>(*type).timezone());
        }
        if (type->id() == arrow::Type::STRUCT) {
          arrow::FieldVector children;
          for (const auto& child : type->fields()) {
            children.push_back(child->RemoveMetadata()->WithType(micros(child->type())));
          }
          return arrow::struct_(children);
        }
        if (type->id() == arrow::Type::LIST || type->id() == arrow::Type::LARGE_LIST) {
          const auto& element = type->field(0);
          return arrow::list(
              element->RemoveMetadata()->WithType(micros(element->type())));
        }
        if (type->id() == arrow::Type::MAP) {
          const auto& map = static_cast<const arrow::MapType&>(*type);
          return arrow::map(
              micros(map.key_type()),
              map.item_field()->RemoveMetadata()->WithType(micros(map.item_type())));
        }
        return type;
      };
  arrow::FieldVector fields;
  for (const auto& field : schema.fields()) {
    fields.push_back(field->RemoveMetadata()->WithType(micros(field->type())));
  }
  std::vector<std::string> columns;
  std::stringstream list(partition_by);
  for (std::string column; std::getline(list, column, ',');) {
    auto first = column.find_first_not_of(' ');
    if (first == std::string::npos) continue;
    column = column.substr(first, column.find_last_not_of(' ') - first + 1);
    if (column.find('(') != std::string::npos) {
      return MakeError(
          ErrorKind::kInvalidInput,
          "a Delta table is partitioned by columns, not transforms: " + column);
    }
    columns.push_back(column);
  }
  ARROW_ASSIGN_OR_RAISE(auto delta_properties, ParseKeyValues(properties, "--property"));
  if (context == nullptr) {
    return CreateDelta(table, storage, arrow::Schema(std::move(fields)), columns,
                       delta_properties);
  }
  ARROW_ASSIGN_OR_RAISE(auto id, iceberg::TableIdentifier::Parse(table));
  ARROW_ASSIGN_OR_RAISE(auto catalog, context->OpenCatalog());
  bool created_namespace = false;
  ARROW_ASSIGN_OR_RAISE(
      auto created,
      CreateDeltaTable(catalog, id, arrow::Schema(std::move(fields)), columns,
                       delta_properties, location, &created_namespace));
  if (created_namespace)
    std::cout << "created namespace " << Printable(iceberg::NamespaceToString(id.ns))
              << "\n";
  std::cout << "created catalog-managed Delta table " << Printable(id.ToString())
            << " at " << Printable(created.root) << " (version 0)\n";
  return arrow::Status::OK();
}

}  // namespace

namespace {

void PrintRowLevel(const char* verb, const iceberg::TableIdentifier& id,
                   const iceberg::RowLevelResult& result) {
  if (!result.committed) {
    std::cout << "no row of " << Printable(id.ToString())
              << " matched; nothing committed\n";
    return;
  }
  std::cout << verb << " " << WithThousands(result.rows_removed) << " rows of "
            << Printable(id.ToString()) << ": removed " << result.files_removed
            << " data file" << (result.files_removed == 1 ? "" : "s");
  if (result.files_rewritten > 0)
    std::cout << " (" << result.files_rewritten << " rewritten)";
  if (result.delete_files_written > 0) {
    std::cout << ", wrote " << result.delete_files_written << " delete file"
              << (result.delete_files_written == 1 ? "" : "s");
  } else {
    std::cout << ", wrote " << WithThousands(result.rows_written) << " rows in "
              << result.data_files_written << " data file"
              << (result.data_files_written == 1 ? "" : "s");
  }
  std::cout << CommittedAs(result.commit,
                           Printable(result.commit.snapshot->summary.operation));
}

// floe create
// `floe create` of an Iceberg table (its namespace too, when missing).
arrow::Status CreateIceberg(const std::string& table, const SchemaPtr& schema,
                            const std::string& partition_by, const std::string& sort_by,
                            const std::vector<std::string>& properties,
                            const std::string& location, CommandContext* context) {
  ARROW_ASSIGN_OR_RAISE(auto id, iceberg::TableIdentifier::Parse(table));
  ARROW_ASSIGN_OR_RAISE(auto ref, context->ResolveTable(table));
  if (const auto& delta_table = ref.catalog_delta) {
    return MakeError(ErrorKind::kAlreadyExists,
                     "table " + id.ToString() +
                         " already exists in the catalog (a catalog-managed Delta "
                         "table at " +
                         delta_table->root + ")");
  }
  ARROW_ASSIGN_OR_RAISE(auto catalog, context->OpenCatalog());
  iceberg::CreateTableOptions options;
  options.schema = schema;
  ARROW_ASSIGN_OR_RAISE(options.spec, iceberg::ParsePartitionBy(partition_by, *schema));
  ARROW_ASSIGN_OR_RAISE(options.sort_order, iceberg::ParseSortBy(sort_by, *schema));
  ARROW_ASSIGN_OR_RAISE(options.properties, ParseKeyValues(properties, "--property"));
  options.location = location;
  ARROW_ASSIGN_OR_RAISE(bool namespace_exists, catalog->NamespaceExists(id.ns));
  if (!namespace_exists) ARROW_RETURN_NOT_OK(catalog->CreateNamespace(id.ns, {}));
  auto created = iceberg::Table::Create(catalog, id, options);
  if (!created.ok()) {
    // A failed create leaves nothing behind, not even the namespace made for it.
    if (!namespace_exists) (void)catalog->DropNamespace(id.ns);
    return created.status();
  }
  if (!namespace_exists)
    std::cout << "created namespace " << Printable(iceberg::NamespaceToString(id.ns))
              << "\n";
  std::cout << "created table " << Printable(id.ToString()) << " at "
            << Printable((*created)->metadata()->location) << "\n";
  return arrow::Status::OK();
}

void RegisterCreateCommand(CLI::App& app, CommandContext* context) {
  auto* command = AddCommand(app, context, "create", "Create a table");
  auto table = std::make_shared<std::string>();
  auto schema = std::make_shared<std::string>();
  auto schema_file = std::make_shared<std::string>();
  auto partition_by = std::make_shared<std::string>();
  auto sort_by = std::make_shared<std::string>();
  auto properties = std::make_shared<std::vector<std::string>>();
  auto location = std::make_shared<std::string>();
  command->add_option("table", *table, "NAMESPACE.TABLE")->required();
  command->add_option(
      "--schema", *schema,
      "Columns as text (\"id long not null, name string, tags list<string>\"), "
      "Iceberg schema JSON, or @FILE holding either");
  command->add_option("--schema-from", *schema_file,
                      "Take the columns of this Parquet file");
  command->add_option("--partition-by", *partition_by,
                      "Partition fields, e.g. \"region, day(ts), bucket(16, id)\"");
  command->add_option("--sort-by", *sort_by,
                      "Sort order writers follow, e.g. \"ts desc, id asc nulls last\"");
  command->add_option("--property", *properties, "Table property KEY=VALUE (repeatable)");
  command->add_option("--location", *location,
                      "Table location (default: under the warehouse)");
  auto format = std::make_shared<std::string>("iceberg");
  command
      ->add_option("--format", *format,
                   "iceberg (default) or delta: a NAMESPACE.TABLE in delta is a "
                   "catalog-managed Delta table, its commits ratified by the SQL "
                   "catalog; a path is always a Delta table")
      ->check(CLI::IsMember({"iceberg", "delta"}));
  OnRun(command, context, [=]() -> arrow::Status {
    SchemaPtr parsed;
    const bool by_path = IsTablePath(*table);  // (create: a name's format is --format's)
    if (by_path && *format != "delta" && *format != "iceberg") {
      return MakeError(ErrorKind::kInvalidInput, "unknown --format " + *format);
    }
    const bool is_delta = by_path || *format == "delta";
    auto create_delta = [&](const arrow::Schema& arrow_schema) -> arrow::Status {
      if (by_path) {
        ARROW_ASSIGN_OR_RAISE(auto storage, context->PathStorage());
        return CreateDeltaFromArrow(*table, arrow_schema, *partition_by, *properties,
                                    *sort_by, *location, storage);
      }
      return CreateDeltaFromArrow(*table, arrow_schema, *partition_by, *properties,
                                  *sort_by, *location, {}, context);
    };
    if (is_delta && !schema_file->empty() && schema->empty()) {
      // A Delta table takes the file's Arrow schema as it is (Delta has byte and short).
      ARROW_RETURN_NOT_OK(CheckInputFile(*schema_file));
      parquet::arrow::FileReaderBuilder builder;
      FLOE_RETURN_NOT_OK_CONTEXT(builder.OpenFile(*schema_file),
                                 "reading the schema of " + *schema_file);
      std::unique_ptr<parquet::arrow::FileReader> reader;
      FLOE_RETURN_NOT_OK_CONTEXT(builder.Build(&reader),
                                 "reading the schema of " + *schema_file);
      std::shared_ptr<arrow::Schema> file_schema;
      ARROW_RETURN_NOT_OK(reader->GetSchema(&file_schema));
      return create_delta(*file_schema);
    }
    if (!schema->empty() == !schema_file->empty()) {
      return MakeError(ErrorKind::kInvalidInput,
                       "give exactly one of --schema and --schema-from");
    }
    if (!schema->empty()) {
      ARROW_ASSIGN_OR_RAISE(std::string text, ReadTextArgument(*schema));
      ARROW_ASSIGN_OR_RAISE(parsed, iceberg::ParseSchemaText(text));
    } else {
      ARROW_ASSIGN_OR_RAISE(parsed, SchemaOfFile(*schema_file));
    }
    if (is_delta) {
      ARROW_ASSIGN_OR_RAISE(auto arrow_schema, ToArrowSchema(*parsed));
      return create_delta(*arrow_schema);
    }
    return CreateIceberg(*table, parsed, *partition_by, *sort_by, *properties, *location,
                         context);
  });
}

// An append's progress line on stderr: rewritten in place on a terminal (every 0.2 s),
// else a line every 2 s; `current_file` is the input file being read.
std::function<void(const iceberg::AppendProgress&)> AppendProgressPrinter(
    const std::string& table, bool tty, Env* env, const std::string* current_file) {
  const int64_t started = env->MonotonicMicros();
  auto last = std::make_shared<int64_t>(started - 10'000'000);
  return [=](const iceberg::AppendProgress& progress) {
    const int64_t now = env->MonotonicMicros();
    if (now - *last < (tty ? 200'000 : 2'000'000)) return;
    *last = now;
    double seconds = static_cast<double>(now - started) / 1e6;
    std::cerr << (tty ? "\r" : "") << "appending to " << table << ": "
              << WithThousands(progress.rows) << " rows read";
    if (progress.input_done) {
      // A sorted table: the tasks sort what they held and write it out.
      std::cerr << ", " << WithThousands(progress.rows_sorted)
                << " written in sort order (";
    } else {
      std::cerr << " (" << *current_file << ", ";
    }
    std::cerr << static_cast<int64_t>(seconds) << " s)" << (tty ? "   " : "\n")
              << std::flush;
  };
}

// `floe append` to a Delta table: by path, or catalog-managed (`delta_table`).
arrow::Status AppendToDelta(const std::string& table,
                            const std::optional<CatalogDeltaTable>& delta_table,
                            const std::vector<std::string>& files,
                            const std::string& input_format, const std::string& txn,
                            int threads, const std::string& memory_limit,
                            CommandContext* context) {
  int64_t limit = 0;
  if (!memory_limit.empty()) {
    ARROW_ASSIGN_OR_RAISE(limit, ParseByteSize(memory_limit));
  }
  StorageProperties storage;
  if (!delta_table) {
    ARROW_ASSIGN_OR_RAISE(storage, context->PathStorage());
  }
  return WriteDelta(table, storage, files, input_format, /*overwrite=*/false, txn,
                    threads, delta_table ? &*delta_table : nullptr, std::nullopt, limit);
}

// floe append
void RegisterAppendCommand(CLI::App& app, CommandContext* context) {
  auto* command =
      AddCommand(app, context, "append", "Append Parquet or CSV files to a table");
  auto table = std::make_shared<std::string>();
  auto files = std::make_shared<std::vector<std::string>>();
  auto options = std::make_shared<std::vector<std::string>>();
  auto threads = std::make_shared<int>(0);  // 0: one per core
  auto input_format = std::make_shared<std::string>("auto");
  auto clustered = std::make_shared<bool>(false);
  auto memory_limit = std::make_shared<std::string>();
  command->add_option("table", *table, "NAMESPACE.TABLE")->required();
  command->add_option("files", *files, "Input files (.parquet or .csv)")->required();
  command->add_option(
      "--memory-limit", *memory_limit,
      "Memory the write tasks may use together, e.g. 2G (default: no limit)");
  command->add_option(
      "--option", *options,
      "Write option KEY=VALUE overlaid on the table properties (repeatable)");
  command
      ->add_option("--threads", *threads, "Parallel write tasks (default: one per core)")
      ->check(CLI::Range(1, 256));
  command->add_option("--input-format", *input_format, "auto, parquet or csv");
  command->add_flag("--input-clustered", *clustered,
                    "The input is grouped by partition (use the clustered writer)");
  auto txn = std::make_shared<std::string>();
  command->add_option(
      "--txn", *txn,
      "Delta tables: an idempotent write APP_ID:VERSION, skipped when the "
      "table's txn for APP_ID is at VERSION or later");
  auto mode = std::make_shared<std::string>("append");
  command
      ->add_option(
          "--mode", *mode,
          "append (default) or dynamic-overwrite: replace the partitions the new "
          "rows fall in (validated under --option "
          "isolation-level=serializable|snapshot)")
      ->check(CLI::IsMember({"append", "dynamic-overwrite"}));
  OnRun(command, context, [=]() -> arrow::Status {
    ARROW_ASSIGN_OR_RAISE(auto ref, context->ResolveTable(*table));
    const std::optional<CatalogDeltaTable>& delta_table = ref.catalog_delta;
    if (ref.is_delta()) {
      if (*mode != "append") {
        return MakeError(ErrorKind::kNotSupported,
                         "--mode " + *mode + " is not supported on Delta tables yet");
      }
      // Settings a Delta write would not honour are refused, never ignored.
      if (!options->empty() || *clustered) {
        return MakeError(
            ErrorKind::kInvalidInput,
            "--option and --input-clustered do not apply to a Delta table (" + *table +
                ")");
      }
      return AppendToDelta(*table, delta_table, *files, *input_format, *txn, *threads,
                           *memory_limit, context);
    }
    if (!txn->empty()) {
      return MakeError(ErrorKind::kInvalidInput,
                       "--txn applies to Delta tables only, not " + *table);
    }
    ARROW_ASSIGN_OR_RAISE(auto loaded, context->LoadTable(ref));
    const iceberg::TableIdentifier& id = loaded->id();
    iceberg::AppendOptions append;
    append.replace_partitions = *mode == "dynamic-overwrite";
    ARROW_ASSIGN_OR_RAISE(append.options, ParseKeyValues(*options, "--option"));
    append.threads = *threads;
    append.input_clustered = *clustered;
    if (!memory_limit->empty()) {
      ARROW_ASSIGN_OR_RAISE(append.memory_limit, ParseByteSize(*memory_limit));
    }
    const bool tty = isatty(STDERR_FILENO);
    Env* env = Env::Default();
    const int64_t started = env->MonotonicMicros();
    std::string current_file;
    append.progress = AppendProgressPrinter(id.ToString(), tty, env, &current_file);
    ARROW_ASSIGN_OR_RAISE(
        auto input,
        OpenInputFiles(*files, *input_format, loaded->metadata()->CurrentSchema(),
                       id.ToString(),
                       [&](const std::string& file) { current_file = file; }));
    auto result = loaded->Append(*input, append);
    if (tty) std::cerr << "\r" << std::string(100, ' ') << "\r";
    ARROW_RETURN_NOT_OK(result.status());
    if (!result->committed) {
      std::cout << "the input holds no rows, so no partition of "
                << Printable(id.ToString())
                << " is replaced; nothing committed (as iceberg-java's Spark writer)\n";
      return arrow::Status::OK();
    }
    std::ostringstream seconds;
    seconds << static_cast<double>(env->MonotonicMicros() - started) / 1e6 << " s";
    std::cout << (append.replace_partitions ? "overwrote partitions with " : "appended ")
              << WithThousands(result->rows) << " rows in " << result->data_files
              << " data file" << (result->data_files == 1 ? "" : "s") << " to "
              << id.ToString() << CommittedAs(result->commit, seconds.str());
    return arrow::Status::OK();
  });
}

// The --option and --threads of a row-level command, read into `*write` when it runs.
struct RowLevelWriteFlags {
  std::shared_ptr<std::vector<std::string>> options =
      std::make_shared<std::vector<std::string>>();
  std::shared_ptr<int> threads = std::make_shared<int>(0);  // 0: one per core

  void Register(CLI::App* command, const char* files) const {
    command->add_option(
        "--option", *options,
        std::string("Write option KEY=VALUE for ") + files + " (repeatable)");
    command
        ->add_option("--threads", *threads,
                     "Parallel write tasks (default: one per core)")
        ->check(CLI::Range(1, 256));
  }

  arrow::Result<iceberg::AppendOptions> Read() const {
    iceberg::AppendOptions write;
    ARROW_ASSIGN_OR_RAISE(write.options, ParseKeyValues(*options, "--option"));
    write.threads = *threads;
    return write;
  }
};

// floe delete
void RegisterDeleteCommand(CLI::App& app, CommandContext* context) {
  auto* command =
      AddCommand(app, context, "delete",
                 "Delete the rows matching a filter (copy-on-write: files with "
                 "matches are rewritten; under write.delete.mode=merge-on-read: "
                 "deletion vectors (v3) or position delete files (v2))");
  auto table = std::make_shared<std::string>();
  auto where = std::make_shared<std::string>();
  RowLevelWriteFlags flags;
  command->add_option("table", *table, "NAMESPACE.TABLE, or the path of a Delta table")
      ->required();
  command->add_option("--where", *where, "Rows to delete, in the scan filter syntax")
      ->required();
  flags.Register(command, "rewritten files");
  OnRun(command, context, [=]() -> arrow::Status {
    ARROW_ASSIGN_OR_RAISE(auto ref, context->ResolveTable(*table));
    const std::optional<CatalogDeltaTable>& delta_table = ref.catalog_delta;
    if (ref.is_delta()) {
      if (!flags.options->empty()) {
        return MakeError(ErrorKind::kInvalidInput,
                         "--option does not apply to a Delta table (" + *table + ")");
      }
      StorageProperties storage;
      if (!delta_table) {
        ARROW_ASSIGN_OR_RAISE(storage, context->PathStorage());
      }
      return DeleteDelta(*table, storage, *where, *flags.threads,
                         delta_table ? &*delta_table : nullptr);
    }
    ARROW_ASSIGN_OR_RAISE(auto loaded, context->LoadTable(ref));
    const iceberg::TableIdentifier& id = loaded->id();
    ARROW_ASSIGN_OR_RAISE(auto write, flags.Read());
    ARROW_ASSIGN_OR_RAISE(auto result, loaded->Delete(*where, write));
    PrintRowLevel("deleted", id, result);
    return arrow::Status::OK();
  });
}

// How a row-level write that wrote new rows went: "<what> of TABLE: <how>, committed".
void PrintRowsWritten(const std::string& what, const iceberg::TableIdentifier& id,
                      const iceberg::RowLevelResult& result) {
  std::cout << what << " of " << Printable(id.ToString()) << ": ";
  if (result.delete_files_written > 0) {
    std::cout << "wrote " << result.delete_files_written << " delete file"
              << (result.delete_files_written == 1 ? "" : "s") << " and ";
  } else if (result.files_rewritten > 0) {
    std::cout << "rewrote " << result.files_rewritten << " data file"
              << (result.files_rewritten == 1 ? "" : "s") << ", ";
  }
  std::cout << "wrote " << WithThousands(result.rows_written) << " rows in "
            << result.data_files_written << " data file"
            << (result.data_files_written == 1 ? "" : "s")
            << CommittedAs(result.commit,
                           Printable(result.commit.snapshot->summary.operation));
}

// floe update
void RegisterUpdateCommand(CLI::App& app, CommandContext* context) {
  auto* command = AddCommand(
      app, context, "update",
      "Set columns of the rows matching a filter (copy-on-write: files with matches are "
      "rewritten; under write.update.mode=merge-on-read: delete files and the updated "
      "rows)");
  auto table = std::make_shared<std::string>();
  auto set = std::make_shared<std::string>();
  auto where = std::make_shared<std::string>();
  RowLevelWriteFlags flags;
  command->add_option("table", *table, "NAMESPACE.TABLE")->required();
  command
      ->add_option("--set", *set,
                   "Columns to set: \"col = value[, col = value ...]\": a literal as in "
                   "--where (NULL for optional columns) or, for numeric columns, "
                   "arithmetic of the row's numeric columns and numbers (+ - * / and "
                   "parentheses, e.g. \"price = price * 2 + 1\")")
      ->required();
  command->add_option("--where", *where, "Rows to update, in the scan filter syntax")
      ->required();
  flags.Register(command, "the files written");
  OnRun(command, context, [=]() -> arrow::Status {
    ARROW_ASSIGN_OR_RAISE(auto ref, context->ResolveTable(*table));
    if (ref.is_delta()) {
      return MakeError(ErrorKind::kNotSupported,
                       "floe update writes Iceberg tables only; " + *table +
                           (ref.by_path ? " is a path" : " is a Delta table") +
                           " (a Delta table's updates are not written yet)");
    }
    ARROW_ASSIGN_OR_RAISE(auto loaded, context->LoadTable(ref));
    ARROW_ASSIGN_OR_RAISE(auto write, flags.Read());
    ARROW_ASSIGN_OR_RAISE(auto result, loaded->Update(*where, *set, write));
    if (!result.committed) {
      std::cout << "no row of " << Printable(loaded->id().ToString())
                << " matched; nothing committed\n";
      return arrow::Status::OK();
    }
    PrintRowsWritten("updated " + WithThousands(result.rows_updated) + " rows",
                     loaded->id(), result);
    return arrow::Status::OK();
  });
}

// floe upsert
void RegisterUpsertCommand(CLI::App& app, CommandContext* context) {
  auto* command = AddCommand(
      app, context, "upsert",
      "Replace the rows whose key the input has and insert the others (as MERGE ... WHEN "
      "MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *)");
  auto table = std::make_shared<std::string>();
  auto files = std::make_shared<std::vector<std::string>>();
  auto on = std::make_shared<std::vector<std::string>>();
  auto input_format = std::make_shared<std::string>("auto");
  RowLevelWriteFlags flags;
  command->add_option("table", *table, "NAMESPACE.TABLE")->required();
  command->add_option("files", *files, "Input files (.parquet or .csv), loaded whole")
      ->required();
  command
      ->add_option("--on", *on,
                   "Key columns, comma-separated (default: the table's identifier "
                   "fields)")
      ->delimiter(',');
  command->add_option("--input-format", *input_format, "auto, parquet or csv");
  auto matched = std::make_shared<std::string>("update");
  auto unmatched = std::make_shared<std::string>("insert");
  command
      ->add_option("--when-matched", *matched,
                   "update (default): replace the table's row; ignore: keep it")
      ->check(CLI::IsMember({"update", "ignore"}));
  command
      ->add_option("--when-not-matched", *unmatched,
                   "insert (default): insert the input row; ignore: leave it out")
      ->check(CLI::IsMember({"insert", "ignore"}));
  flags.Register(command, "the files written");
  OnRun(command, context, [=]() -> arrow::Status {
    ARROW_ASSIGN_OR_RAISE(auto ref, context->ResolveTable(*table));
    if (ref.is_delta()) {
      return MakeError(ErrorKind::kNotSupported,
                       "floe upsert writes Iceberg tables only; " + *table +
                           (ref.by_path ? " is a path" : " is a Delta table") +
                           " (a Delta table's upserts are not written yet)");
    }
    ARROW_ASSIGN_OR_RAISE(auto loaded, context->LoadTable(ref));
    ARROW_ASSIGN_OR_RAISE(auto write, flags.Read());
    iceberg::UpsertOptions upsert;
    for (const auto& key : *on) {
      std::string trimmed = key;
      trimmed.erase(0, trimmed.find_first_not_of(' '));
      trimmed.erase(trimmed.find_last_not_of(' ') + 1);
      if (!trimmed.empty()) upsert.keys.push_back(trimmed);
    }
    upsert.update_matched = *matched == "update";
    upsert.insert_unmatched = *unmatched == "insert";
    // Every file must hold the keys (the identifier fields when --on is not given).
    const SchemaPtr schema = loaded->metadata()->CurrentSchema();
    std::vector<std::string> keys = upsert.keys;
    if (keys.empty()) {
      for (int id : schema->identifier_field_ids()) {
        for (const auto& field : schema->fields()) {
          if (field.id == id) keys.push_back(field.name);
        }
      }
    }
    ARROW_ASSIGN_OR_RAISE(
        auto input, OpenInputFiles(*files, *input_format, schema, loaded->id().ToString(),
                                   nullptr, keys));
    ARROW_ASSIGN_OR_RAISE(auto result, loaded->Upsert(*input, upsert, write));
    if (!result.committed) {
      std::cout << "nothing to replace or insert; nothing committed to "
                << Printable(loaded->id().ToString()) << "\n";
      return arrow::Status::OK();
    }
    PrintRowsWritten("replaced " + WithThousands(result.rows_updated) +
                         " rows and inserted " + WithThousands(result.rows_inserted),
                     loaded->id(), result);
    return arrow::Status::OK();
  });
}

// floe rewrite
// `floe rewrite --position-deletes` of an Iceberg table.
arrow::Status RewriteIcebergDeletes(iceberg::Table& table, const std::string& where,
                                    int min_input_files, bool rewrite_all,
                                    const std::map<std::string, std::string>& options) {
  iceberg::RewriteDeletesOptions rewrite;
  rewrite.min_input_files = min_input_files;
  rewrite.rewrite_all = rewrite_all;
  rewrite.options = options;
  ARROW_ASSIGN_OR_RAISE(auto result, table.RewritePositionDeletes(where, rewrite));
  const std::string name = table.id().ToString();
  if (!result.committed) {
    std::cout << "no position delete file of " << name
              << " needs rewriting; nothing committed\n";
    return arrow::Status::OK();
  }
  std::cout << "rewrote " << result.delete_files_removed << " position delete files of "
            << name << " into " << result.delete_files_written
            << CommittedAs(result.commit,
                           Printable(result.commit.snapshot->summary.operation));
  return arrow::Status::OK();
}

// `floe rewrite` of an Iceberg table's data files, then, when asked and the rewrite
// committed (as Spark's rewrite_data_files), the removal of dangling deletes.
arrow::Status RewriteIcebergData(iceberg::Table& table, const std::string& where,
                                 int min_input_files, const iceberg::AppendOptions& write,
                                 bool remove_dangling) {
  ARROW_ASSIGN_OR_RAISE(auto result, table.Rewrite(where, min_input_files, write));
  const std::string name = table.id().ToString();
  if (!result.committed) {
    std::cout << "no file group of " << name << " needs rewriting; nothing committed\n";
  } else {
    std::cout << "rewrote " << result.files_removed << " data files of " << name << " ("
              << WithThousands(result.rows_written) << " rows) into "
              << result.data_files_written
              << CommittedAs(result.commit,
                             Printable(result.commit.snapshot->summary.operation));
  }
  if (!remove_dangling || !result.committed) return arrow::Status::OK();
  ARROW_ASSIGN_OR_RAISE(auto removed, table.RemoveDanglingDeletes());
  if (!removed.committed) {
    std::cout << "no delete file of " << name << " is dangling; nothing committed\n";
    return arrow::Status::OK();
  }
  std::cout << "removed " << removed.delete_files_removed << " dangling delete files of "
            << name
            << CommittedAs(removed.commit,
                           Printable(removed.commit.snapshot->summary.operation));
  return arrow::Status::OK();
}

void RegisterRewriteCommand(CLI::App& app, CommandContext* context) {
  auto* command = AddCommand(app, context, "rewrite",
                             "Compact small data files (bin-pack, as Spark's "
                             "rewrite_data_files; rows unchanged)");
  auto table = std::make_shared<std::string>();
  auto where = std::make_shared<std::string>();
  auto options = std::make_shared<std::vector<std::string>>();
  auto min_input_files = std::make_shared<int>(5);
  auto min_file_size = std::make_shared<int64_t>(int64_t{1} << 30);
  auto max_file_size = std::make_shared<int64_t>(int64_t{1} << 30);
  auto threads = std::make_shared<int>(0);  // 0: one per core
  command->add_option("table", *table, "NAMESPACE.TABLE, or the path of a Delta table")
      ->required();
  command->add_option("--where", *where,
                      "Only files that may hold matching rows (scan filter syntax); on "
                      "a Delta table, partition columns only (as OPTIMIZE ... WHERE)");
  auto* min_input =
      command->add_option("--min-input-files", *min_input_files,
                          "Rewrite a partition's small files once there are this many "
                          "(default 5, as Spark) or they exceed the target file size");
  command->add_option("--option", *options,
                      "Write option KEY=VALUE for the new files (repeatable), e.g. "
                      "write.target-file-size-bytes=268435456");
  auto* min_size = command->add_option(
      "--min-file-size", *min_file_size,
      "Delta tables: compact files smaller than this many bytes (default 1 GiB, as "
      "delta-spark's OPTIMIZE)");
  auto* max_size = command->add_option(
      "--max-file-size", *max_file_size,
      "Delta tables: the most bytes of files compacted into one (default 1 GiB)");
  auto* threads_option =
      command
          ->add_option("--threads", *threads,
                       "Delta tables: bins written at once (default: one per core)")
          ->check(CLI::Range(1, 256));
  auto remove_dangling = std::make_shared<bool>(false);
  command->add_flag("--remove-dangling-deletes", *remove_dangling,
                    "After a rewrite that commits, remove the delete files that can "
                    "delete nothing any more (as Spark's remove-dangling-deletes "
                    "option), in a second snapshot");
  auto position_deletes = std::make_shared<bool>(false);
  command->add_flag(
      "--position-deletes", *position_deletes,
      "Rewrite position delete files instead of data files, as Spark's "
      "rewrite_position_delete_files: per partition, dropping deletes of files no "
      "longer live; on format v3 into deletion vectors. Sized by --option "
      "write.delete.target-file-size-bytes=N (default 64 MiB)");
  auto rewrite_all = std::make_shared<bool>(false);
  command->add_flag("--rewrite-all", *rewrite_all,
                    "With --position-deletes: every delete file of the partitions "
                    "selected, whatever its size or count (Spark's rewrite-all)");

  OnRun(command, context, [=]() -> arrow::Status {
    ARROW_ASSIGN_OR_RAISE(auto ref, context->ResolveTable(*table));
    const std::optional<CatalogDeltaTable>& delta_table = ref.catalog_delta;
    if (ref.is_delta()) {
      if (!options->empty() || min_input->count() > 0 || *remove_dangling ||
          *position_deletes || *rewrite_all) {
        return MakeError(ErrorKind::kInvalidInput,
                         "--option, --min-input-files, --remove-dangling-deletes, "
                         "--position-deletes and --rewrite-all do not apply to a Delta "
                         "table (" +
                             *table + "); --min-file-size and --max-file-size do");
      }
      StorageProperties storage;
      if (!delta_table) {
        ARROW_ASSIGN_OR_RAISE(storage, context->PathStorage());
      }
      return CompactDelta(*table, storage, *where, *min_file_size, *max_file_size,
                          *threads, delta_table ? &*delta_table : nullptr);
    }
    if (min_size->count() > 0 || max_size->count() > 0 || threads_option->count() > 0) {
      return MakeError(ErrorKind::kInvalidInput,
                       "--min-file-size, --max-file-size and --threads apply to Delta "
                       "tables; an Iceberg table's rewrite takes "
                       "--option write.target-file-size-bytes=N");
    }
    if (*rewrite_all && !*position_deletes) {
      return MakeError(ErrorKind::kInvalidInput,
                       "--rewrite-all applies to a rewrite of position delete files "
                       "(--position-deletes)");
    }
    if (*position_deletes && *remove_dangling) {
      return MakeError(ErrorKind::kInvalidInput,
                       "--remove-dangling-deletes follows a rewrite of data files; a "
                       "rewrite of position delete files (--position-deletes) already "
                       "drops the deletes of files no longer live");
    }
    ARROW_ASSIGN_OR_RAISE(auto loaded, context->LoadTable(ref));
    iceberg::AppendOptions write;
    ARROW_ASSIGN_OR_RAISE(write.options, ParseKeyValues(*options, "--option"));
    if (*position_deletes) {
      return RewriteIcebergDeletes(*loaded, *where, *min_input_files, *rewrite_all,
                                   write.options);
    }
    return RewriteIcebergData(*loaded, *where, *min_input_files, write, *remove_dangling);
  });
}

// floe overwrite
void RegisterOverwriteCommand(CLI::App& app, CommandContext* context) {
  auto* command = AddCommand(
      app, context, "overwrite",
      "Replace the rows matching a filter with the rows of Parquet or CSV files");
  auto table = std::make_shared<std::string>();
  auto files = std::make_shared<std::vector<std::string>>();
  auto where = std::make_shared<std::string>();
  auto options = std::make_shared<std::vector<std::string>>();
  auto threads = std::make_shared<int>(0);  // 0: one per core
  auto input_format = std::make_shared<std::string>("auto");
  command->add_option("table", *table, "NAMESPACE.TABLE")->required();
  command->add_option("files", *files, "Input files (.parquet or .csv)")->required();
  auto* where_option = command->add_option(
      "--where", *where,
      "Rows replaced: every file holding one must match wholly, and every new "
      "row must match (required, except on a Delta table: there, without it, the "
      "whole table is replaced; with it, files holding matches are rewritten "
      "without them, as delta-spark's replaceWhere)");
  command->add_option(
      "--option", *options,
      "Write option KEY=VALUE (repeatable), e.g. isolation-level=snapshot");
  command
      ->add_option("--threads", *threads, "Parallel write tasks (default: one per core)")
      ->check(CLI::Range(1, 256));
  command->add_option("--input-format", *input_format, "auto, parquet or csv");
  auto txn = std::make_shared<std::string>();
  command->add_option(
      "--txn", *txn,
      "Delta tables: an idempotent write APP_ID:VERSION, skipped when the "
      "table's txn for APP_ID is at VERSION or later");
  OnRun(command, context, [=]() -> arrow::Status {
    ARROW_ASSIGN_OR_RAISE(auto ref, context->ResolveTable(*table));
    const std::optional<CatalogDeltaTable>& delta_table = ref.catalog_delta;
    const bool is_delta = ref.is_delta();
    if (!txn->empty() && !is_delta) {
      return MakeError(ErrorKind::kInvalidInput,
                       "--txn applies to Delta tables only, not " + *table);
    }
    if (is_delta) {
      if (!options->empty()) {
        return MakeError(ErrorKind::kInvalidInput,
                         "--option does not apply to a Delta table (" + *table + ")");
      }
      StorageProperties storage;
      if (!delta_table) {
        ARROW_ASSIGN_OR_RAISE(storage, context->PathStorage());
      }
      // --where "" (an unset shell variable) is refused, never read as "every row".
      std::optional<std::string> predicate;
      if (where_option->count() > 0) predicate = *where;
      return WriteDelta(*table, storage, *files, *input_format, /*overwrite=*/true, *txn,
                        *threads, delta_table ? &*delta_table : nullptr, predicate);
    }
    if (TrimSpace(*where).empty()) {
      return MakeError(ErrorKind::kInvalidInput,
                       where_option->count() > 0
                           ? "--where is empty: an overwrite of " + *table +
                                 " needs the rows it replaces"
                           : "--where is required");
    }
    ARROW_ASSIGN_OR_RAISE(auto loaded, context->LoadTable(ref));
    const iceberg::TableIdentifier& id = loaded->id();
    iceberg::AppendOptions write;
    ARROW_ASSIGN_OR_RAISE(write.options, ParseKeyValues(*options, "--option"));
    write.threads = *threads;
    ARROW_ASSIGN_OR_RAISE(
        auto input,
        OpenInputFiles(*files, *input_format, loaded->metadata()->CurrentSchema(),
                       id.ToString(), [](const std::string&) {}));
    ARROW_ASSIGN_OR_RAISE(auto result, loaded->Overwrite(*input, *where, write));
    PrintRowLevel("overwrote", id, result);
    return arrow::Status::OK();
  });
}

// floe scan
// The names of a comma-separated --columns, empty ones skipped.
std::vector<std::string> ColumnList(const std::string& text) {
  std::vector<std::string> columns;
  std::stringstream list(text);
  for (std::string column; std::getline(list, column, ',');) {
    if (!column.empty()) columns.push_back(column);
  }
  return columns;
}

// `floe scan --stats` of an Iceberg table: what was pruned and read, on stderr.
void PrintScanStats(const iceberg::ScanStats& c) {
  std::cerr << "scan stats: manifests=" << c.manifests_total
            << " manifests_skipped=" << c.manifests_skipped
            << " files_planned=" << c.files_planned
            << " files_skipped_by_partition=" << c.files_skipped_by_partition
            << " files_skipped_by_metrics=" << c.files_skipped_by_metrics
            << " files_read=" << c.files_read << " row_groups_read=" << c.row_groups_read
            << " row_groups_skipped=" << c.row_groups_skipped
            << " bytes_read=" << c.bytes_read << " requests=" << c.requests
            << " rows_read=" << c.rows_read << " rows=" << c.rows
            << " delete_files=" << c.delete_files_read
            << " rows_deleted=" << c.rows_deleted << "\n";
}

void RegisterScanCommand(CLI::App& app, CommandContext* context) {
  auto* command = AddCommand(app, context, "scan", "Read a table's rows");
  auto table = std::make_shared<std::string>();
  auto columns = std::make_shared<std::string>();
  auto snapshot = std::make_shared<int64_t>(-1);
  auto as_of = std::make_shared<int64_t>(-1);
  auto output = std::make_shared<OutputOptions>();
  auto limit = std::make_shared<int64_t>(-1);
  auto stats = std::make_shared<bool>(false);
  command->add_option("table", *table, "NAMESPACE.TABLE, or the path of a Delta table")
      ->required();
  auto where = std::make_shared<std::string>();
  command->add_option(
      "--columns", *columns,
      "Comma-separated columns to read (default: all); nested fields by dotted "
      "name, e.g. items.price (only their Parquet leaves are read); also the "
      "metadata columns _file, _pos, _spec_id, _partition, _row_id and "
      "_last_updated_sequence_number, and _deleted (which keeps deleted rows, marked "
      "true)");
  command->add_option(
      "--where", *where,
      "Row filter, e.g. \"region = 'eu' AND ts >= '2024-01-01' AND price IS NOT "
      "NULL\" (prunes manifests, files and row groups); it may name the metadata "
      "columns too, e.g. \"_row_id = 42\", \"_partition.region = 'eu'\", "
      "\"_deleted = true\" (the deleted rows)");
  command->add_option("--snapshot", *snapshot,
                      "Read this snapshot id (of a Delta table: this version)");
  command->add_option("--as-of", *as_of,
                      "Read the snapshot current at this time (ms since epoch)");
  command->add_option(
      "--format", output->format,
      "table (default), csv, jsonl or parquet (table, csv and jsonl spell binary "
      "and fixed values in base64, uuids hyphenated)");
  command->add_option("--output", output->path, "Write to this file instead of stdout");
  command->add_option("--limit", *limit, "At most this many rows (0 or more)")
      ->check(CLI::Validator(
          [](const std::string& value) -> std::string {
            return value.starts_with("-") ? "a count of rows cannot be negative" : "";
          },
          "COUNT"));
  command->add_flag(
      "--stats", *stats,
      "Print what was pruned and read (manifests, files, row groups, bytes, "
      "requests, rows) to stderr");
  OnRead(command, context, [=]() -> arrow::Status {
    ARROW_ASSIGN_OR_RAISE(auto ref, context->ResolveTable(*table));
    const std::optional<CatalogDeltaTable>& delta_table = ref.catalog_delta;
    if (ref.is_delta()) {
      DeltaScanArguments arguments;
      arguments.path = *table;
      arguments.filter = *where;
      arguments.catalog = delta_table ? &*delta_table : nullptr;
      if (!delta_table) {
        ARROW_ASSIGN_OR_RAISE(arguments.storage, context->PathStorage());
      }
      arguments.columns = ColumnList(*columns);
      if (*snapshot >= 0) arguments.version = *snapshot;
      if (*as_of >= 0) arguments.as_of_ms = *as_of;
      arguments.output = *output;
      if (*limit >= 0) arguments.output.limit = *limit;
      if (delta_table) {
        ARROW_ASSIGN_OR_RAISE(auto catalog, context->OpenCatalog());
        arguments.output.protected_files = catalog->OwnFiles();
      }
      arguments.stats = *stats;
      return ScanDelta(arguments);
    }
    ARROW_ASSIGN_OR_RAISE(auto loaded, context->LoadTable(ref));
    iceberg::ScanOptions scan_options;
    scan_options.columns = ColumnList(*columns);
    scan_options.filter = *where;
    scan_options.metadata_column_filters = true;
    if (*snapshot >= 0) scan_options.snapshot_id = *snapshot;
    if (*as_of >= 0) scan_options.as_of_ms = *as_of;
    ARROW_ASSIGN_OR_RAISE(auto scan, loaded->NewScan(scan_options));
    ARROW_ASSIGN_OR_RAISE(auto scanned, scan->ToRecordBatchReader());
    arrow::RecordBatchReader& reader = *scanned;
    OutputOptions options = *output;
    if (*limit >= 0) options.limit = *limit;
    // The output never replaces the table's files or the catalog's.
    options.protected_folders = iceberg::TableFolders::Of(*loaded->metadata()).Roots();
    options.protected_folders.push_back(loaded->metadata()->location);
    options.protected_files = loaded->catalog()->OwnFiles();
    ARROW_RETURN_NOT_OK(WriteScanOutput(reader, *scan->projection(), options).status());
    if (*stats) PrintScanStats(*scan->stats());
    return arrow::Status::OK();
  });
}

// floe drop
void RegisterDropCommand(CLI::App& app, CommandContext* context) {
  auto* command = AddCommand(app, context, "drop",
                             "Remove a table from the catalog (its files stay)");
  auto table = std::make_shared<std::string>();
  command->add_option("table", *table, "NAMESPACE.TABLE")->required();
  OnRun(command, context, [=]() -> arrow::Status {
    ARROW_ASSIGN_OR_RAISE(auto id, iceberg::TableIdentifier::Parse(*table));
    ARROW_ASSIGN_OR_RAISE(auto catalog, context->OpenCatalog());
    ARROW_ASSIGN_OR_RAISE(auto ref, context->ResolveTable(*table));
    ARROW_RETURN_NOT_OK(DropCatalogTable(catalog, ref));
    if (const auto& delta_table = ref.catalog_delta) {
      std::cout << "dropped Delta table " << Printable(id.ToString())
                << " (its files stay at " << Printable(delta_table->root) << ")\n";
      return arrow::Status::OK();
    }
    std::cout << "dropped table " << id.ToString() << "\n";
    return arrow::Status::OK();
  });
}

// floe rename
void RegisterRenameCommand(CLI::App& app, CommandContext* context) {
  auto* command = AddCommand(app, context, "rename", "Rename a table");
  auto from = std::make_shared<std::string>();
  auto to = std::make_shared<std::string>();
  command->add_option("from", *from, "NAMESPACE.TABLE")->required();
  command->add_option("to", *to, "NAMESPACE.TABLE")->required();
  OnRun(command, context, [=]() -> arrow::Status {
    ARROW_ASSIGN_OR_RAISE(auto source, iceberg::TableIdentifier::Parse(*from));
    ARROW_ASSIGN_OR_RAISE(auto target, iceberg::TableIdentifier::Parse(*to));
    ARROW_ASSIGN_OR_RAISE(auto catalog, context->OpenCatalog());
    ARROW_ASSIGN_OR_RAISE(auto source_ref, context->ResolveTable(*from));
    ARROW_RETURN_NOT_OK(RenameCatalogTable(catalog, source_ref, target));
    if (source_ref.catalog_delta) {
      std::cout << "renamed Delta table " << source.ToString() << " to "
                << target.ToString() << "\n";
      return arrow::Status::OK();
    }
    std::cout << "renamed " << source.ToString() << " to " << target.ToString() << "\n";
    return arrow::Status::OK();
  });
}

}  // namespace

void RegisterTableCommands(CLI::App& app, CommandContext* context) {
  RegisterCreateCommand(app, context);
  RegisterAppendCommand(app, context);
  RegisterDeleteCommand(app, context);
  RegisterUpdateCommand(app, context);
  RegisterUpsertCommand(app, context);
  RegisterRewriteCommand(app, context);
  RegisterOverwriteCommand(app, context);
  RegisterScanCommand(app, context);
  RegisterDropCommand(app, context);
  RegisterRenameCommand(app, context);
}

}  // namespace floe::cli
