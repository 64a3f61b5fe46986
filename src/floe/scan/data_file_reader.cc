#include "floe/scan/data_file_reader.h"

#include "arrow/array.h"
#include "arrow/array/util.h"
#include "arrow/compute/api.h"
#include "arrow/extension_type.h"
#include "arrow/io/interfaces.h"
#include "floe/spec/arrow_schema.h"
#include "floe/spec/arrow_value.h"
#include "floe/util/error.h"
#include "parquet/arrow/reader.h"
#include "parquet/arrow/schema.h"
#include "parquet/file_reader.h"

namespace floe {
namespace {

// A file that counts bytes and read requests for ScanStats.
class CountingFile final : public arrow::io::RandomAccessFile {
 public:
  CountingFile(std::shared_ptr<arrow::io::RandomAccessFile> inner, std::shared_ptr<ScanStats> stats)
      : inner_(std::move(inner)), stats_(std::move(stats)) {}
  arrow::Status Close() override { return inner_->Close(); }
  bool closed() const override { return inner_->closed(); }
  arrow::Result<int64_t> Tell() const override { return inner_->Tell(); }
  arrow::Status Seek(int64_t position) override { return inner_->Seek(position); }
  arrow::Result<int64_t> GetSize() override { return inner_->GetSize(); }
  arrow::Result<int64_t> Read(int64_t nbytes, void* out) override {
    ARROW_ASSIGN_OR_RAISE(int64_t read, inner_->Read(nbytes, out));
    Count(read);
    return read;
  }
  arrow::Result<std::shared_ptr<arrow::Buffer>> Read(int64_t nbytes) override {
    ARROW_ASSIGN_OR_RAISE(auto buffer, inner_->Read(nbytes));
    Count(buffer->size());
    return buffer;
  }
  arrow::Result<int64_t> ReadAt(int64_t position, int64_t nbytes, void* out) override {
    ARROW_ASSIGN_OR_RAISE(int64_t read, inner_->ReadAt(position, nbytes, out));
    Count(read);
    return read;
  }
  arrow::Result<std::shared_ptr<arrow::Buffer>> ReadAt(int64_t position, int64_t nbytes) override {
    ARROW_ASSIGN_OR_RAISE(auto buffer, inner_->ReadAt(position, nbytes));
    Count(buffer->size());
    return buffer;
  }

