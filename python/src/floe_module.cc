// floe._floe: the C++ engine's table API for the Python package (python/floe). The
// classes here are thin: they convert arguments, move Arrow data through the Arrow
// PyCapsule interface (no column data is copied), release the GIL around every call
// that does I/O, and turn floe's errors into the package's exceptions. The Python layer
// (python/floe/*.py) gives them the names, defaults and documentation users see.
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <nanobind/nanobind.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include "arrow/array.h"
#include "arrow/array/util.h"
#include "arrow/c/abi.h"
#include "arrow/c/bridge.h"
#include "arrow/compute/initialize.h"
#include "arrow/record_batch.h"
#include "arrow/type.h"
#include "floe/cli/catalog_resolution.h"
#include "floe/delta/log.h"
#include "floe/delta/scan.h"
#include "floe/delta/schema.h"
#include "floe/delta/vacuum.h"
#include "floe/delta/write.h"
#include "floe/expr/binder.h"
#include "floe/expr/parser.h"
#include "floe/iceberg/catalog/catalog.h"
#include "floe/iceberg/commit/committer.h"
#include "floe/iceberg/gate/gate.h"
#include "floe/iceberg/spec/partition_spec.h"
#include "floe/iceberg/spec/schema_ddl.h"
#include "floe/iceberg/spec/sort_order.h"
#include "floe/iceberg/spec/table_metadata.h"
#include "floe/iceberg/table/maintenance.h"
#include "floe/iceberg/table/orphan_files.h"
#include "floe/iceberg/table/table.h"
#include "floe/iceberg/transform/transform_kernels.h"
#include "floe/iceberg/write/batch_conformer.h"
#include "floe/iceberg/write/iceberg_task.h"
#include "floe/iceberg/write/write_plan.h"
#include "floe/io/file_io.h"
#include "floe/lakehouse/delta_tables.h"
#include "floe/types/arrow_schema.h"
#include "floe/util/cancel.h"
#include "floe/util/duration.h"
#include "floe/util/error.h"
#include "floe/util/text.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace floe::python {
namespace {

// A failed floe status on its way to Python: the translator below makes it the
// exception the package's _errors.error_for gives for `kind`.
struct StatusError : std::exception {
  std::string kind;
  std::string message;
  std::vector<std::string> reasons;
  const char* what() const noexcept override { return message.c_str(); }
};

// The Python callable (kind, message, reasons) -> exception instance, set once by the
// package at import. Never released: it lives as long as the interpreter.
PyObject* error_factory = nullptr;

[[noreturn]] void Throw(const arrow::Status& status, std::string kind = "") {
  StatusError error;
  error.kind =
      kind.empty() ? std::string(ErrorKindName(KindOf(status))) : std::move(kind);
  // A status from Arrow carries no floe kind: its code says which exception fits best,
  // so that none arrives as the bare base class.
  if (error.kind == "Unknown") {
    if (status.IsIOError()) {
      error.kind = "IOError";
    } else if (status.IsNotImplemented()) {
      error.kind = "NotSupported";
    } else if (status.IsCancelled()) {
      error.kind = "Cancelled";
    } else if (status.IsInvalid() || status.IsTypeError() || status.IsIndexError() ||
               status.IsKeyError() || status.IsCapacityError()) {
      error.kind = "InvalidInput";
    }
  }
  error.message = status.message();
  error.reasons = DeclineReasons(status);
  throw error;
}

void Check(const arrow::Status& status) {
  if (!status.ok()) Throw(status);
}

template <typename T>
T Unwrap(arrow::Result<T> result) {
  if (!result.ok()) Throw(result.status());
  return std::move(result).ValueUnsafe();
}

// Progress of a running write, handed from the worker thread to the waiting one.
struct ProgressBox {
  std::mutex mutex;
  iceberg::WriteProgress latest;
  bool changed = false;
  void Set(const iceberg::WriteProgress& progress) {
    std::lock_guard lock(mutex);
    latest = progress;
    changed = true;
  }
};

// Runs `work` (which returns an arrow::Result or Status) on a thread of its own while
// the calling thread waits without the GIL, waking every 50 ms to let Python handle
// signals: Ctrl-C (or any handler raising) asks floe's work to stop at its next safe
// point (this call's CancellationToken: a write deletes its files and commits nothing;
// other threads' calls go on), waits for
// it, and raises the handler's exception (KeyboardInterrupt). `progress`, when given,
// is called on the calling thread with the latest progress of `box`.
template <typename Work>
auto RunReleased(Work&& work, ProgressBox* box = nullptr,
                 const nb::object& progress = nb::none()) {
  using R = decltype(work());
  std::optional<R> result;
  std::exception_ptr failure;
  std::mutex mutex;
  std::condition_variable done_signal;
  bool done = false;
  // This call's own token: an interrupt stops this work and no other thread's.
  auto token = std::make_shared<CancellationToken>();
  std::thread worker([&] {
    CancellationScope scope(token);
    try {
      result.emplace(work());
    } catch (...) {
      failure = std::current_exception();
    }
    std::lock_guard lock(mutex);
    done = true;
    done_signal.notify_all();
  });
  bool interrupted = false;
  while (true) {
    {
      nb::gil_scoped_release release;
      std::unique_lock lock(mutex);
      done_signal.wait_for(lock, std::chrono::milliseconds(50), [&] { return done; });
      if (done) break;
    }
    if (interrupted) continue;
    if (PyErr_CheckSignals() != 0) {
      interrupted = true;
    } else if (box != nullptr && !progress.is_none()) {
      std::optional<iceberg::WriteProgress> latest;
      {
        std::lock_guard lock(box->mutex);
        if (box->changed) latest = box->latest;
        box->changed = false;
      }
      if (latest) {
        nb::dict info;
        info["rows"] = latest->rows;
        info["batches"] = latest->batches;
        info["input_done"] = latest->input_done;
        info["rows_sorted"] = latest->rows_sorted;
        PyObject* called = PyObject_CallOneArg(progress.ptr(), info.ptr());
        if (called == nullptr) interrupted = true;
        Py_XDECREF(called);
      }
    }
    if (interrupted) token->Cancel();
  }
  worker.join();
  if (interrupted) {
    // The Python error (KeyboardInterrupt, or what the progress callable raised) is set;
    // floe's work stopped (or had passed its commit point and completed).
    throw nb::python_error();
  }
  if (failure) std::rethrow_exception(failure);
  return std::move(*result);
}

// ---- Arrow through the PyCapsule interface -------------------------------------------

std::shared_ptr<arrow::RecordBatchReader> ImportStream(nb::handle capsule) {
  auto* stream = static_cast<ArrowArrayStream*>(
      PyCapsule_GetPointer(capsule.ptr(), "arrow_array_stream"));
  if (stream == nullptr) throw nb::python_error();
  if (stream->release == nullptr) {
    Throw(MakeError(ErrorKind::kInvalidInput,
                    "the input stream was already consumed or released"));
  }
  return Unwrap(arrow::ImportRecordBatchReader(stream));
}

nb::capsule ExportStream(std::shared_ptr<arrow::RecordBatchReader> reader) {
  auto stream = std::make_unique<ArrowArrayStream>();
  Check(arrow::ExportRecordBatchReader(std::move(reader), stream.get()));
  return nb::capsule(stream.release(), "arrow_array_stream", [](void* pointer) noexcept {
    auto* stream = static_cast<ArrowArrayStream*>(pointer);
    if (stream->release != nullptr) stream->release(stream);
    delete stream;
  });
}

nb::capsule ExportSchema(const arrow::Schema& schema) {
  auto exported = std::make_unique<ArrowSchema>();
  Check(arrow::ExportSchema(schema, exported.get()));
  return nb::capsule(exported.release(), "arrow_schema", [](void* pointer) noexcept {
    auto* schema = static_cast<ArrowSchema*>(pointer);
    if (schema->release != nullptr) schema->release(schema);
    delete schema;
  });
}

std::shared_ptr<arrow::Schema> ImportSchema(nb::handle capsule) {
  auto* schema =
      static_cast<ArrowSchema*>(PyCapsule_GetPointer(capsule.ptr(), "arrow_schema"));
  if (schema == nullptr) throw nb::python_error();
  return Unwrap(arrow::ImportSchema(schema));
}

// At most `limit` rows of `input` (slices: no copy).
class LimitedReader final : public arrow::RecordBatchReader {
 public:
  LimitedReader(std::shared_ptr<arrow::RecordBatchReader> input, int64_t limit)
      : input_(std::move(input)), left_(limit) {}
  std::shared_ptr<arrow::Schema> schema() const override { return input_->schema(); }
  arrow::Status ReadNext(std::shared_ptr<arrow::RecordBatch>* batch) override {
    if (left_ <= 0) {
      *batch = nullptr;
      return arrow::Status::OK();
    }
    ARROW_RETURN_NOT_OK(input_->ReadNext(batch));
    if (*batch == nullptr) return arrow::Status::OK();
    if ((*batch)->num_rows() > left_) *batch = (*batch)->Slice(0, left_);
    left_ -= (*batch)->num_rows();
    return arrow::Status::OK();
  }
  arrow::Status Close() override { return input_->Close(); }

