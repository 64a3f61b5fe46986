// floe._floe.Scan: a Table's scan, its rows as one Arrow stream, the files it plans and
// what reading them took.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "arrow/record_batch.h"
#include "bindings_internal.h"
#include "floe/iceberg/spec/partition_spec.h"
#include "floe/iceberg/table/table.h"
#include "floe/types/arrow_schema.h"

using namespace nb::literals;

namespace floe::python {
namespace {

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

}  // namespace

nb::capsule PyScan::Schema() const {
  return ExportSchema(*Unwrap(ToArrowSchema(*scan_->projection())));
}

nb::capsule PyScan::Stream(bool keeps_all) {
  const iceberg::RowConsumer consumer = keeps_all && !limit_
                                            ? iceberg::RowConsumer::kKeepsAll
                                            : iceberg::RowConsumer::kStreams;
  auto reader = RunReleased([&] { return Unwrap(scan_->ToRecordBatchReader(consumer)); });
  if (limit_) reader = std::make_shared<LimitedReader>(std::move(reader), *limit_);
  return ExportStream(std::move(reader));
}

nb::list PyScan::PlanFiles() {
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

std::optional<int64_t> PyScan::SnapshotId() const {
  if (!scan_->snapshot()) return std::nullopt;
  return scan_->snapshot()->snapshot_id;
}

nb::dict PyScan::Stats() const {
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

void BindScan(nb::module_& m) {
  nb::class_<PyScan>(m, "Scan")
      .def("schema", &PyScan::Schema)
      .def("stream", &PyScan::Stream, "keeps_all"_a = false)
      .def("plan_files", &PyScan::PlanFiles)
      .def("snapshot_id", &PyScan::SnapshotId)
      .def("stats", &PyScan::Stats);
}

}  // namespace floe::python
