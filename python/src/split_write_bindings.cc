// The split write (Spark's DataSource V2 write, floe.spark): floe._floe.WriteTask writes
// one task's files from a serialized plan alone (no catalog), and floe._floe.Committer,
// which Table.new_committer makes, commits the tasks' messages. Table.plan_write makes
// the plan (table_bindings.cc); describe_plan and derive_plan read and derive one
// (utility_bindings.cc).
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "arrow/record_batch.h"
#include "bindings_internal.h"
#include "floe/expr/binder.h"
#include "floe/expr/parser.h"
#include "floe/iceberg/commit/committer.h"
#include "floe/iceberg/write/batch_conformer.h"
#include "floe/iceberg/write/iceberg_task.h"
#include "floe/iceberg/write/write_plan.h"
#include "floe/io/file_io.h"
#include "floe/util/cancel.h"
#include "floe/util/error.h"

using namespace nb::literals;

namespace floe::python {

// ---- The committer --------------------------------------------------------------------

void PyCommitter::Add(const nb::bytes& message) {
  std::string text(message.c_str(), message.size());
  RunReleased([&] {
    Check(committer_->Add(text));
    return 0;
  });
}

nb::dict PyCommitter::Commit() {
  auto report = RunReleased([&] { return Unwrap(committer_->Commit()); });
  nb::dict out = CommitDict(report);
  out["data_files"] = committer_->files();
  out["rows"] = committer_->records();
  return out;
}

int PyCommitter::Abort() {
  return RunReleased([&] { return committer_->Abort(); });
}

void PyCommitter::SetSummaryProperty(const std::string& key, const std::string& value) {
  Check(committer_->SetSummaryProperty(key, value));
}

namespace {

// ---- The split write's task -----------------------------------------------------------

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

}  // namespace

void BindSplitWrite(nb::module_& m) {
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
}

}  // namespace floe::python