 private:
  std::shared_ptr<arrow::RecordBatchReader> input_;
  int64_t left_;
};

// ---- Results as dicts (the Python layer makes its result objects of them) ------------

nb::dict CommitDict(const iceberg::CommitReport& commit) {
  nb::dict out;
  if (commit.snapshot) {
    out["snapshot_id"] = commit.snapshot->snapshot_id;
    out["operation"] = commit.snapshot->summary.operation;
    out["sequence_number"] = commit.snapshot->sequence_number;
  }
  out["attempts"] = commit.attempts;
  out["metadata_location"] = commit.state.metadata_location;
  return out;
}

nb::dict AppendDict(const iceberg::AppendResult& result) {
  nb::dict out;
  out["committed"] = result.committed;
  out["rows"] = result.rows;
  out["data_files"] = result.data_files;
  if (result.committed) out["commit"] = CommitDict(result.commit);
  return out;
}

nb::dict RowLevelDict(const iceberg::RowLevelResult& result) {
  nb::dict out;
  out["committed"] = result.committed;
  out["files_removed"] = result.files_removed;
  out["files_rewritten"] = result.files_rewritten;
  out["rows_removed"] = result.rows_removed;
  out["delete_files"] = result.delete_files_written;
  out["delete_files_removed"] = result.delete_files_removed;
  out["rows_updated"] = result.rows_updated;
  out["rows_inserted"] = result.rows_inserted;
  out["rows"] = result.rows_written;
  out["data_files"] = result.data_files_written;
  if (result.committed) out["commit"] = CommitDict(result.commit);
  return out;
}

iceberg::TableIdentifier ToIdentifier(const std::vector<std::string>& ns,
                                      const std::string& name) {
  return iceberg::TableIdentifier{ns, name};
}

iceberg::WriteOperation ParseOperation(const std::string& operation) {
  if (operation == "append") return iceberg::WriteOperation::kAppend;
  if (operation == "dynamic-overwrite") return iceberg::WriteOperation::kDynamicOverwrite;
  if (operation == "overwrite") return iceberg::WriteOperation::kOverwriteByFilter;
  if (operation == "abort-only") return iceberg::WriteOperation::kAbortOnly;
  Throw(
      MakeError(ErrorKind::kInvalidInput,
                "operation must be 'append', 'dynamic-overwrite' or 'overwrite', not '" +
                    operation + "'"));
}

// ---- Catalog, Table, Scan -------------------------------------------------------------

class PyTable;

class PyCatalog {
 public:
  PyCatalog(const std::string& uri, const std::string& warehouse, const std::string& name,
            const std::map<std::string, std::string>& properties) {
    cli::CatalogFlags flags{uri, warehouse, name, {}};
    for (const auto& [key, value] : properties)
      flags.properties.push_back(key + "=" + value);
    catalog_ = RunReleased([&]() -> std::shared_ptr<iceberg::Catalog> {
      iceberg::CatalogOptions options =
          Unwrap(cli::ResolveCatalog(flags, cli::CatalogAccess::kOpen));
      return std::shared_ptr<iceberg::Catalog>(Unwrap(iceberg::Catalog::Open(options)));
    });
  }

  std::string name() const { return catalog_->name(); }
  const std::shared_ptr<iceberg::Catalog>& catalog() const { return catalog_; }

