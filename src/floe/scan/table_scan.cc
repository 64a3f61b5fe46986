#include "floe/scan/table_scan.h"

#include "floe/manifest/manifest.h"
#include "floe/spec/arrow_schema.h"
#include "floe/util/error.h"

namespace floe {
namespace {

// Chains the readers of several files, opening each only when the previous one is exhausted.
class ChainedReader final : public arrow::RecordBatchReader {
 public:
  ChainedReader(std::shared_ptr<FileIO> io, std::vector<FileScanTask> tasks, SchemaPtr projection,
                std::shared_ptr<arrow::Schema> schema, std::shared_ptr<ScanStats> stats)
      : io_(std::move(io)),
        tasks_(std::move(tasks)),
        projection_(std::move(projection)),
        schema_(std::move(schema)),
        stats_(std::move(stats)) {}

  std::shared_ptr<arrow::Schema> schema() const override { return schema_; }

  arrow::Status ReadNext(std::shared_ptr<arrow::RecordBatch>* out) override {
    while (true) {
      if (!current_) {
        if (next_ >= tasks_.size()) {
          *out = nullptr;
          return arrow::Status::OK();
        }
        const auto& task = tasks_[next_++];
        ARROW_ASSIGN_OR_RAISE(current_, ReadDataFile(io_, task.file, *projection_, *task.spec, stats_));
      }
      std::shared_ptr<arrow::RecordBatch> batch;
      ARROW_RETURN_NOT_OK(current_->ReadNext(&batch));
      if (batch) {
        *out = std::move(batch);
        return arrow::Status::OK();
      }
      current_.reset();
    }
  }

 private:
  std::shared_ptr<FileIO> io_;
  std::vector<FileScanTask> tasks_;
  SchemaPtr projection_;
  std::shared_ptr<arrow::Schema> schema_;
  std::shared_ptr<ScanStats> stats_;
  size_t next_ = 0;
  std::shared_ptr<arrow::RecordBatchReader> current_;
};

}  // namespace

arrow::Result<std::unique_ptr<TableScan>> TableScan::Make(std::shared_ptr<FileIO> io,
                                                          TableMetadataPtr metadata,
                                                          ScanOptions options) {
  std::unique_ptr<TableScan> scan(new TableScan());
  if (options.snapshot_id) {
    scan->snapshot_ = metadata->SnapshotById(*options.snapshot_id);
    if (!scan->snapshot_) {
      return MakeError(ErrorKind::kInvalidInput,
                       "snapshot " + std::to_string(*options.snapshot_id) + " is not in the table");
    }
  } else if (options.as_of_ms) {
    scan->snapshot_ = metadata->SnapshotAsOf(*options.as_of_ms);
    if (!scan->snapshot_) {
      return MakeError(ErrorKind::kInvalidInput, "the table has no snapshot as of " +
                                                     std::to_string(*options.as_of_ms) + " ms");
    }
  } else {
    scan->snapshot_ = metadata->CurrentSnapshot();
  }
  SchemaPtr schema = metadata->CurrentSchema();
  if (scan->snapshot_ && scan->snapshot_->schema_id && (options.snapshot_id || options.as_of_ms)) {
    if (auto snapshot_schema = metadata->SchemaById(*scan->snapshot_->schema_id)) schema = snapshot_schema;
  }
  if (options.columns.empty()) {
    scan->projection_ = schema;
  } else {
    std::vector<NestedField> fields;
    for (const auto& name : options.columns) {
      const NestedField* field = schema->fields().empty() ? nullptr : schema->as_struct()->FieldByName(name);
      if (field == nullptr) {
        return MakeError(ErrorKind::kInvalidInput, "no column '" + name + "' in the table schema");
      }
      fields.push_back(*field);
    }
    ARROW_ASSIGN_OR_RAISE(scan->projection_, Schema::Make(schema->schema_id(), std::move(fields)));
  }
  scan->io_ = std::move(io);
  scan->metadata_ = std::move(metadata);
  return scan;
}

arrow::Result<std::vector<FileScanTask>> TableScan::PlanFiles() {
  std::vector<FileScanTask> tasks;
  if (!snapshot_) return tasks;
  std::vector<ManifestFile> manifests;
  if (!snapshot_->manifest_list.empty()) {
    ARROW_ASSIGN_OR_RAISE(std::string bytes, io_->ReadAll(snapshot_->manifest_list));
    auto list = ReadManifestList(bytes);
    if (!list.ok()) return WithContext(list.status(), "manifest list " + snapshot_->manifest_list);
    manifests = std::move(list->manifests);
  } else {
    for (const auto& path : snapshot_->manifests) {
      ManifestFile manifest;
      manifest.manifest_path = path;
      manifest.added_snapshot_id = snapshot_->snapshot_id;
      manifest.sequence_number = 0;
      manifests.push_back(std::move(manifest));
    }
  }
  for (const auto& manifest : manifests) {
    ARROW_ASSIGN_OR_RAISE(std::string bytes, io_->ReadAll(manifest.manifest_path));
    auto spec = metadata_->SpecById(manifest.partition_spec_id);
    std::shared_ptr<const StructType> partition_type;
    if (spec) {
      auto type = spec->PartitionType(*metadata_->CurrentSchema());
      if (type.ok()) partition_type = *type;
    }
    auto contents = ReadManifest(bytes, partition_type.get());
    if (!contents.ok()) return WithContext(contents.status(), "manifest " + manifest.manifest_path);
    if (!spec) spec = contents->spec;
    if (!spec) {
      return MakeError(ErrorKind::kInvalidMetadata, "manifest " + manifest.manifest_path +
                                                        " uses an unknown partition spec");
    }
    InheritManifestMetadata(manifest, metadata_->format_version, &contents->entries);
    for (auto& entry : contents->entries) {
      if (entry.status == EntryStatus::kDeleted) continue;
      if (entry.data_file.content != FileContent::kData) {
        return MakeError(ErrorKind::kNotSupported,
                         "snapshot " + std::to_string(snapshot_->snapshot_id) +
                             " has delete files, which floe cannot apply yet");
      }
      tasks.push_back(FileScanTask{std::move(entry.data_file), spec});
    }
  }
  stats_->files_planned += static_cast<int64_t>(tasks.size());
  return tasks;
}

arrow::Result<std::shared_ptr<arrow::RecordBatchReader>> TableScan::ToRecordBatchReader() {
  ARROW_ASSIGN_OR_RAISE(auto tasks, PlanFiles());
  ARROW_ASSIGN_OR_RAISE(auto schema, ToArrowSchema(*projection_));
  return std::shared_ptr<arrow::RecordBatchReader>(std::make_shared<ChainedReader>(
      io_, std::move(tasks), projection_, std::move(schema), stats_));
}

}  // namespace floe
