#include "floe/delta/scan.h"

#include <algorithm>
#include <utility>

#include "arrow/array/builder_primitive.h"
#include "arrow/array/util.h"
#include "arrow/compute/api_vector.h"
#include "arrow/datum.h"
#include "arrow/scalar.h"
#include "arrow/util/key_value_metadata.h"
#include "floe/delta/deletion_vector.h"
#include "floe/delta/filter.h"
#include "floe/delta/schema.h"
#include "floe/util/cancel.h"
#include "floe/util/error.h"
#include "floe/util/field_id.h"
#include "parquet/metadata.h"

namespace floe::delta {
namespace {

// Column mapping id mode, read by physical name (as delta-spark writes the files): the
// file's field ids must agree with the table's, at every struct level, or the file is
// refused rather than read into the wrong columns.
arrow::Status CheckMappingIds(const parquet::arrow::SchemaField& file_field,
                              const arrow::Field& table_field, const std::string& path) {
  auto expected = ColumnMappingId(table_field);
  const int actual = ArrowFieldId(*file_field.field);  // -1: none
  if (expected && actual >= 0 && *expected != actual) {
    return MakeError(ErrorKind::kInvalidMetadata,
                     "column " + path + " has field id " + std::to_string(actual) +
                         " in the file where the table's column mapping says " +
                         std::to_string(*expected));
  }
  if (table_field.type()->id() == arrow::Type::STRUCT) {
    for (const auto& child : table_field.type()->fields()) {
      const std::string physical = PhysicalName(*child);
      for (const auto& file_child : file_field.children) {
        if (file_child.field->name() == physical) {
          ARROW_RETURN_NOT_OK(
              CheckMappingIds(file_child, *child, path + "." + child->name()));
        }
      }
    }
  }
  return arrow::Status::OK();
}

class DeltaReader : public arrow::RecordBatchReader {
 public:
  // Reads `files` of `snapshot`: the columns of `schema`, then (with a filter) the rows
  // it selects, then the first `output_columns` columns.
  DeltaReader(std::shared_ptr<FileIO> io, const Snapshot* snapshot,
              std::vector<const AddFile*> files, std::shared_ptr<arrow::Schema> schema,
              std::vector<bool> is_partition, const DeltaFilter* filter,
              int output_columns, ParquetReadOptions parquet,
              std::shared_ptr<DeltaScanStats> stats)
      : id_mode_([&] {
          auto mode = snapshot->metadata.configuration.find("delta.columnMapping.mode");
          return mode != snapshot->metadata.configuration.end() && mode->second == "id";
        }()),
        io_(std::move(io)),
        snapshot_(snapshot),
        files_(std::move(files)),
        schema_(std::move(schema)),
        is_partition_(std::move(is_partition)),
        filter_(filter),
        parquet_(std::move(parquet)),
        stats_(std::move(stats)) {
    if (output_columns < schema_->num_fields()) {
      project_ = true;
      for (int i = 0; i < output_columns; ++i) output_indices_.push_back(i);
      arrow::FieldVector fields(schema_->fields().begin(),
                                schema_->fields().begin() + output_columns);
      output_schema_ = arrow::schema(std::move(fields));
    } else {
      output_schema_ = schema_;
    }
    // Column mapping: the columns as the data files name them.
    for (const auto& field : schema_->fields()) {
      auto physical = PhysicalField(field);
      physical_.push_back(physical->Equals(*field, /*check_metadata=*/false) ? field
                                                                             : physical);
    }
  }

  std::shared_ptr<arrow::Schema> schema() const override { return output_schema_; }