  std::vector<std::vector<std::string>> ListNamespaces(
      const std::vector<std::string>& parent) {
    return RunReleased([&] { return Unwrap(catalog_->ListNamespaces(parent)); });
  }
  void CreateNamespace(const std::vector<std::string>& ns,
                       const std::map<std::string, std::string>& properties) {
    RunReleased([&] {
      auto status = catalog_->CreateNamespace(ns, properties);
      if (KindOf(status) == ErrorKind::kAlreadyExists)
        Throw(status, "NamespaceAlreadyExists");
      Check(status);
      return 0;
    });
  }
  bool NamespaceExists(const std::vector<std::string>& ns) {
    return RunReleased([&] { return Unwrap(catalog_->NamespaceExists(ns)); });
  }
  std::map<std::string, std::string> NamespaceProperties(
      const std::vector<std::string>& ns) {
    return RunReleased([&] { return Unwrap(catalog_->LoadNamespaceProperties(ns)); });
  }
  void UpdateNamespaceProperties(const std::vector<std::string>& ns,
                                 const std::vector<std::string>& removals,
                                 const std::map<std::string, std::string>& updates) {
    RunReleased([&] {
      Check(catalog_->UpdateNamespaceProperties(ns, updates, removals));
      return 0;
    });
  }
  void DropNamespace(const std::vector<std::string>& ns) {
    RunReleased([&] {
      Check(catalog_->DropNamespace(ns));
      return 0;
    });
  }
  std::vector<std::pair<std::vector<std::string>, std::string>> ListTables(
      const std::vector<std::string>& ns) {
    auto ids = RunReleased([&] { return Unwrap(catalog_->ListTables(ns)); });
    std::vector<std::pair<std::vector<std::string>, std::string>> out;
    for (const auto& id : ids) out.emplace_back(id.ns, id.name);
    return out;
  }
  bool TableExists(const std::vector<std::string>& ns, const std::string& name) {
    return RunReleased([&] {
      auto loaded = catalog_->LoadTable(ToIdentifier(ns, name));
      if (KindOf(loaded.status()) == ErrorKind::kNoSuchTable ||
          KindOf(loaded.status()) == ErrorKind::kNoSuchNamespace)
        return false;
      Check(loaded.status());
      return true;
    });
  }
  void DropTable(const std::vector<std::string>& ns, const std::string& name) {
    RunReleased([&] {
      Check(catalog_->DropTable(ToIdentifier(ns, name)));
      return 0;
    });
  }
  void RenameTable(const std::vector<std::string>& from_ns, const std::string& from,
                   const std::vector<std::string>& to_ns, const std::string& to) {
    RunReleased([&] {
      auto status =
          catalog_->RenameTable(ToIdentifier(from_ns, from), ToIdentifier(to_ns, to));
      if (KindOf(status) == ErrorKind::kAlreadyExists)
        Throw(status, "TableAlreadyExists");
      Check(status);
      return 0;
    });
  }

 private:
  std::shared_ptr<iceberg::Catalog> catalog_;
};

class PyScan {
 public:
  explicit PyScan(std::unique_ptr<iceberg::TableScan> scan, std::optional<int64_t> limit)
      : scan_(std::move(scan)), limit_(limit) {}

  nb::capsule Schema() const {
    return ExportSchema(*Unwrap(ToArrowSchema(*scan_->projection())));
  }
  /// `keeps_all`: the caller keeps every batch (Scan.to_arrow), so files read ahead
  /// decode to their end (RowConsumer::kKeepsAll); not with a limit, which stops early.
  nb::capsule Stream(bool keeps_all) {
    const iceberg::RowConsumer consumer = keeps_all && !limit_
                                              ? iceberg::RowConsumer::kKeepsAll
                                              : iceberg::RowConsumer::kStreams;
    auto reader =
        RunReleased([&] { return Unwrap(scan_->ToRecordBatchReader(consumer)); });
    if (limit_) reader = std::make_shared<LimitedReader>(std::move(reader), *limit_);
    return ExportStream(std::move(reader));
  }
  nb::list PlanFiles() {
    auto tasks = RunReleased([&] { return Unwrap(scan_->PlanFiles()); });
    nb::list out;
    for (const auto& task : tasks) {
      nb::dict file;
      file["file_path"] = task.file.file_path;
      file["record_count"] = task.file.record_count;
      file["file_size_in_bytes"] = task.file.file_size_in_bytes;
      file["spec_id"] = task.spec ? task.spec->spec_id() : 0;
      file["split_offsets"] = task.file.split_offsets;
      std::vector<std::string> deletes;
      int64_t delete_bytes = 0;  // as iceberg-java's ScanTaskUtil.contentSizeInBytes
      for (const auto& entry : task.deletes) {
        deletes.push_back(entry->file.file_path);
        delete_bytes += entry->file.file_format == iceberg::FileFormat::kPuffin
                            ? entry->file.content_size_in_bytes.value_or(0)
                            : entry->file.file_size_in_bytes;
      }
      file["delete_files"] = deletes;
      file["delete_files_size"] = delete_bytes;
      out.append(file);
    }
    return out;
  }
  std::optional<int64_t> SnapshotId() const {
    if (!scan_->snapshot()) return std::nullopt;
    return scan_->snapshot()->snapshot_id;
  }
  nb::dict Stats() const {
    const iceberg::ScanStats& c = *scan_->stats();
    nb::dict out;
    out["manifests"] = c.manifests_total.load();
    out["manifests_skipped"] = c.manifests_skipped.load();
    out["files_planned"] = c.files_planned.load();
    out["files_skipped_by_partition"] = c.files_skipped_by_partition.load();
    out["files_skipped_by_metrics"] = c.files_skipped_by_metrics.load();
    out["files_read"] = c.files_read.load();
    out["row_groups_read"] = c.row_groups_read.load();
    out["row_groups_skipped"] = c.row_groups_skipped.load();
    out["bytes_read"] = c.bytes_read.load();
    out["requests"] = c.requests.load();
    out["rows_read"] = c.rows_read.load();
    out["rows"] = c.rows.load();
    out["delete_files_read"] = c.delete_files_read.load();
    out["rows_deleted"] = c.rows_deleted.load();
    return out;
  }

