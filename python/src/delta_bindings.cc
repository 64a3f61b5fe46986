// Delta tables, by path or in a catalog: floe._floe's delta_* functions, which floe.delta
// calls (the same functions as the floe command's Delta commands).
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "arrow/record_batch.h"
#include "arrow/type.h"
#include "bindings_internal.h"
#include "floe/delta/log.h"
#include "floe/delta/scan.h"
#include "floe/delta/schema.h"
#include "floe/delta/vacuum.h"
#include "floe/delta/write.h"
#include "floe/iceberg/catalog/catalog.h"
#include "floe/io/file_io.h"
#include "floe/lakehouse/delta_tables.h"
#include "floe/util/error.h"

using namespace nb::literals;

namespace floe::python {
namespace {

// A table by path: its FileIO configured by `storage` (iceberg-java's s3.* keys).
std::shared_ptr<FileIO> DeltaIO(const std::string& path,
                                const std::map<std::string, std::string>& storage) {
  return Unwrap(MakeFileIO(path, storage));
}

// A Delta table as the functions below address it: `path` is the table's path, or with
// `catalog` its NAMESPACE.TABLE there (a catalog-managed table: its commits go through
// the catalog's coordinator, its reads take the catalog's log tail).
struct DeltaHandle {
  std::string root;
  std::shared_ptr<FileIO> io;
  std::shared_ptr<delta::CatalogCommitter> committer;  // null by path
};

DeltaHandle OpenDelta(const std::string& path, PyCatalog* catalog,
                      const std::map<std::string, std::string>& storage) {
  if (catalog == nullptr) {
    // A relative path is the current folder's, as the floe command takes it.
    const std::string root = TableRoot(path);
    return {root, DeltaIO(root, storage), nullptr};
  }
  if (!storage.empty()) {
    Throw(MakeError(ErrorKind::kInvalidInput,
                    "storage applies to a Delta table given by path; a catalog-managed "
                    "table uses its catalog's properties"));
  }
  auto id = Unwrap(iceberg::TableIdentifier::Parse(path));
  auto found = Unwrap(FindDeltaTable(catalog->catalog(), id));
  if (!found) {
    Throw(MakeError(ErrorKind::kNoSuchTable, "catalog " + catalog->name() +
                                                 " has no Delta table " + id.ToString()));
  }
  return {found->root, found->io, found->committer};
}

std::optional<delta::LogTail> TailOf(const DeltaHandle& table) {
  if (!table.committer) return std::nullopt;
  return Unwrap(table.committer->Tail());
}

int64_t DeltaCreate(const std::string& path, nb::handle schema,
                    const std::vector<std::string>& partition_columns,
                    const std::map<std::string, std::string>& properties,
                    PyCatalog* catalog, const std::string& location,
                    const std::map<std::string, std::string>& storage) {
  auto arrow_schema = ImportSchema(schema);
  return RunReleased([&]() -> int64_t {
    if (catalog != nullptr) {
      if (!storage.empty()) {
        Throw(MakeError(ErrorKind::kInvalidInput,
                        "storage applies to a Delta table given by path; a "
                        "catalog-managed table uses its catalog's properties"));
      }
      auto id = Unwrap(iceberg::TableIdentifier::Parse(path));
      Unwrap(CreateDeltaTable(catalog->catalog(), id, *arrow_schema, partition_columns,
                              properties, location));
      return 0;
    }
    if (!location.empty()) {
      Throw(MakeError(ErrorKind::kInvalidInput,
                      "location applies to a Delta table created in a catalog; by path, "
                      "the path is the location"));
    }
    delta::CreateTableOptions options;
    options.partition_columns = partition_columns;
    options.properties = properties;
    const std::string root = TableRoot(path);
    return Unwrap(
        delta::CreateTable(DeltaIO(root, storage), root, *arrow_schema, options));
  });
}

nb::dict DeltaWrite(const std::string& path, nb::handle data, const std::string& mode,
                    const std::string& app_id, std::optional<int64_t> app_version,
                    int threads, PyCatalog* catalog,
                    const std::map<std::string, std::string>& storage,
                    const std::optional<std::string>& predicate, int64_t min_file_size,
                    int64_t max_file_size, int64_t memory_limit,
                    const std::optional<std::vector<std::string>>& create_partition_by,
                    const std::map<std::string, std::string>& create_properties) {
  if (mode != "append" && mode != "overwrite" && mode != "delete" && mode != "compact") {
    Throw(MakeError(ErrorKind::kInvalidInput,
                    "mode must be 'append' or 'overwrite', not '" + mode + "'"));
  }
  std::shared_ptr<arrow::RecordBatchReader> input;
  if (mode == "delete" || mode == "compact") {
    input = Unwrap(arrow::RecordBatchReader::Make({}, arrow::schema({})));
  } else {
    input = ImportStream(data);
  }
  auto result = RunReleased([&] {
    DeltaHandle table = OpenDelta(path, catalog, storage);
    if (mode == "compact") {
      delta::DeltaCompactOptions options;
      options.predicate = predicate.value_or("");
      options.min_file_size = min_file_size;
      options.max_file_size = max_file_size;
      options.threads = threads;
      options.memory_limit = memory_limit;
      options.committer = table.committer;
      return Unwrap(delta::Compact(table.io, table.root, options));
    }
    delta::DeltaWriteOptions options;
    options.mode = mode == "append"      ? delta::DeltaWriteMode::kAppend
                   : mode == "overwrite" ? delta::DeltaWriteMode::kOverwrite
                                         : delta::DeltaWriteMode::kDelete;
    options.predicate = predicate;
    options.app_id = app_id;
    options.app_version = app_version;
    options.threads = threads;
    options.memory_limit = memory_limit;
    options.committer = table.committer;
    if (create_partition_by) {
      delta::CreateTableOptions create;
      create.partition_columns = *create_partition_by;
      create.properties = create_properties;
      options.create_if_missing = std::move(create);
    }
    return Unwrap(delta::Write(table.io, table.root, *input, options));
  });
  nb::dict out;
  out["version"] = result.version;
  out["attempts"] = result.attempts;
  out["files_added"] = result.files_added;
  out["files_removed"] = result.files_removed;
  out["rows"] = result.rows;
  out["bytes"] = result.bytes;
  out["skipped"] = result.skipped;
  out["checkpoint_version"] = result.checkpoint_version;
  out["rows_deleted"] = result.rows_deleted;
  out["rows_copied"] = result.rows_copied;
  return out;
}

nb::capsule DeltaScanStream(const std::string& path,
                            const std::vector<std::string>& columns,
                            std::optional<int64_t> version,
                            std::optional<int64_t> as_of_ms, PyCatalog* catalog,
                            const std::map<std::string, std::string>& storage,
                            const std::string& where) {
  auto reader = RunReleased([&] {
    DeltaHandle table = OpenDelta(path, catalog, storage);
    delta::DeltaScanOptions options;
    options.columns = columns;
    options.filter = where;
    options.snapshot.version = version;
    options.snapshot.as_of_ms = as_of_ms;
    options.snapshot.tail = TailOf(table);
    auto scan = std::shared_ptr<delta::DeltaScan>(
        Unwrap(delta::DeltaScan::Make(table.io, table.root, options)));
    auto rows =
        std::shared_ptr<arrow::RecordBatchReader>(Unwrap(scan->ToRecordBatchReader()));
    // The reader points into the scan's snapshot: it keeps the scan alive.
    return std::shared_ptr<arrow::RecordBatchReader>(rows.get(), [scan, rows](auto*) {});
  });
  return ExportStream(std::move(reader));
}

nb::list DeltaVersions(const std::string& path, PyCatalog* catalog,
                       const std::map<std::string, std::string>& storage) {
  auto versions = RunReleased([&] {
    DeltaHandle table = OpenDelta(path, catalog, storage);
    auto tail = TailOf(table);
    auto listed =
        Unwrap(delta::ListVersions(*table.io, table.root, tail ? &*tail : nullptr));
    if (listed.empty() && !Unwrap(delta::IsDeltaTable(*table.io, table.root))) {
      Throw(MakeError(ErrorKind::kNoSuchTable, "no Delta table at " + table.root));
    }
    return listed;
  });
  nb::list out;
  for (const auto& version : versions) {
    nb::dict entry;
    entry["version"] = version.version;
    entry["modified_ms"] = version.modified_ms;
    entry["location"] = version.location;
    out.append(entry);
  }
  return out;
}

// NoSuchTable unless `path` (or the catalog's name) holds a Delta table: its log is
// listed, no version read.
void DeltaCheck(const std::string& path, PyCatalog* catalog,
                const std::map<std::string, std::string>& storage) {
  RunReleased([&] {
    DeltaHandle table = OpenDelta(path, catalog, storage);
    if (!table.committer && !Unwrap(delta::IsDeltaTable(*table.io, table.root))) {
      Throw(MakeError(ErrorKind::kNoSuchTable, "no Delta table at " + table.root));
    }
    return true;
  });
}

nb::dict DeltaVacuum(const std::string& path, std::optional<int64_t> retention_ms,
                     bool dry_run, bool any_name, bool check_retention,
                     const std::map<std::string, std::string>& storage) {
  auto result = RunReleased([&] {
    DeltaHandle table = OpenDelta(path, nullptr, storage);
    delta::VacuumOptions options;
    options.retention_ms = retention_ms;
    options.dry_run = dry_run;
    options.any_name = any_name;
    options.check_retention = check_retention;
    return Unwrap(delta::Vacuum(table.io, table.root, options));
  });
  nb::dict out;
  out["version"] = result.version;
  out["retention_ms"] = result.retention_ms;
  out["bytes"] = result.bytes;
  nb::list deleted, kept, failed;
  for (const auto& file : result.deleted) deleted.append(file.location);
  for (const auto& file : result.kept)
    kept.append(nb::make_tuple(file.location, file.reason));
  for (const auto& file : result.failed) {
    failed.append(nb::make_tuple(file.location, file.reason));
  }
  out["deleted"] = deleted;
  out["kept"] = kept;
  out["failed"] = failed;
  return out;
}

nb::dict DeltaSnapshotInfo(const std::string& path, std::optional<int64_t> version,
                           PyCatalog* catalog,
                           const std::map<std::string, std::string>& storage) {
  auto snapshot = RunReleased([&] {
    DeltaHandle table = OpenDelta(path, catalog, storage);
    delta::SnapshotOptions options;
    options.version = version;
    options.tail = TailOf(table);
    return Unwrap(delta::LoadSnapshot(*table.io, table.root, options));
  });
  nb::dict out;
  out["version"] = snapshot.version;
  out["timestamp_ms"] = snapshot.timestamp_ms;
  out["table_id"] = snapshot.metadata.id;
  out["min_reader_version"] = snapshot.protocol.min_reader_version;
  out["min_writer_version"] = snapshot.protocol.min_writer_version;
  out["reader_features"] =
      snapshot.protocol.reader_features.value_or(std::vector<std::string>());
  out["writer_features"] =
      snapshot.protocol.writer_features.value_or(std::vector<std::string>());
  out["partition_columns"] = snapshot.metadata.partition_columns;
  out["properties"] = snapshot.metadata.configuration;
  out["schema"] =
      ExportSchema(*Unwrap(delta::SchemaFromJson(snapshot.metadata.schema_string)));
  // The files cross as one Arrow batch, not one Python object each.
  auto adds = Unwrap(delta::AddActionsBatch(snapshot));
  out["add_actions"] =
      ExportStream(Unwrap(arrow::RecordBatchReader::Make({adds}, adds->schema())));
  auto readable = delta::CheckReadable(snapshot);
  if (readable.ok()) {
    out["readable"] = nb::none();
  } else {
    out["readable"] = readable.message();
  }
  return out;
}

}  // namespace

void BindDelta(nb::module_& m) {
  m.def("delta_create", &DeltaCreate, "path"_a, "schema"_a, "partition_columns"_a,
        "properties"_a, "catalog"_a.none() = nb::none(), "location"_a = "",
        "storage"_a = std::map<std::string, std::string>());
  m.def("delta_write", &DeltaWrite, "path"_a, "data"_a.none(), "mode"_a, "app_id"_a,
        "app_version"_a.none(), "threads"_a, "catalog"_a.none() = nb::none(),
        "storage"_a = std::map<std::string, std::string>(),
        "predicate"_a.none() = nb::none(), "min_file_size"_a = int64_t{1} << 30,
        "max_file_size"_a = int64_t{1} << 30, "memory_limit"_a = 0,
        "create_partition_by"_a.none() = nb::none(),
        "create_properties"_a = std::map<std::string, std::string>());
  m.def("delta_scan", &DeltaScanStream, "path"_a, "columns"_a, "version"_a.none(),
        "as_of_ms"_a.none(), "catalog"_a.none() = nb::none(),
        "storage"_a = std::map<std::string, std::string>(), "where"_a = "");
  m.def("delta_versions", &DeltaVersions, "path"_a, "catalog"_a.none() = nb::none(),
        "storage"_a = std::map<std::string, std::string>());
  m.def("delta_check", &DeltaCheck, "path"_a, "catalog"_a.none() = nb::none(),
        "storage"_a = std::map<std::string, std::string>());
  m.def("delta_vacuum", &DeltaVacuum, "path"_a, "retention_ms"_a.none(), "dry_run"_a,
        "any_name"_a, "check_retention"_a,
        "storage"_a = std::map<std::string, std::string>());
  m.def("delta_snapshot", &DeltaSnapshotInfo, "path"_a, "version"_a.none(),
        "catalog"_a.none() = nb::none(),
        "storage"_a = std::map<std::string, std::string>());
}

}  // namespace floe::python