 private:
  void Count(int64_t bytes) {
    if (!stats_) return;
    stats_->bytes_read += bytes;
    stats_->requests += 1;
  }
  std::shared_ptr<arrow::io::RandomAccessFile> inner_;
  std::shared_ptr<ScanStats> stats_;
};

void CollectLeaves(const parquet::arrow::SchemaField& field, std::vector<int>* leaves) {
  if (field.is_leaf()) {
    leaves->push_back(field.column_index);
    return;
  }
  for (const auto& child : field.children) CollectLeaves(child, leaves);
}

arrow::Result<std::shared_ptr<arrow::Array>> Project(const std::shared_ptr<arrow::Array>& array,
                                                     const arrow::Field& target,
                                                     const std::string& path);

// Reshapes a file's column to the projection's field, matching nested fields by id.
arrow::Result<std::shared_ptr<arrow::Array>> Project(const std::shared_ptr<arrow::Array>& array,
                                                     const arrow::Field& target,
                                                     const std::string& path) {
  const auto& target_type = target.type();
  if (target_type->id() == arrow::Type::EXTENSION) {
    const auto& extension = static_cast<const arrow::ExtensionType&>(*target_type);
    std::shared_ptr<arrow::Array> storage = array;
    if (storage->type_id() == arrow::Type::EXTENSION) {
      storage = static_cast<const arrow::ExtensionArray&>(*storage).storage();
    }
    ARROW_ASSIGN_OR_RAISE(storage, Project(storage, *target.WithType(extension.storage_type()), path));
    return arrow::ExtensionType::WrapArray(target_type, storage);
  }
  switch (target_type->id()) {
    case arrow::Type::STRUCT: {
      const auto& source = static_cast<const arrow::StructArray&>(*array);
      const auto& source_type = static_cast<const arrow::StructType&>(*array->type());
      arrow::ArrayVector children;
      for (const auto& child : target_type->fields()) {
        int id = ArrowFieldId(*child);
        std::shared_ptr<arrow::Array> column;
        for (int i = 0; i < source_type.num_fields(); ++i) {
          if (ArrowFieldId(*source_type.field(i)) == id) column = source.field(i);
        }
        if (!column) {
          ARROW_ASSIGN_OR_RAISE(column, arrow::MakeArrayOfNull(child->type(), source.length()));
        } else {
          ARROW_ASSIGN_OR_RAISE(column, Project(column, *child, path + "." + child->name()));
        }
        children.push_back(std::move(column));
      }
      auto data = arrow::ArrayData::Make(target_type, source.length(),
                                         {source.null_count() > 0 ? source.data()->buffers[0] : nullptr},
                                         source.null_count(), source.offset());
      // Children of field() are already offset-adjusted; rebase the parent at offset 0.
      if (source.offset() != 0 && source.null_count() > 0) {
        ARROW_ASSIGN_OR_RAISE(auto valid, arrow::compute::IsValid(array));
        data->buffers[0] = valid.make_array()->data()->buffers[1];
      }
      data->offset = 0;
      for (const auto& child : children) data->child_data.push_back(child->data());
      return arrow::MakeArray(data);
    }
    case arrow::Type::LIST:
    case arrow::Type::MAP: {
      // Files written from large or view lists read back as those types (the footer keeps the
      // writer's Arrow schema); bring them to the 32-bit offsets Iceberg's Arrow form uses.
      if (array->type_id() != target_type->id()) {
        std::shared_ptr<arrow::DataType> plain =
            target_type->id() == arrow::Type::LIST ? arrow::list(array->type()->field(0))
                                                   : array->type();
        ARROW_ASSIGN_OR_RAISE(auto converted, arrow::compute::Cast(*array, plain));
        return Project(converted, target, path);
      }
      const auto& source = static_cast<const arrow::ListArray&>(*array);
      std::shared_ptr<arrow::Array> values;
      if (target_type->id() == arrow::Type::LIST) {
        ARROW_ASSIGN_OR_RAISE(values, Project(source.values(), *target_type->field(0), path + ".element"));
      } else {
        const auto& entries = static_cast<const arrow::StructArray&>(*source.values());
        const auto& map = static_cast<const arrow::MapType&>(*target_type);
        ARROW_ASSIGN_OR_RAISE(auto keys, Project(entries.field(0), *map.key_field(), path + ".key"));
        ARROW_ASSIGN_OR_RAISE(auto items, Project(entries.field(1), *map.item_field(), path + ".value"));
        ARROW_ASSIGN_OR_RAISE(values, arrow::StructArray::Make({keys, items}, map.value_type()->fields()));
      }
      auto data = array->data()->Copy();
      data->type = target_type;
      data->child_data = {values->data()};
      return arrow::MakeArray(data);
    }
    default:
      if (array->type()->Equals(*target_type)) return array;
      {
        auto cast = arrow::compute::Cast(*array, target_type, arrow::compute::CastOptions::Safe());
        if (!cast.ok()) return WithContext(cast.status(), "column " + path);
        return *cast;
      }
  }
}

class ProjectingReader final : public arrow::RecordBatchReader {
 public:
  ProjectingReader(std::unique_ptr<parquet::arrow::FileReader> file_reader,
                   std::unique_ptr<arrow::RecordBatchReader> batches,
                   std::shared_ptr<arrow::Schema> output, std::vector<int> source_index,
                   std::vector<std::shared_ptr<arrow::Scalar>> constants, int64_t row_count,
                   std::string location, std::shared_ptr<ScanStats> stats)
      : file_reader_(std::move(file_reader)),
        batches_(std::move(batches)),
        output_(std::move(output)),
        source_index_(std::move(source_index)),
        constants_(std::move(constants)),
        rows_left_(row_count),
        location_(std::move(location)),
        stats_(std::move(stats)) {}

  std::shared_ptr<arrow::Schema> schema() const override { return output_; }

  arrow::Status ReadNext(std::shared_ptr<arrow::RecordBatch>* out) override {
    std::shared_ptr<arrow::RecordBatch> batch;
    int64_t rows = 0;
    if (batches_) {
      auto status = batches_->ReadNext(&batch);
      if (!status.ok()) return WithContext(status, "reading data file " + location_);
      if (!batch) {
        *out = nullptr;
        return arrow::Status::OK();
      }
      rows = batch->num_rows();
    } else {
      // No column of the file is needed: produce the file's row count.
      if (rows_left_ <= 0) {
        *out = nullptr;
        return arrow::Status::OK();
      }
      rows = std::min<int64_t>(rows_left_, 65536);
      rows_left_ -= rows;
    }
    arrow::ArrayVector columns;
    for (size_t i = 0; i < source_index_.size(); ++i) {
      const auto& field = output_->field(static_cast<int>(i));
      if (source_index_[i] >= 0) {
        ARROW_ASSIGN_OR_RAISE(auto column, Project(batch->column(source_index_[i]), *field, field->name()));
        columns.push_back(std::move(column));
      } else if (constants_[i]) {
        ARROW_ASSIGN_OR_RAISE(auto column, arrow::MakeArrayFromScalar(*constants_[i], rows));
        columns.push_back(std::move(column));
      } else {
        ARROW_ASSIGN_OR_RAISE(auto column, arrow::MakeArrayOfNull(field->type(), rows));
        columns.push_back(std::move(column));
      }
    }
    if (stats_) stats_->rows += rows;
    *out = arrow::RecordBatch::Make(output_, rows, std::move(columns));
    return arrow::Status::OK();
  }