 private:
  std::unique_ptr<iceberg::TableScan> scan_;
  std::optional<int64_t> limit_;
};

class PyCommitter {
 public:
  explicit PyCommitter(std::unique_ptr<iceberg::Committer> committer)
      : committer_(std::move(committer)) {}

  void Add(const nb::bytes& message) {
    std::string text(message.c_str(), message.size());
    RunReleased([&] {
      Check(committer_->Add(text));
      return 0;
    });
  }
  nb::dict Commit() {
    auto report = RunReleased([&] { return Unwrap(committer_->Commit()); });
    nb::dict out = CommitDict(report);
    out["data_files"] = committer_->files();
    out["rows"] = committer_->records();
    return out;
  }
  int Abort() {
    return RunReleased([&] { return committer_->Abort(); });
  }
  void SetSummaryProperty(const std::string& key, const std::string& value) {
    Check(committer_->SetSummaryProperty(key, value));
  }
  int64_t unreported_deleted() const { return committer_->unreported_deleted(); }
  int64_t files() const { return committer_->files(); }
  int64_t records() const { return committer_->records(); }

 private:
  std::unique_ptr<iceberg::Committer> committer_;
};

struct WriteArgs {
  std::map<std::string, std::string> options;
  int threads = 1;
  int64_t memory_limit = 0;
};

iceberg::AppendOptions ToAppendOptions(const WriteArgs& args) {
  iceberg::AppendOptions options;
  options.options = args.options;
  options.threads = args.threads;
  options.memory_limit = args.memory_limit;
  return options;
}

class PyTable {
  // The helpers first: the methods below deduce their types from them.
  // A copy of the table's state, taken under its lock without the GIL (a long write
  // holding the lock may need the GIL to read a Python-made input stream).
  iceberg::TableState State() {
    nb::gil_scoped_release release;
    std::lock_guard lock(mutex_);
    return table_->state();
  }

  // `work` with the GIL released and this table's lock held: a Table is not
  // thread-safe, and Python threads may share one.
  template <typename Work>
  auto Locked(Work&& work, ProgressBox* box = nullptr,
              const nb::object& progress = nb::none()) {
    return RunReleased(
        [&] {
          std::lock_guard lock(mutex_);
          return work();
        },
        box, progress);
  }

 public:
  explicit PyTable(std::shared_ptr<iceberg::Table> table) : table_(std::move(table)) {}

  std::string Identifier() const { return table_->id().ToString(); }
  std::vector<std::string> NamespaceLevels() const { return table_->id().ns; }
  std::string Name() const { return table_->id().name; }
  std::string MetadataJson() { return iceberg::TableMetadataToJson(*State().metadata); }
  std::string MetadataLocation() { return State().metadata_location; }
  nb::capsule Schema() {
    return ExportSchema(*Unwrap(ToArrowSchema(*State().metadata->CurrentSchema())));
  }
  void Refresh() {
    Locked([&] {
      Check(table_->Refresh());
      return 0;
    });
  }

  std::pair<std::vector<std::string>, nb::dict> ExplainWrite(
      const std::map<std::string, std::string>& options) {
    auto [gate, plan] = Locked([&] {
      iceberg::GateResult gate = table_->ExplainWrite(options);
      std::shared_ptr<const iceberg::WritePlan> plan;
      if (gate.supported())
        plan = Unwrap(iceberg::WritePlan::Make(*table_->metadata(), options));
      return std::make_pair(gate, plan);
    });
    nb::dict facts;
    if (plan) {
      facts["mode"] = std::string(WriterModeName(plan->mode));
      facts["distribution"] = std::string(iceberg::DistributionName(plan->distribution));
      facts["sorts_rows"] = plan->sorts_rows();
      facts["target_file_size_bytes"] = plan->target_file_size_bytes;
      facts["row_group_size_bytes"] = plan->parquet.row_group_size_bytes;
      facts["page_size_bytes"] = plan->parquet.page_size_bytes;
      facts["page_row_limit"] = plan->parquet.page_row_limit;
      facts["codec"] = plan->parquet.codec;
      facts["compression_level"] = plan->parquet.compression_level;
    }
    return {gate.reasons, facts};
  }

  nb::dict Append(nb::handle stream, const WriteArgs& args, bool clustered,
                  bool dynamic_overwrite, const nb::object& progress) {
    auto input = ImportStream(stream);
    iceberg::AppendOptions options = ToAppendOptions(args);
    options.input_clustered = clustered;
    options.replace_partitions = dynamic_overwrite;
    ProgressBox box;
    options.progress = [&box](const iceberg::WriteProgress& p) { box.Set(p); };
    auto result =
        Locked([&] { return Unwrap(table_->Append(*input, options)); }, &box, progress);
    return AppendDict(result);
  }

  nb::dict Overwrite(nb::handle stream, const std::string& where, const WriteArgs& args) {
    auto input = ImportStream(stream);
    iceberg::AppendOptions options = ToAppendOptions(args);
    auto result =
        Locked([&] { return Unwrap(table_->Overwrite(*input, where, options)); });
    return RowLevelDict(result);
  }

  nb::dict Delete(const std::string& where, const WriteArgs& args) {
    iceberg::AppendOptions options = ToAppendOptions(args);
    return RowLevelDict(Locked([&] { return Unwrap(table_->Delete(where, options)); }));
  }

  nb::dict Update(const std::string& set, const std::string& where,
                  const WriteArgs& args) {
    iceberg::AppendOptions options = ToAppendOptions(args);
    return RowLevelDict(
        Locked([&] { return Unwrap(table_->Update(where, set, options)); }));
  }

  nb::dict Upsert(nb::handle stream, const std::vector<std::string>& keys,
                  bool update_matched, bool insert_unmatched, const WriteArgs& args) {
    auto input = ImportStream(stream);
    iceberg::AppendOptions options = ToAppendOptions(args);
    iceberg::UpsertOptions upsert;
    upsert.keys = keys;
    upsert.update_matched = update_matched;
    upsert.insert_unmatched = insert_unmatched;
    return RowLevelDict(
        Locked([&] { return Unwrap(table_->Upsert(*input, upsert, options)); }));
  }

