// The commands on a Delta table by path: scan, describe, snapshots (the log's versions),
// files.
#include "floe/cli/commands_delta.h"

#include <iostream>

#include "arrow/compute/api.h"
#include "floe/cli/input_files.h"
#include "floe/delta/calendar_interval.h"
#include "floe/delta/log.h"
#include "floe/delta/scan.h"
#include "floe/delta/schema.h"
#include "floe/delta/vacuum.h"
#include "floe/delta/write.h"
#include "floe/io/file_io.h"
#include "floe/types/arrow_schema.h"
#include "floe/util/date_time.h"
#include "floe/util/error.h"
#include "floe/util/location.h"
#include "floe/util/number_text.h"
#include "floe/util/text.h"

namespace floe::cli {
namespace {

std::string TimeText(int64_t millis) { return FormatIsoDateTime(millis, 1000) + "Z"; }

arrow::Result<std::shared_ptr<FileIO>> IoFor(const std::string& root,
                                             const StorageProperties& storage) {
  return MakeFileIO(root, storage);
}

// A command's table: by path, or catalog-managed (its location, and the catalog's log
// tail for every read).
struct DeltaTarget {
  std::string root;
  std::string label;  // for messages
  std::shared_ptr<FileIO> io;
  std::optional<delta::LogTail> tail;
};

arrow::Result<DeltaTarget> Resolve(const std::string& path,
                                   const StorageProperties& storage,
                                   const CatalogDeltaTable* catalog) {
  DeltaTarget target;
  if (catalog != nullptr) {
    target.root = catalog->root;
    target.label = catalog->name;
    ARROW_ASSIGN_OR_RAISE(target.tail, catalog->committer->Tail());
  } else {
    target.root = TableRoot(path);
    target.label = target.root;
  }
  if (catalog != nullptr) {
    target.io = catalog->io;
  } else {
    ARROW_ASSIGN_OR_RAISE(target.io, IoFor(target.root, storage));
  }
  return target;
}

// Delta's byte and short columns as int: the text formats render values by their Iceberg
// type, which has no narrower integers.
std::shared_ptr<arrow::DataType> Widened(const std::shared_ptr<arrow::DataType>& type) {
  switch (type->id()) {
    case arrow::Type::INT8:
    case arrow::Type::INT16:
      return arrow::int32();
    case arrow::Type::STRUCT: {
      arrow::FieldVector fields;
      for (const auto& field : type->fields())
        fields.push_back(field->WithType(Widened(field->type())));
      return arrow::struct_(fields);
    }
    case arrow::Type::LIST: {
      const auto& list = static_cast<const arrow::ListType&>(*type);
      return arrow::list(list.value_field()->WithType(Widened(list.value_type())));
    }
    case arrow::Type::MAP: {
      const auto& map = static_cast<const arrow::MapType&>(*type);
      return arrow::map(Widened(map.key_type()),
                        map.item_field()->WithType(Widened(map.item_type())));
    }
    default:
      return type;
  }
}

class WideningReader : public arrow::RecordBatchReader {
 public:
  WideningReader(std::unique_ptr<arrow::RecordBatchReader> input,
                 std::shared_ptr<arrow::Schema> schema)
      : input_(std::move(input)), schema_(std::move(schema)) {}
  std::shared_ptr<arrow::Schema> schema() const override { return schema_; }
  arrow::Status ReadNext(std::shared_ptr<arrow::RecordBatch>* out) override {
    std::shared_ptr<arrow::RecordBatch> batch;
    ARROW_RETURN_NOT_OK(input_->ReadNext(&batch));
    if (!batch) {
      *out = nullptr;
      return arrow::Status::OK();
    }
    arrow::ArrayVector columns;
    for (int i = 0; i < batch->num_columns(); ++i) {
      const auto& type = schema_->field(i)->type();
      if (batch->column(i)->type()->Equals(*type)) {
        columns.push_back(batch->column(i));
      } else {
        ARROW_ASSIGN_OR_RAISE(auto cast, arrow::compute::Cast(*batch->column(i), type));
        columns.push_back(std::move(cast));
      }
    }
    *out = arrow::RecordBatch::Make(schema_, batch->num_rows(), std::move(columns));
    return arrow::Status::OK();
  }