  arrow::Status ReadNext(std::shared_ptr<arrow::RecordBatch>* out) override {
    while (true) {
      if (current_) {
        std::shared_ptr<arrow::RecordBatch> batch;
        ARROW_RETURN_NOT_OK(WithFile(current_->ReadNext(&batch)));
        if (batch) {
          ARROW_ASSIGN_OR_RAISE(auto shaped, Shape(*batch, batch->num_rows()));
          ARROW_ASSIGN_OR_RAISE(shaped, ApplyDeletes(std::move(shaped)));
          ARROW_ASSIGN_OR_RAISE(*out, Finish(std::move(shaped)));
          if ((*out)->num_rows() == 0) continue;
          stats_->rows += (*out)->num_rows();
          return arrow::Status::OK();
        }
        current_.reset();
        file_.reset();
      }
      if (pending_rows_ > 0) {  // only partition columns (or none the file holds)
        int64_t rows = std::min(pending_rows_, parquet_.batch_size);
        pending_rows_ -= rows;
        ARROW_ASSIGN_OR_RAISE(auto shaped, Shape(*empty_batch_, rows));
        ARROW_ASSIGN_OR_RAISE(shaped, ApplyDeletes(std::move(shaped)));
        ARROW_ASSIGN_OR_RAISE(*out, Finish(std::move(shaped)));
        if ((*out)->num_rows() == 0) continue;
        stats_->rows += (*out)->num_rows();
        return arrow::Status::OK();
      }
      if (next_ >= files_.size()) {
        *out = nullptr;
        return arrow::Status::OK();
      }
      ARROW_RETURN_NOT_OK(CheckCancelled("the Delta scan"));
      ARROW_RETURN_NOT_OK(Open(*files_[next_++]));
    }
  }

 private:
  // The filter's rows of `batch`, in the output columns.
  arrow::Result<std::shared_ptr<arrow::RecordBatch>> Finish(
      std::shared_ptr<arrow::RecordBatch> batch) {
    if (filter_ != nullptr && batch->num_rows() > 0) {
      auto selected = filter_->Select(batch);
      if (!selected.ok()) return WithFile(selected.status());
      batch = std::move(*selected);
    }
    if (!project_) return batch;
    return batch->SelectColumns(output_indices_);
  }

  arrow::Status WithFile(const arrow::Status& status) const {
    if (status.ok()) return status;
    return WithContext(status, "reading Delta data file " + add_->location);
  }

  // The rows of `batch` (the file's next rows, from position_) the file's deletion
  // vector keeps.
  arrow::Result<std::shared_ptr<arrow::RecordBatch>> ApplyDeletes(
      std::shared_ptr<arrow::RecordBatch> batch) {
    const int64_t first = position_;
    const int64_t end = first + batch->num_rows();
    position_ = end;
    if (next_deleted_ >= deleted_.size() || deleted_[next_deleted_] >= end) return batch;
    arrow::BooleanBuilder keep;
    ARROW_RETURN_NOT_OK(keep.Reserve(batch->num_rows()));
    for (int64_t row = first; row < end; ++row) {
      const bool deleted =
          next_deleted_ < deleted_.size() && deleted_[next_deleted_] == row;
      if (deleted) ++next_deleted_;
      keep.UnsafeAppend(!deleted);
    }
    ARROW_ASSIGN_OR_RAISE(auto mask, keep.Finish());
    ARROW_ASSIGN_OR_RAISE(auto filtered, arrow::compute::Filter(batch, mask));
    return filtered.record_batch();
  }