  nb::dict Rewrite(const std::string& where, int min_input_files, const WriteArgs& args,
                   bool remove_dangling_deletes) {
    iceberg::AppendOptions options = ToAppendOptions(args);
    return RowLevelDict(Locked([&] {
      iceberg::RowLevelResult result =
          Unwrap(table_->Rewrite(where, min_input_files, options));
      if (remove_dangling_deletes && result.committed) {
        // After a rewrite that committed, a second snapshot, as Spark's
        // remove-dangling-deletes makes; the result's commit is the last one made.
        iceberg::RowLevelResult removed = Unwrap(table_->RemoveDanglingDeletes());
        result.delete_files_removed += removed.delete_files_removed;
        if (removed.committed) {
          result.committed = true;
          result.commit = removed.commit;
        }
      }
      return result;
    }));
  }

  nb::dict RewritePositionDeletes(const std::string& where, int min_input_files,
                                  bool rewrite_all, const WriteArgs& args) {
    iceberg::RewriteDeletesOptions options;
    options.min_input_files = min_input_files;
    options.rewrite_all = rewrite_all;
    options.options = ToAppendOptions(args).options;
    return RowLevelDict(
        Locked([&] { return Unwrap(table_->RewritePositionDeletes(where, options)); }));
  }

  nb::dict ExpireSnapshots(std::optional<int64_t> older_than_ms,
                           std::optional<int> retain_last,
                           const std::vector<int64_t>& snapshot_ids, bool clean_files,
                           bool dry_run) {
    iceberg::ExpireSnapshotsOptions options;
    options.older_than_ms = older_than_ms;
    options.retain_last = retain_last;
    options.snapshot_ids = snapshot_ids;
    options.clean_files = clean_files;
    options.dry_run = dry_run;
    auto report = Locked([&] {
      auto expired = Unwrap(floe::iceberg::ExpireSnapshots(*table_, options));
      if (!dry_run) Check(table_->Refresh());
      return expired;
    });
    nb::dict out;
    out["expired"] = report.expired;
    out["removed_refs"] = report.removed_refs;
    out["data_files"] = report.data_files;
    out["manifests"] = report.manifests;
    out["manifest_lists"] = report.manifest_lists;
    out["statistics_files"] = report.statistics_files;
    out["kept_outside"] = report.kept_outside;
    out["delete_failures"] = report.delete_failures;
    out["cleanup_error"] = report.cleanup_error;
    out["attempts"] = report.attempts;
    return out;
  }

  nb::dict RemoveOrphans(int64_t older_than_ms, bool dry_run, bool any_name,
                         bool no_concurrent_writes) {
    iceberg::RemoveOrphanFilesOptions options;
    options.older_than_ms = older_than_ms;
    options.no_concurrent_writes = no_concurrent_writes;
    options.dry_run = dry_run;
    options.any_name = any_name;
    auto report =
        Locked([&] { return Unwrap(iceberg::RemoveOrphanFiles(*table_, options)); });
    nb::dict out;
    std::vector<std::string> orphans;
    int64_t bytes = 0;
    for (const auto& orphan : report.orphans) {
      orphans.push_back(orphan.location);
      bytes += orphan.size;
    }
    out["orphans"] = orphans;
    out["bytes"] = bytes;
    out["folders"] = report.folders;
    out["referenced"] = report.referenced;
    out["listed"] = report.listed;
    out["too_recent"] = report.too_recent;
    out["unrecognised"] = report.unrecognised;
    out["hidden"] = report.hidden;
    out["symbolic_links"] = report.symbolic_links;
    out["other_tables"] = report.other_tables;
    out["delete_failures"] = report.delete_failures;
    return out;
  }

  PyScan* Scan(const std::vector<std::string>& columns, const std::string& where,
               std::optional<int64_t> snapshot_id, std::optional<int64_t> as_of_ms,
               std::optional<int64_t> limit, const std::vector<std::string>& files,
               const std::vector<std::tuple<std::string, int64_t, int64_t>>& splits) {
    iceberg::ScanOptions options;
    options.files = files;
    for (const auto& [path, start, length] : splits) {
      options.splits.push_back({path, start, length});
    }
    options.columns = columns;
    options.filter = where;
    options.metadata_column_filters = true;
    options.snapshot_id = snapshot_id;
    options.as_of_ms = as_of_ms;
    auto scan = Locked([&] { return Unwrap(table_->NewScan(options)); });
    return new PyScan(std::move(scan), limit);
  }

  nb::bytes PlanWrite(const std::map<std::string, std::string>& options, int tasks,
                      int64_t memory_limit, bool clustered,
                      const std::string& row_filter) {
    iceberg::WritePlanOptions plan_options;
    plan_options.row_filter = row_filter;
    plan_options.tasks = tasks;
    plan_options.memory_limit = memory_limit;
    plan_options.input_clustered = clustered;
    std::string text = Locked([&] {
      Check(table_->Refresh());
      return Unwrap(table_->PlanWrite(options, plan_options))->Serialize();
    });
    return nb::bytes(text.data(), text.size());
  }

  PyCommitter* NewCommitter(const nb::bytes& plan_text, const std::string& operation) {
    std::string text(plan_text.c_str(), plan_text.size());
    iceberg::WriteOperation op = ParseOperation(operation);
    auto committer = Locked([&] {
      auto plan = Unwrap(iceberg::WritePlan::Deserialize(text));
      return Unwrap(table_->NewCommitter(*plan, op));
    });
    return new PyCommitter(std::move(committer));
  }