 private:
  std::unique_ptr<arrow::RecordBatchReader> input_;
  std::shared_ptr<arrow::Schema> schema_;
};

std::string TypeText(const arrow::DataType& type) {
  switch (type.id()) {
    case arrow::Type::STRING:
      return "string";
    case arrow::Type::INT64:
      return "long";
    case arrow::Type::INT32:
      return "integer";
    case arrow::Type::INT16:
      return "short";
    case arrow::Type::INT8:
      return "byte";
    case arrow::Type::FLOAT:
      return "float";
    case arrow::Type::DOUBLE:
      return "double";
    case arrow::Type::BOOL:
      return "boolean";
    case arrow::Type::BINARY:
      return "binary";
    case arrow::Type::DATE32:
      return "date";
    case arrow::Type::TIMESTAMP:
      return static_cast<const arrow::TimestampType&>(type).timezone().empty()
                 ? "timestamp_ntz"
                 : "timestamp";
    case arrow::Type::DECIMAL128: {
      const auto& decimal = static_cast<const arrow::Decimal128Type&>(type);
      return "decimal(" + std::to_string(decimal.precision()) + "," +
             std::to_string(decimal.scale()) + ")";
    }
    case arrow::Type::STRUCT: {
      std::string text = "struct<";
      for (int i = 0; i < type.num_fields(); ++i) {
        text += (i ? ", " : "") + type.field(i)->name() + ": " +
                TypeText(*type.field(i)->type());
      }
      return text + ">";
    }
    case arrow::Type::LIST:
      return "array<" +
             TypeText(*static_cast<const arrow::ListType&>(type).value_type()) + ">";
    case arrow::Type::MAP: {
      const auto& map = static_cast<const arrow::MapType&>(type);
      return "map<" + TypeText(*map.key_type()) + ", " + TypeText(*map.item_type()) + ">";
    }
    default:
      return type.ToString();
  }
}

std::string FeaturesText(const std::optional<std::vector<std::string>>& features) {
  if (!features) return "";
  std::string text;
  for (const auto& feature : *features) text += (text.empty() ? "" : ",") + feature;
  return " [" + text + "]";
}

}  // namespace

arrow::Status ScanDelta(const DeltaScanArguments& arguments) {
  ARROW_ASSIGN_OR_RAISE(auto target,
                        Resolve(arguments.path, arguments.storage, arguments.catalog));
  const std::string& root = target.root;
  auto io = target.io;
  delta::DeltaScanOptions options;
  options.snapshot.tail = target.tail;
  options.columns = arguments.columns;
  options.filter = arguments.filter;
  options.snapshot.version = arguments.version;
  options.snapshot.as_of_ms = arguments.as_of_ms;
  ARROW_ASSIGN_OR_RAISE(auto scan, delta::DeltaScan::Make(io, root, options));
  ARROW_ASSIGN_OR_RAISE(auto rows, scan->ToRecordBatchReader());
  std::unique_ptr<arrow::RecordBatchReader> reader = std::move(rows);
  std::shared_ptr<arrow::Schema> schema = scan->schema();
  if (arguments.output.format != "parquet") {
    arrow::FieldVector fields;
    for (const auto& field : schema->fields())
      fields.push_back(field->WithType(Widened(field->type())));
    schema = arrow::schema(std::move(fields));
    reader = std::make_unique<WideningReader>(std::move(reader), schema);
  }
  ARROW_ASSIGN_OR_RAISE(auto iceberg_schema, FromArrowSchemaAssigningIds(*schema));
  OutputOptions output = arguments.output;
  output.protected_folders.push_back(root);
  ARROW_RETURN_NOT_OK(WriteScanOutput(*reader, *iceberg_schema, output).status());
  if (arguments.stats) {
    const auto& stats = scan->stats();
    std::cerr << "scan stats: version=" << scan->snapshot().version
              << " checkpoint=" << scan->snapshot().checkpoint_version
              << " commits_read=" << scan->snapshot().commits_read
              << " files_planned=" << stats.files_planned
              << " files_skipped=" << stats.files_skipped
              << " files_read=" << stats.files_read << " rows=" << stats.rows << "\n";
  }
  return arrow::Status::OK();
}

arrow::Status DescribeDelta(const std::string& path, const StorageProperties& storage,
                            const CatalogDeltaTable* catalog) {
  ARROW_ASSIGN_OR_RAISE(auto target, Resolve(path, storage, catalog));
  const std::string& root = target.root;
  delta::SnapshotOptions read;
  read.tail = target.tail;
  ARROW_ASSIGN_OR_RAISE(auto snapshot, delta::LoadSnapshot(*target.io, root, read));
  const auto& metadata = snapshot.metadata;
  const auto& protocol = snapshot.protocol;
  int64_t bytes = 0;
  for (const auto& file : snapshot.files) bytes += file.size;
  if (catalog != nullptr) {
    std::cout << "table           " << Printable(catalog->name)
              << " (Delta, catalog-managed)\n"
              << "location        " << Printable(root) << "\n";
  } else {
    std::cout << "table           " << Printable(root) << " (Delta, by path)\n";
  }
  std::cout << "id              " << Printable(metadata.id) << "\n";
  if (!metadata.name.empty())
    std::cout << "name            " << Printable(metadata.name) << "\n";
  std::cout << "protocol        reader " << protocol.min_reader_version
            << Printable(FeaturesText(protocol.reader_features)) << ", writer "
            << protocol.min_writer_version
            << Printable(FeaturesText(protocol.writer_features)) << "\n"
            << "version         " << snapshot.version << " ("
            << TimeText(snapshot.timestamp_ms) << ", " << snapshot.files.size()
            << " data files, " << bytes << " bytes)\n";
  auto readable = delta::CheckReadable(snapshot);
  if (!readable.ok())
    std::cout << "floe reads it   no: " << Printable(readable.message()) << "\n";
  auto schema = delta::SchemaFromJson(metadata.schema_string);
  if (schema.ok()) {
    std::cout << "schema:\n";
    for (const auto& field : (*schema)->fields()) {
      std::cout << "  " << Printable(field->name()) << ": "
                << Printable(TypeText(*field->type()))
                << (field->nullable() ? "" : " not null") << "\n";
    }
  } else {
    std::cout << "schema          " << Printable(schema.status().message()) << "\n";
  }
  const std::string columns = JoinText(metadata.partition_columns);
  std::cout << "partitioned by  " << Printable(columns.empty() ? "(none)" : columns)
            << "\n"
            << "properties:\n";
  for (const auto& [key, value] : metadata.configuration) {
    std::cout << "  " << Printable(key) << " = " << Printable(value) << "\n";
  }
  // How long vacuum keeps a removed file, as delta-spark reads the interval.
  auto retention = delta::IntervalPropertyMillis(
      metadata.configuration, "delta.deletedFileRetentionDuration", 604'800'000);
  std::cout << "file retention  "
            << (retention.ok() ? std::to_string(*retention) + " ms"
                               : "unreadable: " + Printable(retention.status().message()))
            << "\n";
  return arrow::Status::OK();
}

arrow::Status ListDeltaVersions(const std::string& path, const StorageProperties& storage,
                                const CatalogDeltaTable* catalog) {
  ARROW_ASSIGN_OR_RAISE(auto target, Resolve(path, storage, catalog));
  const std::string& root = target.root;
  auto& io = target.io;
  ARROW_ASSIGN_OR_RAISE(
      auto versions,
      delta::ListVersions(*io, root, target.tail ? &*target.tail : nullptr));
  if (versions.empty()) {
    ARROW_ASSIGN_OR_RAISE(bool exists, delta::IsDeltaTable(*io, root));
    if (!exists) {
      return MakeError(ErrorKind::kNoSuchTable, "no Delta table at " + root);
    }
    std::cout << "(no commits listed: only a checkpoint remains)\n";
  }
  for (size_t i = 0; i < versions.size(); ++i) {
    const auto& version = versions[i];
    std::cout << (i + 1 == versions.size() ? "* " : "  ") << version.version << "  "
              << TimeText(version.modified_ms) << "  " << Printable(version.location)
              << "\n";
  }
  return arrow::Status::OK();
}

arrow::Status ListDeltaFiles(const std::string& path, std::optional<int64_t> version,
                             const StorageProperties& storage,
                             const CatalogDeltaTable* catalog) {
  ARROW_ASSIGN_OR_RAISE(auto target, Resolve(path, storage, catalog));
  const std::string& root = target.root;
  auto& io = target.io;
  delta::SnapshotOptions options;
  options.version = version;
  options.tail = target.tail;
  ARROW_ASSIGN_OR_RAISE(auto snapshot, delta::LoadSnapshot(*io, root, options));
  int64_t bytes = 0;
  for (const auto& file : snapshot.files) {
    std::string partition;
    for (const auto& column : snapshot.metadata.partition_columns) {
      auto value = file.partition_values.find(column);
      partition +=
          (partition.empty() ? "" : "/") + column + "=" +
          (value == file.partition_values.end() || !value->second ? std::string("null")
                                                                  : *value->second);
    }
    std::cout << Printable(file.location) << "  "
              << Printable(partition.empty() ? "-" : partition) << "  " << file.size
              << " bytes\n";
    bytes += file.size;
  }
  std::cout << "(" << snapshot.files.size() << " files, " << bytes << " bytes, version "
            << snapshot.version << ")\n";
  return arrow::Status::OK();
}

arrow::Status VacuumDelta(const std::string& path, const StorageProperties& storage,
                          std::optional<int64_t> retention_ms, bool dry_run,
                          bool any_name, bool check_retention) {
  std::string root = TableRoot(path);
  ARROW_ASSIGN_OR_RAISE(auto io, IoFor(root, storage));
  delta::VacuumOptions options;
  options.retention_ms = retention_ms;
  options.dry_run = dry_run;
  options.any_name = any_name;
  options.check_retention = check_retention;
  ARROW_ASSIGN_OR_RAISE(auto result, delta::Vacuum(io, root, options));
  for (const auto& file : result.deleted) {
    std::cout << (dry_run ? "would delete " : "deleted ") << Printable(file.location)
              << "  " << file.size << " bytes\n";
  }
  for (const auto& file : result.kept) {
    std::cout << "kept " << Printable(file.location) << "  (" << Printable(file.reason)
              << ")\n";
  }
  for (const auto& file : result.failed) {
    std::cout << "could not delete " << Printable(file.location) << ": "
              << Printable(file.reason) << "\n";
  }
  std::cout << "Delta table " << Printable(root) << " at version " << result.version
            << ": " << result.deleted.size() << " file"
            << (result.deleted.size() == 1 ? "" : "s") << " (" << result.bytes
            << " bytes) " << (dry_run ? "to delete" : "deleted") << ", retention "
            << result.retention_ms / 1000 << " s; " << result.kept.size()
            << " unreferenced kept\n";
  if (!result.failed.empty()) {
    return arrow::Status::IOError(std::to_string(result.failed.size()) +
                                  " files of Delta table " + root +
                                  " could not be deleted");
  }
  return arrow::Status::OK();
}

arrow::Status CreateDelta(const std::string& path, const StorageProperties& storage,
                          const arrow::Schema& schema,
                          const std::vector<std::string>& partition_columns,
                          const std::map<std::string, std::string>& properties) {
  std::string root = TableRoot(path);
  ARROW_ASSIGN_OR_RAISE(auto io, IoFor(root, storage));
  delta::CreateTableOptions options;
  options.partition_columns = partition_columns;
  options.properties = properties;
  ARROW_ASSIGN_OR_RAISE(int64_t version, delta::CreateTable(io, root, schema, options));
  std::cout << "created Delta table " << Printable(root) << " (version " << version
            << ")\n";
  return arrow::Status::OK();
}

namespace {

// The end of a write's line: the attempts it took and the checkpoint it wrote, if any.
void PrintCommitEnd(const delta::DeltaWriteResult& result) {
  if (result.attempts > 1)
    std::cout << " (committed on attempt " << result.attempts << ")";
  if (result.checkpoint_version >= 0)
    std::cout << "; checkpoint written at version " << result.checkpoint_version;
  std::cout << "\n";
}

}  // namespace

arrow::Status WriteDelta(const std::string& path, const StorageProperties& storage,
                         const std::vector<std::string>& files,
                         const std::string& input_format, bool overwrite,
                         const std::string& txn, int threads,
                         const CatalogDeltaTable* catalog,
                         const std::optional<std::string>& predicate,
                         int64_t memory_limit) {
  ARROW_ASSIGN_OR_RAISE(auto target, Resolve(path, storage, catalog));
  const std::string root = target.root;
  delta::DeltaWriteOptions options;
  options.threads = threads;
  options.memory_limit = memory_limit;
  options.predicate = predicate;
  if (catalog != nullptr) options.committer = catalog->committer;
  if (!txn.empty()) {
    const size_t colon = txn.rfind(':');
    const std::string version =
        colon == std::string::npos ? std::string() : txn.substr(colon + 1);
    const std::optional<int64_t> parsed = ParseDigits(version);
    if (colon == 0 || colon == std::string::npos || !parsed) {
      return MakeError(
          ErrorKind::kInvalidInput,
          "--txn takes APP_ID:VERSION (VERSION a non-negative integer), not " +
              Printable(txn));
    }
    options.app_id = txn.substr(0, colon);
    options.app_version = *parsed;
  }
  auto io = target.io;
  delta::SnapshotOptions read;
  read.tail = target.tail;
  ARROW_ASSIGN_OR_RAISE(auto snapshot, delta::LoadSnapshot(*io, root, read));
  ARROW_ASSIGN_OR_RAISE(auto schema,
                        delta::SchemaFromJson(snapshot.metadata.schema_string));
  // The input is read in the table's columns (byte and short columns as int, cast back by
  // the write).
  ARROW_ASSIGN_OR_RAISE(auto iceberg_schema, FromArrowSchemaAssigningIds(*schema));
  ARROW_ASSIGN_OR_RAISE(auto input,
                        OpenInputFiles(files, input_format, iceberg_schema,
                                       "Delta table " + root, [](const std::string&) {}));
  options.mode =
      overwrite ? delta::DeltaWriteMode::kOverwrite : delta::DeltaWriteMode::kAppend;
  ARROW_ASSIGN_OR_RAISE(auto result, delta::Write(io, root, *input, options));
  if (result.skipped) {
    std::cout << "skipped: Delta table " << Printable(target.label)
              << " already has application " << Printable(options.app_id)
              << " at version " << *options.app_version << " or later (table version "
              << result.version << ")\n";
    return arrow::Status::OK();
  }
  if (predicate) {
    std::cout << "overwrote " << result.rows_deleted << " rows matching the predicate in "
              << "Delta table " << Printable(target.label) << " with " << result.rows
              << " rows (" << result.files_removed << " data files removed, "
              << result.files_added << " written, " << result.rows_copied
              << " rows copied) as version " << result.version << "\n";
    return arrow::Status::OK();
  }
  const std::string file_count = std::to_string(result.files_added) + " data file" +
                                 (result.files_added == 1 ? "" : "s");
  if (overwrite) {
    std::cout << "overwrote Delta table " << Printable(target.label) << " with "
              << result.rows << " rows in " << file_count << " (" << result.files_removed
              << " removed) as version " << result.version;
  } else {
    std::cout << "appended " << result.rows << " rows in " << file_count
              << " to Delta table " << Printable(target.label) << " as version "
              << result.version;
  }
  PrintCommitEnd(result);
  return arrow::Status::OK();
}

arrow::Status DeleteDelta(const std::string& path, const StorageProperties& storage,
                          const std::string& predicate, int threads,
                          const CatalogDeltaTable* catalog) {
  ARROW_ASSIGN_OR_RAISE(auto target, Resolve(path, storage, catalog));
  delta::DeltaWriteOptions options;
  options.mode = delta::DeltaWriteMode::kDelete;
  options.predicate = predicate;
  options.threads = threads;
  if (catalog != nullptr) options.committer = catalog->committer;
  auto none = arrow::RecordBatchReader::Make({}, arrow::schema({}));
  if (!none.ok()) return none.status();
  ARROW_ASSIGN_OR_RAISE(auto result,
                        delta::Write(target.io, target.root, **none, options));
  if (result.skipped) {
    std::cout << "deleted 0 rows from Delta table " << Printable(target.label)
              << ": no row matches; no version committed (table version "
              << result.version << ")\n";
    return arrow::Status::OK();
  }
  std::cout << "deleted " << result.rows_deleted << " rows from Delta table "
            << Printable(target.label) << " (" << result.files_removed
            << " data files removed, " << result.files_added << " written, "
            << result.rows_copied << " rows copied) as version " << result.version;
  PrintCommitEnd(result);
  return arrow::Status::OK();
}

arrow::Status CompactDelta(const std::string& path, const StorageProperties& storage,
                           const std::string& predicate, int64_t min_file_size,
                           int64_t max_file_size, int threads,
                           const CatalogDeltaTable* catalog) {
  ARROW_ASSIGN_OR_RAISE(auto target, Resolve(path, storage, catalog));
  delta::DeltaCompactOptions options;
  options.predicate = predicate;
  options.min_file_size = min_file_size;
  options.max_file_size = max_file_size;
  options.threads = threads;
  if (catalog != nullptr) options.committer = catalog->committer;
  ARROW_ASSIGN_OR_RAISE(auto result, delta::Compact(target.io, target.root, options));
  if (result.skipped) {
    std::cout << "nothing to compact in Delta table " << Printable(target.label)
              << " (no partition has two or more small files holding rows); no version "
                 "committed (table version "
              << result.version << ")\n";
    return arrow::Status::OK();
  }
  std::cout << "compacted " << result.files_removed << " data files of Delta table "
            << Printable(target.label) << " (" << result.rows << " rows) into "
            << result.files_added << " as version " << result.version;
  PrintCommitEnd(result);
  return arrow::Status::OK();
}

}  // namespace floe::cli