  arrow::Status Open(const AddFile& add) {
    add_ = &add;
    deleted_.clear();
    next_deleted_ = 0;
    position_ = 0;
    if (add.deletion_vector) {
      auto positions =
          ReadDeletionVector(*io_, snapshot_->table_root, *add.deletion_vector);
      if (!positions.ok()) return WithFile(positions.status());
      deleted_ = std::move(*positions);
    }
    partition_.assign(schema_->num_fields(), nullptr);
    for (int i = 0; i < schema_->num_fields(); ++i) {
      if (!is_partition_[i]) continue;
      const auto& field = schema_->field(i);
      auto value = add.partition_values.find(PhysicalName(*field));
      if (value == add.partition_values.end()) {
        return MakeError(ErrorKind::kInvalidMetadata,
                         "Delta data file " + add.path + " of table " +
                             snapshot_->table_root +
                             " has no partition value for column " + field->name());
      }
      ARROW_ASSIGN_OR_RAISE(
          partition_[i],
          ParsePartitionValue(value->second, field->type(), field->name()));
    }
    ParquetReadOptions read = parquet_;
    if (add.size > 0) read.file_size = add.size;
    auto opened = ParquetFileReader::Open(*io_, add.location, read);
    if (!opened.ok()) return WithFile(opened.status());
    file_ = std::move(*opened);
    ++stats_->files_read;
    std::vector<int> leaves;
    for (int i = 0; i < schema_->num_fields(); ++i) {
      if (is_partition_[i]) continue;
      bool found = false;
      for (const auto& file_field : file_->fields()) {
        if (MatchesField(*file_field.field, *physical_[i], ParquetColumnMatch::kName)) {
          if (id_mode_) {
            ARROW_RETURN_NOT_OK(WithFile(CheckMappingIds(file_field, *schema_->field(i),
                                                         schema_->field(i)->name())));
          }
          SelectLeaves(file_field, *physical_[i], ParquetColumnMatch::kName, &leaves);
          found = true;
          break;
        }
      }
      auto id = id_mode_ ? ColumnMappingId(*schema_->field(i)) : std::nullopt;
      for (const auto& file_field : file_->fields()) {
        if (found || !id) break;
        if (ArrowFieldId(*file_field.field) == *id) {
          return WithFile(MakeError(ErrorKind::kNotSupported,
                                    "column " + schema_->field(i)->name() +
                                        " (field id " + std::to_string(*id) +
                                        ") is named " + file_field.field->name() +
                                        " in the file, not " + physical_[i]->name() +
                                        "; floe reads column mapping by physical name"));
        }
      }
    }
    int groups = file_->metadata().num_row_groups();
    if (!deleted_.empty() && deleted_.back() >= file_->metadata().num_rows()) {
      return WithFile(MakeError(ErrorKind::kInvalidMetadata,
                                "its deletion vector deletes row " +
                                    std::to_string(deleted_.back()) + " of " +
                                    std::to_string(file_->metadata().num_rows())));
    }
    if (leaves.empty() ||
        groups == 0) {  // no column to read, or no row group (an empty file)
      pending_rows_ = file_->metadata().num_rows();
      empty_batch_ = arrow::RecordBatch::Make(arrow::schema({}), 0, arrow::ArrayVector{});
      file_.reset();
      return arrow::Status::OK();
    }
    std::vector<int> row_groups(groups);
    for (int g = 0; g < groups; ++g) row_groups[g] = g;
    auto reader = file_->ReadRowGroups(std::move(row_groups), std::move(leaves));
    if (!reader.ok()) return WithFile(reader.status());
    current_ = std::move(*reader);
    return arrow::Status::OK();
  }

  arrow::Result<std::shared_ptr<arrow::RecordBatch>> Shape(
      const arrow::RecordBatch& batch, int64_t rows) {
    arrow::ArrayVector columns;
    columns.reserve(schema_->num_fields());
    for (int i = 0; i < schema_->num_fields(); ++i) {
      const auto& field = schema_->field(i);
      if (is_partition_[i]) {
        ARROW_ASSIGN_OR_RAISE(auto column,
                              arrow::MakeArrayFromScalar(*partition_[i], rows));
        columns.push_back(std::move(column));
        continue;
      }
      int index = batch.schema()->GetFieldIndex(physical_[i]->name());
      if (index < 0) {
        ARROW_ASSIGN_OR_RAISE(auto column, arrow::MakeArrayOfNull(field->type(), rows));
        columns.push_back(std::move(column));
        continue;
      }
      auto projected = ProjectColumn(batch.column(index), *physical_[i],
                                     ParquetColumnMatch::kName, field->name());
      if (!projected.ok()) return WithFile(projected.status());
      if (physical_[i] == field) {
        columns.push_back(std::move(*projected));
        continue;
      }
      // Physical names inside, logical names out: the same buffers under the table's
      // type.
      auto logical = (*projected)->View(field->type());
      if (!logical.ok()) return WithFile(logical.status());
      columns.push_back(std::move(*logical));
    }
    return arrow::RecordBatch::Make(schema_, rows, std::move(columns));
  }