 private:
  std::shared_ptr<iceberg::Table> table_;
  std::mutex mutex_;
};

PyTable* LoadTable(PyCatalog& catalog, const std::vector<std::string>& ns,
                   const std::string& name) {
  auto table = RunReleased([&] {
    return Unwrap(iceberg::Table::Load(catalog.catalog(), ToIdentifier(ns, name)));
  });
  return new PyTable(std::move(table));
}

PyTable* CreateTable(PyCatalog& catalog, const std::vector<std::string>& ns,
                     const std::string& name, const std::string& schema_text,
                     nb::handle arrow_schema, const std::string& partition_by,
                     const std::string& sort_by,
                     const std::map<std::string, std::string>& properties,
                     const std::string& location) {
  SchemaPtr schema;
  if (!arrow_schema.is_none()) {
    schema = Unwrap(FromArrowSchemaAssigningIds(*ImportSchema(arrow_schema)));
  } else {
    schema = Unwrap(iceberg::ParseSchemaText(schema_text));
  }
  iceberg::CreateTableOptions options;
  options.schema = schema;
  options.spec = Unwrap(iceberg::ParsePartitionBy(partition_by, *schema));
  options.sort_order = Unwrap(iceberg::ParseSortBy(sort_by, *schema));
  options.properties = properties;
  options.location = location;
  auto table = RunReleased([&] {
    auto created =
        iceberg::Table::Create(catalog.catalog(), ToIdentifier(ns, name), options);
    if (KindOf(created.status()) == ErrorKind::kAlreadyExists)
      Throw(created.status(), "TableAlreadyExists");
    return Unwrap(std::move(created));
  });
  return new PyTable(std::move(table));
}

// ---- The split write's task
// ------------------------------------------------------------

class PyWriteTask {
 public:
  PyWriteTask(const nb::bytes& plan_text, int partition_id, int64_t attempt_id) {
    std::string text(plan_text.c_str(), plan_text.size());
    RunReleased([&] {
      plan_ = Unwrap(iceberg::WritePlan::Deserialize(text));
      // Only the plan and the storage it names: no catalog.
      io_ = Unwrap(MakeFileIO(plan_->table_location, plan_->properties));
      task_ = Unwrap(iceberg::MakeWriteTask(plan_, io_, partition_id, attempt_id));
      if (!plan_->row_filter.empty()) {
        // An overwrite by filter: every row written must match the filter it replaces.
        row_filter_ = RewriteNot(
            Unwrap(Bind(Unwrap(ParseFilter(plan_->row_filter)), *plan_->schema)));
      }
      return 0;
    });
  }

  // Writes every batch of the stream; the first stream's schema is checked against the
  // plan's once (later streams must have the same schema).
  int64_t Write(nb::handle stream) {
    auto input = ImportStream(stream);
    return RunReleased([&] {
      std::lock_guard lock(mutex_);
      if (!task_)
        Throw(MakeError(ErrorKind::kInvalidInput,
                        "the write task was finished or aborted"));
      if (!conformer_ || !conformer_input_->Equals(*input->schema())) {
        conformer_ = Unwrap(iceberg::MakeBatchConformer(*input->schema(), *plan_->schema,
                                                        "at " + plan_->table_location));
        conformer_input_ = input->schema();
        // Arrow fills a schema's fingerprint caches lazily; fill them before the
        // task's batches share the fields.
        (void)conformer_->target()->fingerprint();
        (void)conformer_->target()->metadata_fingerprint();
      }
      int64_t rows = 0;
      while (true) {
        Check(CheckCancelled("the write task"));
        std::shared_ptr<arrow::RecordBatch> batch;
        Check(input->ReadNext(&batch));
        if (!batch) break;
        if (batch->num_rows() == 0) continue;
        auto conformed = Unwrap(conformer_->Conform(*batch));
        auto status = row_filter_ ? iceberg::CheckRowsMatchFilter(
                                        *row_filter_, *conformed, &rows_checked_)
                                  : arrow::Status::OK();
        if (status.ok()) status = task_->Write(conformed);
        if (!status.ok()) {
          task_.reset();  // deletes what it wrote
          Throw(status);
        }
        rows += batch->num_rows();
      }
      return rows;
    });
  }

  // The TaskCommit message. The files are the message's holder's from now on: a
  // committer that adds it owns them (and deletes them on abort).
  nb::bytes Finish() {
    std::string message = RunReleased([&] {
      std::lock_guard lock(mutex_);
      if (!task_)
        Throw(MakeError(ErrorKind::kInvalidInput,
                        "the write task was finished or aborted"));
      auto finished = task_->Finish();
      if (!finished.ok()) {
        task_.reset();
        Throw(finished.status());
      }
      task_->Acknowledge();
      task_.reset();
      return *finished;
    });
    return nb::bytes(message.data(), message.size());
  }

  // Deletes every file the task wrote. Idempotent.
  void Abort() {
    RunReleased([&] {
      std::lock_guard lock(mutex_);
      task_.reset();
      return 0;
    });
  }

  bool open() {
    std::lock_guard lock(mutex_);
    return task_ != nullptr;
  }

  ~PyWriteTask() {
    // Dropped without finish: the task deletes its files.
    nb::gil_scoped_release release;
    task_.reset();
  }

 private:
  std::mutex mutex_;
  std::shared_ptr<const iceberg::WritePlan> plan_;
  std::shared_ptr<FileIO> io_;
  std::unique_ptr<WriteTask> task_;
  std::unique_ptr<BatchConformer> conformer_;
  std::shared_ptr<arrow::Schema> conformer_input_;
  ExpressionPtr row_filter_;  ///< An overwrite by filter's, bound to the plan's schema.
  int64_t rows_checked_ = 0;
};

// ---- Delta tables, by path or in a catalog --------------------------------------------

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
                    int64_t max_file_size, int64_t memory_limit) {
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
  nb::list files;
  for (const auto& file : snapshot.files) {
    nb::dict entry;
    entry["path"] = file.location;
    entry["size"] = file.size;
    nb::dict values;
    for (const auto& [name, value] : file.partition_values) {
      if (value) {
        values[name.c_str()] = *value;
      } else {
        values[name.c_str()] = nb::none();
      }
    }
    entry["partition_values"] = values;
    if (file.stats) {
      entry["stats"] = *file.stats;
    } else {
      entry["stats"] = nb::none();
    }
    files.append(entry);
  }
  out["files"] = files;
  auto readable = delta::CheckReadable(snapshot);
  if (readable.ok()) {
    out["readable"] = nb::none();
  } else {
    out["readable"] = readable.message();
  }
  return out;
}

