// What the sources of floe._floe share (floe_module.cc is the module; each other .cc
// holds one concern's classes and functions and registers them in its Bind* function):
// floe's errors on their way to Python, running floe's work without the GIL, Arrow
// through the PyCapsule interface, and the classes one file binds and another names (a
// Catalog loads Tables, a Table makes Scans and Committers, the Delta functions take a
// Catalog).
#pragma once

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
#include <tuple>
#include <utility>
#include <vector>

// Every source includes every type caster the bindings use, so that a type converts the
// same way in each (one without a caster would be taken for a bound class).
#include <nanobind/nanobind.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include "arrow/record_batch.h"
#include "arrow/result.h"
#include "arrow/status.h"
#include "arrow/type.h"
#include "floe/iceberg/catalog/catalog.h"
#include "floe/iceberg/commit/committer.h"
#include "floe/iceberg/table/table.h"
#include "floe/util/cancel.h"
#include "floe/util/error.h"

namespace nb = nanobind;

namespace floe::python {

// ---- Errors (errors.cc) ---------------------------------------------------------------

// Raises `status` in Python as the exception the package's _errors.error_for gives for
// `kind` (by default the status's floe kind).
[[noreturn]] void Throw(const arrow::Status& status, std::string kind = "");

inline void Check(const arrow::Status& status) {
  if (!status.ok()) Throw(status);
}

template <typename T>
T Unwrap(arrow::Result<T> result) {
  if (!result.ok()) Throw(result.status());
  return std::move(result).ValueUnsafe();
}

// ---- floe's work without the GIL ------------------------------------------------------

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

// ---- Arrow through the PyCapsule interface (arrow_capsules.cc) ------------------------

std::shared_ptr<arrow::RecordBatchReader> ImportStream(nb::handle capsule);
nb::capsule ExportStream(std::shared_ptr<arrow::RecordBatchReader> reader);
nb::capsule ExportSchema(const arrow::Schema& schema);
std::shared_ptr<arrow::Schema> ImportSchema(nb::handle capsule);

// ---- Results as dicts (table_bindings.cc) ---------------------------------------------

nb::dict CommitDict(const iceberg::CommitReport& commit);

// ---- Catalog, Table, Scan, Committer --------------------------------------------------

// catalog_bindings.cc
class PyCatalog {
 public:
  PyCatalog(const std::string& uri, const std::string& warehouse, const std::string& name,
            const std::map<std::string, std::string>& properties);

  std::string name() const { return catalog_->name(); }
  const std::shared_ptr<iceberg::Catalog>& catalog() const { return catalog_; }

  std::vector<std::vector<std::string>> ListNamespaces(
      const std::vector<std::string>& parent);
  void CreateNamespace(const std::vector<std::string>& ns,
                       const std::map<std::string, std::string>& properties);
  bool NamespaceExists(const std::vector<std::string>& ns);
  std::map<std::string, std::string> NamespaceProperties(
      const std::vector<std::string>& ns);
  void UpdateNamespaceProperties(const std::vector<std::string>& ns,
                                 const std::vector<std::string>& removals,
                                 const std::map<std::string, std::string>& updates);
  void DropNamespace(const std::vector<std::string>& ns);
  std::vector<std::pair<std::vector<std::string>, std::string>> ListTables(
      const std::vector<std::string>& ns);
  bool TableExists(const std::vector<std::string>& ns, const std::string& name);
  void DropTable(const std::vector<std::string>& ns, const std::string& name);
  void RenameTable(const std::vector<std::string>& from_ns, const std::string& from,
                   const std::vector<std::string>& to_ns, const std::string& to);

 private:
  std::shared_ptr<iceberg::Catalog> catalog_;
};

// scan_bindings.cc
class PyScan {
 public:
  explicit PyScan(std::unique_ptr<iceberg::TableScan> scan, std::optional<int64_t> limit)
      : scan_(std::move(scan)), limit_(limit) {}