 private:
  std::unique_ptr<parquet::arrow::FileReader> file_reader_;
  std::unique_ptr<arrow::RecordBatchReader> batches_;
  std::shared_ptr<arrow::Schema> output_;
  std::vector<int> source_index_;
  std::vector<std::shared_ptr<arrow::Scalar>> constants_;
  int64_t rows_left_;
  std::string location_;
  std::shared_ptr<ScanStats> stats_;
};

}  // namespace

arrow::Result<std::shared_ptr<arrow::RecordBatchReader>> ReadDataFile(
    std::shared_ptr<FileIO> io, const DataFile& file, const Schema& projection,
    const PartitionSpec& spec, std::shared_ptr<ScanStats> stats) {
  const std::string& location = file.file_path;
  auto opened = io->OpenInput(location);
  if (!opened.ok()) return WithContext(opened.status(), "reading a data file of the table");
  auto counted = std::make_shared<CountingFile>(*opened, stats);
  parquet::arrow::FileReaderBuilder builder;
  FLOE_RETURN_NOT_OK_CONTEXT(builder.Open(counted), "data file " + location);
  parquet::ArrowReaderProperties properties;
  properties.set_batch_size(65536);
  builder.properties(properties);
  std::unique_ptr<parquet::arrow::FileReader> reader;
  FLOE_RETURN_NOT_OK_CONTEXT(builder.Build(&reader), "data file " + location);
  if (stats) stats->files_read += 1;

  ARROW_ASSIGN_OR_RAISE(auto output, ToArrowSchema(projection));
  const auto& fields = reader->manifest().schema_fields;
  std::vector<int> leaves;
  std::vector<int> source_index(projection.fields().size(), -1);
  std::vector<std::shared_ptr<arrow::Scalar>> constants(projection.fields().size());
  std::vector<bool> found(projection.fields().size(), false);
  for (size_t i = 0; i < projection.fields().size(); ++i) {
    int id = projection.fields()[i].id;
    for (const auto& field : fields) {
      if (ArrowFieldId(*field.field) == id) {
        CollectLeaves(field, &leaves);
        found[i] = true;
        break;
      }
    }
    if (found[i]) continue;
    // Identity-partition values live in the manifest when the file does not hold the column.
    for (size_t p = 0; p < spec.fields().size() && p < file.partition.size(); ++p) {
      const auto& partition_field = spec.fields()[p];
      if (partition_field.source_id == id &&
          partition_field.transform.kind() == TransformKind::kIdentity) {
        ARROW_ASSIGN_OR_RAISE(constants[i],
                              ValueToArrowScalar(file.partition[p], *projection.fields()[i].type));
      }
    }
  }
  std::unique_ptr<arrow::RecordBatchReader> batches;
  if (!leaves.empty()) {
    std::vector<int> row_groups(static_cast<size_t>(reader->num_row_groups()));
    for (size_t g = 0; g < row_groups.size(); ++g) row_groups[g] = static_cast<int>(g);
    auto result = reader->GetRecordBatchReader(row_groups, leaves);
    if (!result.ok()) return WithContext(result.status(), "data file " + location);
    batches = std::move(*result);
    // The reader returns columns in file order: find each projected column by its field id.
    const auto& read_schema = *batches->schema();
    for (size_t i = 0; i < projection.fields().size(); ++i) {
      if (!found[i]) continue;
      for (int c = 0; c < read_schema.num_fields(); ++c) {
        if (ArrowFieldId(*read_schema.field(c)) == projection.fields()[i].id) source_index[i] = c;
      }
    }
  }
  int64_t row_count = reader->parquet_reader()->metadata()->num_rows();
  return std::shared_ptr<arrow::RecordBatchReader>(std::make_shared<ProjectingReader>(
      std::move(reader), std::move(batches), std::move(output), std::move(source_index),
      std::move(constants), row_count, location, std::move(stats)));
}

}  // namespace floe