// `transform` applied to the values of the stream's one column, read as the type of the
// one field of `schema_json` (an Iceberg schema), as a table's partitioning applies it:
// one stream of a single column "value".
nb::capsule ApplyTransformTo(const std::string& schema_json,
                             const std::string& transform_text, nb::handle values) {
  SchemaPtr schema = Unwrap(iceberg::SchemaFromJson(schema_json));
  if (schema->fields().size() != 1) {
    Throw(MakeError(ErrorKind::kInvalidInput, "a transform's schema has one field"));
  }
  TypePtr type = schema->fields().front().type;
  auto transform = Unwrap(iceberg::Transform::Parse(transform_text));
  auto input = ImportStream(values);
  if (input->schema()->num_fields() != 1) {
    Throw(MakeError(ErrorKind::kInvalidInput, "a transform takes one column"));
  }
  auto batches = RunReleased([&] {
    std::vector<std::shared_ptr<arrow::RecordBatch>> out;
    for (;;) {
      auto batch = Unwrap(input->Next());
      if (!batch) break;
      auto result = Unwrap(iceberg::ApplyTransform(transform, *type, batch->column(0)));
      out.push_back(
          arrow::RecordBatch::Make(arrow::schema({arrow::field("value", result->type())}),
                                   result->length(), {result}));
    }
    return out;
  });
  std::shared_ptr<arrow::Schema> result_schema;
  if (batches.empty()) {
    auto empty = Unwrap(arrow::MakeEmptyArray(input->schema()->field(0)->type()));
    auto applied = Unwrap(iceberg::ApplyTransform(transform, *type, empty));
    result_schema = arrow::schema({arrow::field("value", applied->type())});
  } else {
    result_schema = batches.front()->schema();
  }
  return ExportStream(Unwrap(arrow::RecordBatchReader::Make(batches, result_schema)));
}

nb::dict DescribePlan(const nb::bytes& plan_text) {
  std::string text(plan_text.c_str(), plan_text.size());
  auto plan = Unwrap(iceberg::WritePlan::Deserialize(text));
  nb::dict out;
  out["table_location"] = plan->table_location;
  out["operation_id"] = plan->operation_id;
  out["format_version"] = plan->format_version;
  out["mode"] = std::string(WriterModeName(plan->mode));
  out["distribution"] = std::string(iceberg::DistributionName(plan->distribution));
  if (plan->base_snapshot_id) {
    out["base_snapshot_id"] = *plan->base_snapshot_id;
  } else {
    out["base_snapshot_id"] = nb::none();
  }
  return out;
}

nb::bytes DerivePlan(const nb::bytes& plan_text, const std::string& part) {
  std::string text(plan_text.c_str(), plan_text.size());
  std::string derived =
      Unwrap(iceberg::WritePlan::Deserialize(text))->Derive(part)->Serialize();
  return nb::bytes(derived.data(), derived.size());
}

}  // namespace
}  // namespace floe::python