  nb::capsule Schema() const;
  /// `keeps_all`: the caller keeps every batch (Scan.to_arrow), so files read ahead
  /// decode to their end (RowConsumer::kKeepsAll); not with a limit, which stops early.
  nb::capsule Stream(bool keeps_all);
  nb::list PlanFiles();
  std::optional<int64_t> SnapshotId() const;
  nb::dict Stats() const;

 private:
  std::unique_ptr<iceberg::TableScan> scan_;
  std::optional<int64_t> limit_;
};

// split_write_bindings.cc
class PyCommitter {
 public:
  explicit PyCommitter(std::unique_ptr<iceberg::Committer> committer)
      : committer_(std::move(committer)) {}

  void Add(const nb::bytes& message);
  nb::dict Commit();
  int Abort();
  void SetSummaryProperty(const std::string& key, const std::string& value);
  int64_t unreported_deleted() const { return committer_->unreported_deleted(); }
  int64_t files() const { return committer_->files(); }
  int64_t records() const { return committer_->records(); }

 private:
  std::unique_ptr<iceberg::Committer> committer_;
};

// table_bindings.cc
struct WriteArgs {
  std::map<std::string, std::string> options;
  int threads = 1;
  int64_t memory_limit = 0;
};

// table_bindings.cc
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

  std::string Identifier() const;
  std::vector<std::string> NamespaceLevels() const;
  std::string Name() const;
  std::string MetadataJson();
  std::string MetadataLocation();
  nb::capsule Schema();
  void Refresh();
  std::pair<std::vector<std::string>, nb::dict> ExplainWrite(
      const std::map<std::string, std::string>& options);
  nb::dict Append(nb::handle stream, const WriteArgs& args, bool clustered,
                  bool dynamic_overwrite, const nb::object& progress);
  nb::dict Overwrite(nb::handle stream, const std::string& where, const WriteArgs& args);
  nb::dict Delete(const std::string& where, const WriteArgs& args);
  nb::dict Update(const std::string& set, const std::string& where,
                  const WriteArgs& args);
  nb::dict Upsert(nb::handle stream, const std::vector<std::string>& keys,
                  bool update_matched, bool insert_unmatched, const WriteArgs& args);
  nb::dict Rewrite(const std::string& where, int min_input_files, const WriteArgs& args,
                   bool remove_dangling_deletes);
  nb::dict RewritePositionDeletes(const std::string& where, int min_input_files,
                                  bool rewrite_all, const WriteArgs& args);
  nb::dict ExpireSnapshots(std::optional<int64_t> older_than_ms,
                           std::optional<int> retain_last,
                           const std::vector<int64_t>& snapshot_ids, bool clean_files,
                           bool dry_run);
  nb::dict RemoveOrphans(int64_t older_than_ms, bool dry_run, bool any_name,
                         bool no_concurrent_writes);
  PyScan* Scan(const std::vector<std::string>& columns, const std::string& where,
               std::optional<int64_t> snapshot_id, std::optional<int64_t> as_of_ms,
               std::optional<int64_t> limit, const std::vector<std::string>& files,
               const std::vector<std::tuple<std::string, int64_t, int64_t>>& splits);
  nb::bytes PlanWrite(const std::map<std::string, std::string>& options, int tasks,
                      int64_t memory_limit, bool clustered,
                      const std::string& row_filter);
  PyCommitter* NewCommitter(const nb::bytes& plan_text, const std::string& operation);

 private:
  std::shared_ptr<iceberg::Table> table_;
  std::mutex mutex_;
};

// ---- Registration, in the order NB_MODULE (floe_module.cc) calls them -----------------

void BindErrors(nb::module_& m);      // errors.cc
void BindUtilities(nb::module_& m);   // utility_bindings.cc
void BindCatalog(nb::module_& m);     // catalog_bindings.cc
void BindTable(nb::module_& m);       // table_bindings.cc
void BindScan(nb::module_& m);        // scan_bindings.cc
void BindSplitWrite(nb::module_& m);  // split_write_bindings.cc
void BindDelta(nb::module_& m);       // delta_bindings.cc

}  // namespace floe::python