  bool id_mode_;
  std::shared_ptr<FileIO> io_;
  const Snapshot* snapshot_;
  std::vector<const AddFile*> files_;
  std::shared_ptr<arrow::Schema> schema_;
  std::vector<bool> is_partition_;
  const DeltaFilter* filter_;
  bool project_ = false;  // output only output_indices_ of schema_
  std::vector<int> output_indices_;
  std::shared_ptr<arrow::Schema> output_schema_;
  arrow::FieldVector physical_;  // schema_'s fields named as in the data files
  ParquetReadOptions parquet_;
  std::shared_ptr<DeltaScanStats> stats_;
  size_t next_ = 0;
  const AddFile* add_ = nullptr;
  std::vector<std::shared_ptr<arrow::Scalar>> partition_;
  std::unique_ptr<ParquetFileReader> file_;
  std::unique_ptr<arrow::RecordBatchReader> current_;
  int64_t pending_rows_ = 0;
  std::shared_ptr<arrow::RecordBatch> empty_batch_;
  // The open file's deleted row positions, the next of them not yet passed, and the
  // position of the file's next row.
  std::vector<int64_t> deleted_;
  size_t next_deleted_ = 0;
  int64_t position_ = 0;
};

}  // namespace

arrow::Result<std::unique_ptr<DeltaScan>> DeltaScan::Make(
    std::shared_ptr<FileIO> io, const std::string& table_root,
    const DeltaScanOptions& options) {
  ARROW_ASSIGN_OR_RAISE(Snapshot snapshot,
                        LoadSnapshot(*io, table_root, options.snapshot));
  return Make(std::move(io), std::move(snapshot), options);
}

arrow::Result<std::unique_ptr<DeltaScan>> DeltaScan::Make(
    std::shared_ptr<FileIO> io, Snapshot snapshot, const DeltaScanOptions& options) {
  std::unique_ptr<DeltaScan> scan(new DeltaScan());
  scan->io_ = std::move(io);
  scan->snapshot_ = std::move(snapshot);
  ARROW_RETURN_NOT_OK(CheckReadable(scan->snapshot_));
  const std::string table = "Delta table " + scan->snapshot_.table_root;
  auto schema = SchemaFromJson(scan->snapshot_.metadata.schema_string);
  if (!schema.ok()) return WithContext(schema.status(), table);
  scan->table_schema_ = *schema;
  const auto& partition_columns = scan->snapshot_.metadata.partition_columns;
  for (const auto& column : partition_columns) {
    if (scan->table_schema_->GetFieldIndex(column) < 0) {
      return MakeError(
          ErrorKind::kInvalidMetadata,
          table + " is partitioned by " + column + ", which its schema lacks");
    }
  }
  arrow::FieldVector fields;
  if (options.columns.empty()) {
    fields = scan->table_schema_->fields();
  } else {
    for (const auto& column : options.columns) {
      auto field = scan->table_schema_->GetFieldByName(column);
      if (!field) {
        return MakeError(ErrorKind::kInvalidInput, table + " has no column " + column);
      }
      fields.push_back(std::move(field));
    }
  }
  scan->output_columns_ = static_cast<int>(fields.size());
  if (!options.filter.empty()) {
    ARROW_ASSIGN_OR_RAISE(auto filter,
                          DeltaFilter::Make(scan->table_schema_, partition_columns,
                                            options.filter, scan->snapshot_.table_root));
    scan->filter_ = std::make_shared<DeltaFilter>(std::move(filter));
    // The filter's columns are read too, after the requested ones.
    for (const auto& column : scan->filter_->columns()) {
      bool listed = false;
      for (const auto& field : fields) listed = listed || field->name() == column;
      if (!listed) fields.push_back(scan->table_schema_->GetFieldByName(column));
    }
  }
  for (const auto& field : fields) {
    scan->is_partition_.push_back(std::find(partition_columns.begin(),
                                            partition_columns.end(),
                                            field->name()) != partition_columns.end());
  }
  scan->read_schema_ = arrow::schema(std::move(fields));
  scan->schema_ = arrow::schema(
      arrow::FieldVector(scan->read_schema_->fields().begin(),
                         scan->read_schema_->fields().begin() + scan->output_columns_));
  scan->parquet_ = options.parquet;
  for (const auto& file : scan->snapshot_.files) {
    if (!scan->filter_ || scan->filter_->MightMatch(file)) scan->files_.push_back(&file);
  }
  scan->stats_->files_planned = static_cast<int64_t>(scan->files_.size());
  scan->stats_->files_skipped =
      static_cast<int64_t>(scan->snapshot_.files.size() - scan->files_.size());
  return scan;
}

arrow::Result<std::unique_ptr<arrow::RecordBatchReader>> DeltaScan::ToRecordBatchReader()
    const {
  return std::make_unique<DeltaReader>(io_, &snapshot_, files_, read_schema_,
                                       is_partition_, filter_.get(), output_columns_,
                                       parquet_, stats_);
}

arrow::Result<std::unique_ptr<arrow::RecordBatchReader>> DeltaScan::ReadFiles(
    std::vector<const AddFile*> files) const {
  return std::make_unique<DeltaReader>(io_, &snapshot_, std::move(files), read_schema_,
                                       is_partition_, nullptr, read_schema_->num_fields(),
                                       parquet_, stats_);
}

}  // namespace floe::delta