NB_MODULE(_floe, m) {
  using namespace floe::python;
  m.doc() = "floe's C++ engine (use the floe package, not this module)";
  // Arrow's compute functions (casts, filters, validity checks) are registered by
  // libarrow_compute's initialisation, which pyarrow runs only when pyarrow.compute is
  // imported: a process that never imports it (a Spark Python worker) would find none.
  Check(arrow::compute::Initialize());

  // Every exception leaving a binding becomes a FloeError: a floe status as its kind's
  // exception, and any other C++ exception (a bug; nanobind would make std::out_of_range
  // a bare IndexError) as InternalError. nanobind's own (a Python error passing
  // through, a type error it raised) and MemoryError keep their meaning.
  nb::register_exception_translator([](const std::exception_ptr& pointer, void*) {
    auto raise = [](const StatusError& error) {
      if (error_factory == nullptr) {
        PyErr_SetString(PyExc_RuntimeError, error.message.c_str());
        return;
      }
      try {
        nb::object made =
            nb::borrow(error_factory)(error.kind, error.message, error.reasons);
        PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(made.ptr())), made.ptr());
      } catch (nb::python_error& raised) {
        raised.restore();
      }
    };
    try {
      std::rethrow_exception(pointer);
    } catch (const StatusError& error) {
      raise(error);
    } catch (const nb::python_error&) {
      throw;
    } catch (const nb::builtin_exception&) {
      throw;
    } catch (const nb::cast_error&) {
      throw;
    } catch (const std::bad_alloc&) {
      throw;
    } catch (...) {
      const arrow::Status status =
          floe::StatusFromCurrentException("floe's Python binding");
      StatusError error;
      error.kind = std::string(floe::ErrorKindName(floe::KindOf(status)));
      error.message = status.message();
      raise(error);
    }
  });
  m.def(
      "set_error_factory",
      [](nb::object factory) {
        Py_XDECREF(error_factory);
        error_factory = factory.release().ptr();
      },
      "factory"_a);
  m.def("version", [] { return std::string(FLOE_VERSION); });
  m.def("describe_plan", &DescribePlan, "plan"_a);
  m.def("derive_plan", &DerivePlan, "plan"_a, "part"_a);
  m.def("apply_transform", &ApplyTransformTo, "schema_json"_a, "transform"_a, "values"_a);
  m.def(
      "arrow_schema_of",
      [](const std::string& schema_json) {
        return ExportSchema(*Unwrap(
            floe::ToArrowSchema(*Unwrap(floe::iceberg::SchemaFromJson(schema_json)))));
      },
      "schema_json"_a);
  m.def(
      "parse_byte_size",
      [](const std::string& text) { return Unwrap(floe::ParseByteSize(text)); },
      "text"_a);
  m.def(
      "parse_duration_ms",
      [](const std::string& text) { return Unwrap(floe::ParseDurationMs(text)); },
      "text"_a);

  nb::class_<PyCatalog>(m, "Catalog")
      .def(nb::init<const std::string&, const std::string&, const std::string&,
                    const std::map<std::string, std::string>&>(),
           "uri"_a, "warehouse"_a, "name"_a, "properties"_a)
      .def_prop_ro("name", &PyCatalog::name)
      .def("list_namespaces", &PyCatalog::ListNamespaces, "parent"_a)
      .def("create_namespace", &PyCatalog::CreateNamespace, "namespace"_a, "properties"_a)
      .def("namespace_exists", &PyCatalog::NamespaceExists, "namespace"_a)
      .def("namespace_properties", &PyCatalog::NamespaceProperties, "namespace"_a)
      .def("update_namespace_properties", &PyCatalog::UpdateNamespaceProperties,
           "namespace"_a, "removals"_a, "updates"_a)
      .def("drop_namespace", &PyCatalog::DropNamespace, "namespace"_a)
      .def("list_tables", &PyCatalog::ListTables, "namespace"_a)
      .def("table_exists", &PyCatalog::TableExists, "namespace"_a, "name"_a)
      .def("drop_table", &PyCatalog::DropTable, "namespace"_a, "name"_a)
      .def("rename_table", &PyCatalog::RenameTable, "from_namespace"_a, "from_name"_a,
           "to_namespace"_a, "to_name"_a)
      .def("load_table", &LoadTable, "namespace"_a, "name"_a)
      .def("create_table", &CreateTable, "namespace"_a, "name"_a, "schema_text"_a,
           "arrow_schema"_a.none(), "partition_by"_a, "sort_by"_a, "properties"_a,
           "location"_a);

  nb::class_<WriteArgs>(m, "WriteArgs")
      .def(nb::init<>())
      .def_rw("options", &WriteArgs::options)
      .def_rw("threads", &WriteArgs::threads)
      .def_rw("memory_limit", &WriteArgs::memory_limit);

  nb::class_<PyTable>(m, "Table")
      .def_prop_ro("identifier", &PyTable::Identifier)
      .def_prop_ro("namespace", &PyTable::NamespaceLevels)
      .def_prop_ro("name", &PyTable::Name)
      .def("metadata_json", &PyTable::MetadataJson)
      .def("metadata_location", &PyTable::MetadataLocation)
      .def("schema", &PyTable::Schema)
      .def("refresh", &PyTable::Refresh)
      .def("explain_write", &PyTable::ExplainWrite, "options"_a)
      .def("append", &PyTable::Append, "stream"_a, "args"_a, "clustered"_a,
           "dynamic_overwrite"_a, "progress"_a.none())
      .def("overwrite", &PyTable::Overwrite, "stream"_a, "where"_a, "args"_a)
      .def("delete", &PyTable::Delete, "where"_a, "args"_a)
      .def("update", &PyTable::Update, "set"_a, "where"_a, "args"_a)
      .def("upsert", &PyTable::Upsert, "stream"_a, "keys"_a, "update_matched"_a,
           "insert_unmatched"_a, "args"_a)
      .def("rewrite", &PyTable::Rewrite, "where"_a, "min_input_files"_a, "args"_a,
           "remove_dangling_deletes"_a)
      .def("rewrite_position_deletes", &PyTable::RewritePositionDeletes, "where"_a,
           "min_input_files"_a, "rewrite_all"_a, "args"_a)
      .def("expire_snapshots", &PyTable::ExpireSnapshots, "older_than_ms"_a.none(),
           "retain_last"_a.none(), "snapshot_ids"_a, "clean_files"_a, "dry_run"_a)
      .def("remove_orphans", &PyTable::RemoveOrphans, "older_than_ms"_a, "dry_run"_a,
           "any_name"_a, "no_concurrent_writes"_a = false)
      .def("scan", &PyTable::Scan, "columns"_a, "where"_a, "snapshot_id"_a.none(),
           "as_of_ms"_a.none(), "limit"_a.none(), "files"_a = std::vector<std::string>{},
           "splits"_a = std::vector<std::tuple<std::string, int64_t, int64_t>>{})
      .def("plan_write", &PyTable::PlanWrite, "options"_a, "tasks"_a, "memory_limit"_a,
           "clustered"_a, "row_filter"_a = "")
      .def("new_committer", &PyTable::NewCommitter, "plan"_a, "operation"_a);

  nb::class_<PyScan>(m, "Scan")
      .def("schema", &PyScan::Schema)
      .def("stream", &PyScan::Stream, "keeps_all"_a = false)
      .def("plan_files", &PyScan::PlanFiles)
      .def("snapshot_id", &PyScan::SnapshotId)
      .def("stats", &PyScan::Stats);

  nb::class_<PyCommitter>(m, "Committer")
      .def("add", &PyCommitter::Add, "message"_a)
      .def("commit", &PyCommitter::Commit)
      .def("abort", &PyCommitter::Abort)
      .def("set_summary_property", &PyCommitter::SetSummaryProperty, "key"_a, "value"_a)
      .def_prop_ro("unreported_deleted", &PyCommitter::unreported_deleted)
      .def_prop_ro("files", &PyCommitter::files)
      .def_prop_ro("records", &PyCommitter::records);

  nb::class_<PyWriteTask>(m, "WriteTask")
      .def(nb::init<const nb::bytes&, int, int64_t>(), "plan"_a, "partition_id"_a,
           "attempt_id"_a)
      .def("write", &PyWriteTask::Write, "stream"_a)
      .def("finish", &PyWriteTask::Finish)
      .def("abort", &PyWriteTask::Abort)
      .def_prop_ro("open", &PyWriteTask::open);
  // After Catalog, which they take.
  m.def("delta_create", &DeltaCreate, "path"_a, "schema"_a, "partition_columns"_a,
        "properties"_a, "catalog"_a.none() = nb::none(), "location"_a = "",
        "storage"_a = std::map<std::string, std::string>());
  m.def("delta_write", &DeltaWrite, "path"_a, "data"_a.none(), "mode"_a, "app_id"_a,
        "app_version"_a.none(), "threads"_a, "catalog"_a.none() = nb::none(),
        "storage"_a = std::map<std::string, std::string>(),
        "predicate"_a.none() = nb::none(), "min_file_size"_a = int64_t{1} << 30,
        "max_file_size"_a = int64_t{1} << 30, "memory_limit"_a = 0);
  m.def("delta_scan", &DeltaScanStream, "path"_a, "columns"_a, "version"_a.none(),
        "as_of_ms"_a.none(), "catalog"_a.none() = nb::none(),
        "storage"_a = std::map<std::string, std::string>(), "where"_a = "");
  m.def("delta_versions", &DeltaVersions, "path"_a, "catalog"_a.none() = nb::none(),
        "storage"_a = std::map<std::string, std::string>());
  m.def("delta_vacuum", &DeltaVacuum, "path"_a, "retention_ms"_a.none(), "dry_run"_a,
        "any_name"_a, "check_retention"_a,
        "storage"_a = std::map<std::string, std::string>());
  m.def("delta_snapshot", &DeltaSnapshotInfo, "path"_a, "version"_a.none(),
        "catalog"_a.none() = nb::none(),
        "storage"_a = std::map<std::string, std::string>());
}
