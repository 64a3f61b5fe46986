#include "floe/scan/data_file_reader.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "arrow/array.h"
#include "arrow/array/util.h"
#include "arrow/builder.h"
#include "arrow/compute/api.h"
#include "arrow/extension_type.h"
#include "arrow/io/interfaces.h"
#include "arrow/util/key_value_metadata.h"
#include "floe/expr/evaluators.h"
#include "floe/expr/row_filter.h"
#include "floe/scan/delete_files.h"
#include "floe/spec/arrow_schema.h"
#include "floe/spec/arrow_value.h"
#include "floe/spec/name_mapping.h"
#include "floe/util/cancel.h"
#include "floe/util/error.h"
#include "parquet/arrow/reader.h"
#include "parquet/arrow/schema.h"
#include "parquet/file_reader.h"
#include "parquet/metadata.h"
#include "parquet/statistics.h"

namespace floe {
namespace {

// A file that counts bytes and read requests for ScanStats.
class CountingFile final : public arrow::io::RandomAccessFile {
 public:
  CountingFile(std::shared_ptr<arrow::io::RandomAccessFile> inner,
               std::shared_ptr<ScanStats> stats)
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
  arrow::Result<std::shared_ptr<arrow::Buffer>> ReadAt(int64_t position,
                                                       int64_t nbytes) override {
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

arrow::Result<std::shared_ptr<arrow::Array>> Project(
    const std::shared_ptr<arrow::Array>& array, const arrow::Field& target,
    const std::string& path);

// Reshapes a file's column to the projection's field, matching nested fields by id.
arrow::Result<std::shared_ptr<arrow::Array>> Project(
    const std::shared_ptr<arrow::Array>& array, const arrow::Field& target,
    const std::string& path) {
  const auto& target_type = target.type();
  if (target_type->id() == arrow::Type::EXTENSION) {
    const auto& extension = static_cast<const arrow::ExtensionType&>(*target_type);
    std::shared_ptr<arrow::Array> storage = array;
    if (storage->type_id() == arrow::Type::EXTENSION) {
      storage = static_cast<const arrow::ExtensionArray&>(*storage).storage();
    }
    ARROW_ASSIGN_OR_RAISE(
        storage, Project(storage, *target.WithType(extension.storage_type()), path));
    return arrow::ExtensionType::WrapArray(target_type, storage);
  }
  // A nested column must be nested the same way in the file: a file whose field id holds
  // another shape (a foreign or corrupt writer) is an error, not a cast.
  auto mismatch = [&] {
    return MakeError(ErrorKind::kInvalidMetadata,
                     "column " + path + " has type " + array->type()->ToString() +
                         " in the data file, which cannot be read as " +
                         target_type->ToString());
  };
  const arrow::Type::type source_id = array->type_id();
  const bool source_list =
      source_id == arrow::Type::LIST || source_id == arrow::Type::LARGE_LIST ||
      source_id == arrow::Type::LIST_VIEW || source_id == arrow::Type::LARGE_LIST_VIEW;
  if ((target_type->id() == arrow::Type::STRUCT && source_id != arrow::Type::STRUCT) ||
      (target_type->id() == arrow::Type::LIST && !source_list) ||
      (target_type->id() == arrow::Type::MAP && source_id != arrow::Type::MAP)) {
    return mismatch();
  }
  if (target_type->id() != arrow::Type::STRUCT &&
      target_type->id() != arrow::Type::LIST && target_type->id() != arrow::Type::MAP &&
      (source_id == arrow::Type::STRUCT || source_list ||
       source_id == arrow::Type::MAP)) {
    return mismatch();
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
          ARROW_ASSIGN_OR_RAISE(column,
                                arrow::MakeArrayOfNull(child->type(), source.length()));
        } else {
          ARROW_ASSIGN_OR_RAISE(column,
                                Project(column, *child, path + "." + child->name()));
        }
        children.push_back(std::move(column));
      }
      auto data = arrow::ArrayData::Make(
          target_type, source.length(),
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
      // Files written from large or view lists read back as those types (the footer keeps
      // the writer's Arrow schema); bring them to the 32-bit offsets Iceberg's Arrow form
      // uses.
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
        ARROW_ASSIGN_OR_RAISE(
            values, Project(source.values(), *target_type->field(0), path + ".element"));
      } else {
        const auto& entries = static_cast<const arrow::StructArray&>(*source.values());
        const auto& map = static_cast<const arrow::MapType&>(*target_type);
        ARROW_ASSIGN_OR_RAISE(auto keys,
                              Project(entries.field(0), *map.key_field(), path + ".key"));
        ARROW_ASSIGN_OR_RAISE(
            auto items, Project(entries.field(1), *map.item_field(), path + ".value"));
        ARROW_ASSIGN_OR_RAISE(
            values, arrow::StructArray::Make({keys, items}, map.value_type()->fields()));
      }
      auto data = array->data()->Copy();
      data->type = target_type;
      data->child_data = {values->data()};
      return arrow::MakeArray(data);
    }
    default:
      if (array->type()->Equals(*target_type)) return array;
      {
        auto cast = arrow::compute::Cast(*array, target_type,
                                         arrow::compute::CastOptions::Safe());
        if (!cast.ok()) return WithContext(cast.status(), "column " + path);
        return *cast;
      }
  }
}

// The leaves of `file_field` that `wanted` (the same field in the read schema) needs:
// only the paths to the fields the read schema keeps. A struct none of whose wanted
// children the file holds still contributes one leaf, so its own nulls survive.
void SelectLeaves(const parquet::arrow::SchemaField& file_field,
                  const NestedField& wanted, std::vector<int>* leaves) {
  if (file_field.is_leaf()) {
    leaves->push_back(file_field.column_index);
    return;
  }
  switch (wanted.type->id()) {
    case TypeId::kStruct: {
      const auto& children = static_cast<const StructType&>(*wanted.type).fields();
      size_t before = leaves->size();
      for (const auto& child : file_field.children) {
        int id = ArrowFieldId(*child.field);
        for (const auto& wanted_child : children) {
          if (wanted_child.id == id) SelectLeaves(child, wanted_child, leaves);
        }
      }
      if (leaves->size() == before && !file_field.children.empty()) {
        const parquet::arrow::SchemaField* first = &file_field.children.front();
        while (!first->is_leaf() && !first->children.empty())
          first = &first->children.front();
        if (first->is_leaf()) leaves->push_back(first->column_index);
      }
      return;
    }
    case TypeId::kList:
      if (file_field.children.size() == 1) {
        SelectLeaves(file_field.children[0],
                     static_cast<const ListType&>(*wanted.type).element(), leaves);
        return;
      }
      break;
    case TypeId::kMap: {
      const parquet::arrow::SchemaField* entries =
          file_field.children.size() == 1 ? &file_field.children[0] : &file_field;
      if (entries->children.size() == 2) {
        const auto& map = static_cast<const MapType&>(*wanted.type);
        CollectLeaves(entries->children[0], leaves);  // keys, always whole
        SelectLeaves(entries->children[1], map.value(), leaves);
        return;
      }
      break;
    }
    default:
      break;
  }
  CollectLeaves(file_field, leaves);
}

// Parquet statistics of one row group column as a summary in the Iceberg type's terms.
std::optional<ColumnSummary> RowGroupSummary(const parquet::ColumnChunkMetaData& chunk,
                                             const parquet::ColumnDescriptor& column,
                                             const Type& type) {
  if (!chunk.is_stats_set()) return std::nullopt;
  auto statistics = chunk.statistics();
  if (!statistics) return std::nullopt;
  ColumnSummary summary;
  if (statistics->HasNullCount()) {
    summary.has_null = statistics->null_count() > 0;
    summary.all_null = statistics->num_values() == 0 && statistics->null_count() > 0;
  }
  const bool floating = type.id() == TypeId::kFloat || type.id() == TypeId::kDouble;
  if (!floating) {
    summary.has_nan = false;
    summary.all_nan = false;
  }
  if (!statistics->HasMinMax()) return summary;
  const auto& logical = column.logical_type();
  std::optional<Value> min;
  std::optional<Value> max;
  auto big_endian = [](const uint8_t* data, size_t size) -> std::optional<Value> {
    auto unscaled = DecimalFromBytes(data, size);
    if (!unscaled.ok()) return std::nullopt;
    return Value{Decimal{*unscaled}};
  };
  switch (column.physical_type()) {
    case parquet::Type::BOOLEAN: {
      const auto& typed = static_cast<const parquet::BoolStatistics&>(*statistics);
      if (type.id() == TypeId::kBoolean) {
        min = Value{typed.min()};
        max = Value{typed.max()};
      }
      break;
    }
    case parquet::Type::INT32: {
      const auto& typed = static_cast<const parquet::Int32Statistics&>(*statistics);
      if (type.id() == TypeId::kInt || type.id() == TypeId::kDate) {
        min = Value{typed.min()};
        max = Value{typed.max()};
      } else if (type.id() == TypeId::kLong) {
        min = Value{int64_t{typed.min()}};
        max = Value{int64_t{typed.max()}};
      } else if (type.id() == TypeId::kDecimal && logical->is_decimal()) {
        min = Value{Decimal{typed.min()}};
        max = Value{Decimal{typed.max()}};
      }
      break;
    }
    case parquet::Type::INT64: {
      const auto& typed = static_cast<const parquet::Int64Statistics&>(*statistics);
      bool usable = type.id() == TypeId::kLong;
      if (type.id() == TypeId::kDecimal && logical->is_decimal()) {
        min = Value{Decimal{typed.min()}};
        max = Value{Decimal{typed.max()}};
        break;
      }
      if (IsTimestamp(type.id()) && logical->is_timestamp()) {
        auto unit =
            static_cast<const parquet::TimestampLogicalType&>(*logical).time_unit();
        bool nanos =
            type.id() == TypeId::kTimestampNs || type.id() == TypeId::kTimestampTzNs;
        usable = unit == (nanos ? parquet::LogicalType::TimeUnit::NANOS
                                : parquet::LogicalType::TimeUnit::MICROS);
      }
      if (type.id() == TypeId::kTime && logical->is_time()) {
        usable = static_cast<const parquet::TimeLogicalType&>(*logical).time_unit() ==
                 parquet::LogicalType::TimeUnit::MICROS;
      }
      if (usable) {
        min = Value{typed.min()};
        max = Value{typed.max()};
      }
      break;
    }
    case parquet::Type::FLOAT: {
      const auto& typed = static_cast<const parquet::FloatStatistics&>(*statistics);
      if (type.id() == TypeId::kFloat) {
        min = Value{typed.min()};
        max = Value{typed.max()};
      } else if (type.id() == TypeId::kDouble) {
        min = Value{double{typed.min()}};
        max = Value{double{typed.max()}};
      }
      break;
    }
    case parquet::Type::DOUBLE: {
      const auto& typed = static_cast<const parquet::DoubleStatistics&>(*statistics);
      if (type.id() == TypeId::kDouble) {
        min = Value{typed.min()};
        max = Value{typed.max()};
      }
      break;
    }
    case parquet::Type::BYTE_ARRAY: {
      const auto& typed = static_cast<const parquet::ByteArrayStatistics&>(*statistics);
      const auto& low = typed.min();
      const auto& high = typed.max();
      if (type.id() == TypeId::kString) {
        min = Value{std::string(reinterpret_cast<const char*>(low.ptr), low.len)};
        max = Value{std::string(reinterpret_cast<const char*>(high.ptr), high.len)};
      } else if (type.id() == TypeId::kBinary) {
        min = Value{Bytes(low.ptr, low.ptr + low.len)};
        max = Value{Bytes(high.ptr, high.ptr + high.len)};
      } else if (type.id() == TypeId::kDecimal && logical->is_decimal()) {
        min = big_endian(low.ptr, low.len);
        max = big_endian(high.ptr, high.len);
      }
      break;
    }
    case parquet::Type::FIXED_LEN_BYTE_ARRAY: {
      const auto& typed = static_cast<const parquet::FLBAStatistics&>(*statistics);
      size_t length = static_cast<size_t>(column.type_length());
      const uint8_t* low = typed.min().ptr;
      const uint8_t* high = typed.max().ptr;
      if (type.id() == TypeId::kFixed || type.id() == TypeId::kUuid) {
        min = Value{Bytes(low, low + length)};
        max = Value{Bytes(high, high + length)};
      } else if (type.id() == TypeId::kDecimal && logical->is_decimal()) {
        min = big_endian(low, length);
        max = big_endian(high, length);
      }
      break;
    }
    default:
      break;
  }
  auto nan = [](const std::optional<Value>& value) {
    if (!value) return true;
    if (const float* f = std::get_if<float>(&*value)) return std::isnan(*f);
    if (const double* d = std::get_if<double>(&*value)) return std::isnan(*d);
    return false;
  };
  // Some writers let NaN into float statistics; such bounds bound nothing.
  if (!nan(min) && !nan(max)) {
    summary.lower = min;
    summary.upper = max;
  }
  return summary;
}

// The leaf column of a primitive field id, or -1.
int LeafColumnOf(const std::vector<parquet::arrow::SchemaField>& fields, int field_id) {
  for (const auto& field : fields) {
    if (field.is_leaf() && ArrowFieldId(*field.field) == field_id)
      return field.column_index;
    // Filters never reach into lists or maps: only descend through structs.
    if (!field.is_leaf() && field.field->type()->id() == arrow::Type::STRUCT) {
      int found = LeafColumnOf(field.children, field_id);
      if (found >= 0) return found;
    }
  }
  return -1;
}

class ProjectingReader final : public arrow::RecordBatchReader {
 public:
  ProjectingReader(std::unique_ptr<parquet::arrow::FileReader> file_reader,
                   std::unique_ptr<arrow::RecordBatchReader> batches,
                   std::shared_ptr<arrow::Schema> read,
                   std::shared_ptr<arrow::Schema> output, std::vector<int> source_index,
                   std::vector<std::shared_ptr<arrow::Scalar>> constants,
                   int64_t row_count, ExpressionPtr filter, std::string location,
                   std::shared_ptr<ScanStats> stats,
                   std::shared_ptr<const FileDeletes> deletes,
                   std::vector<std::pair<int64_t, int64_t>> spans)
      : file_reader_(std::move(file_reader)),
        batches_(std::move(batches)),
        read_(std::move(read)),
        output_(std::move(output)),
        source_index_(std::move(source_index)),
        constants_(std::move(constants)),
        rows_left_(row_count),
        filter_(std::move(filter)),
        location_(std::move(location)),
        stats_(std::move(stats)),
        deletes_(std::move(deletes)),
        spans_(std::move(spans)) {}

  std::shared_ptr<arrow::Schema> schema() const override { return output_; }

  arrow::Status ReadNext(std::shared_ptr<arrow::RecordBatch>* out) override {
    // A signal stops every reader of a scan (and so a delete's or rewrite's reading) at
    // its next batch.
    ARROW_RETURN_NOT_OK(CheckCancelled("reading the table"));
    while (true) {
      std::shared_ptr<arrow::RecordBatch> read;
      ARROW_RETURN_NOT_OK(ReadProjected(&read));
      if (!read) {
        *out = nullptr;
        return arrow::Status::OK();
      }
      if (stats_) stats_->rows_read += read->num_rows();
      if (deletes_ && !deletes_->empty()) {
        ARROW_RETURN_NOT_OK(ApplyDeletes(&read));
        if (read->num_rows() == 0) continue;
      }
      if (filter_ && filter_->op != Operation::kTrue) {
        auto filtered = FilterBatch(*filter_, read);
        if (!filtered.ok())
          return WithContext(filtered.status(), "filtering data file " + location_);
        read = std::move(*filtered);
        if (read->num_rows() == 0) continue;
      }
      // The output's fields out of the read schema's, by field id at every depth.
      arrow::ArrayVector columns;
      for (const auto& field : output_->fields()) {
        int id = ArrowFieldId(*field);
        int index = -1;
        for (int c = 0; c < read_->num_fields(); ++c) {
          if (ArrowFieldId(*read_->field(c)) == id) index = c;
        }
        ARROW_ASSIGN_OR_RAISE(auto column,
                              Project(read->column(index), *field, field->name()));
        columns.push_back(std::move(column));
      }
      if (stats_) stats_->rows += read->num_rows();
      *out = arrow::RecordBatch::Make(output_, read->num_rows(), std::move(columns));
      return arrow::Status::OK();
    }
  }

 private:
  // The next batch in the read schema's shape.
  arrow::Status ReadProjected(std::shared_ptr<arrow::RecordBatch>* out) {
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
      // No column of the file is needed: produce the selected row groups' row count.
      if (rows_left_ <= 0) {
        *out = nullptr;
        return arrow::Status::OK();
      }
      rows = std::min<int64_t>(rows_left_, 65536);
      rows_left_ -= rows;
    }
    arrow::ArrayVector columns;
    for (size_t i = 0; i < source_index_.size(); ++i) {
      const auto& field = read_->field(static_cast<int>(i));
      if (source_index_[i] >= 0) {
        ARROW_ASSIGN_OR_RAISE(
            auto column, Project(batch->column(source_index_[i]), *field, field->name()));
        columns.push_back(std::move(column));
      } else if (constants_[i]) {
        ARROW_ASSIGN_OR_RAISE(auto column,
                              arrow::MakeArrayFromScalar(*constants_[i], rows));
        columns.push_back(std::move(column));
      } else {
        ARROW_ASSIGN_OR_RAISE(auto column, arrow::MakeArrayOfNull(field->type(), rows));
        columns.push_back(std::move(column));
      }
    }
    *out = arrow::RecordBatch::Make(read_, rows, std::move(columns));
    return arrow::Status::OK();
  }

  // Drops the rows of `batch` (the next rows of the selected row groups) that the delete
  // files delete: by file position, then by equality key.
  arrow::Status ApplyDeletes(std::shared_ptr<arrow::RecordBatch>* batch) {
    const int64_t rows = (*batch)->num_rows();
    std::vector<bool> keep(rows, true);
    const auto& positions = deletes_->positions;
    for (int64_t row = 0; row < rows; ++row) {
      while (span_ < spans_.size() && span_offset_ >= spans_[span_].second) {
        ++span_;
        span_offset_ = 0;
      }
      if (span_ >= spans_.size()) {
        return MakeError(
            ErrorKind::kInvalidMetadata,
            "data file " + location_ + " returned more rows than its row groups hold");
      }
      int64_t position = spans_[span_].first + span_offset_++;
      if (!positions.empty() &&
          std::binary_search(positions.begin(), positions.end(), position)) {
        keep[row] = false;
      }
    }
    for (const auto& equality : deletes_->equality) {
      auto keys = EqualityKeys(**batch, equality->field_ids);
      if (!keys.ok())
        return WithContext(keys.status(), "applying equality deletes to " + location_);
      for (int64_t row = 0; row < rows; ++row) {
        if (keep[row] && equality->keys.count((*keys)[row])) keep[row] = false;
      }
    }
    int64_t kept = std::count(keep.begin(), keep.end(), true);
    if (stats_) stats_->rows_deleted += rows - kept;
    if (kept == rows) return arrow::Status::OK();
    arrow::BooleanBuilder mask;
    ARROW_RETURN_NOT_OK(mask.Reserve(rows));
    for (int64_t row = 0; row < rows; ++row) mask.UnsafeAppend(keep[row]);
    ARROW_ASSIGN_OR_RAISE(auto mask_array, mask.Finish());
    ARROW_ASSIGN_OR_RAISE(auto filtered,
                          arrow::compute::Filter(arrow::Datum(*batch), mask_array));
    *batch = filtered.record_batch();
    return arrow::Status::OK();
  }

  std::unique_ptr<parquet::arrow::FileReader> file_reader_;
  std::unique_ptr<arrow::RecordBatchReader> batches_;
  std::shared_ptr<arrow::Schema> read_;
  std::shared_ptr<arrow::Schema> output_;
  std::vector<int> source_index_;
  std::vector<std::shared_ptr<arrow::Scalar>> constants_;
  int64_t rows_left_;
  ExpressionPtr filter_;
  std::string location_;
  std::shared_ptr<ScanStats> stats_;
  std::shared_ptr<const FileDeletes> deletes_;
  // The selected row groups as (first row position in the file, row count), in read
  // order.
  std::vector<std::pair<int64_t, int64_t>> spans_;
  size_t span_ = 0;
  int64_t span_offset_ = 0;
};

// Name mapping (files written without field ids): the file's own fields, annotated with
// the ids the mapping gives their names, at every depth. A name the mapping does not list
// gets no id, so it reads as a column the file lacks.
std::shared_ptr<arrow::Field> MapField(const std::shared_ptr<arrow::Field>& field,
                                       const std::vector<MappedField>& scope) {
  static const std::vector<MappedField> kNone;
  const MappedField* mapped = FindMappedField(scope, field->name());
  const std::vector<MappedField>& children = mapped ? mapped->fields : kNone;
  std::shared_ptr<arrow::DataType> type = field->type();
  switch (type->id()) {
    case arrow::Type::STRUCT: {
      arrow::FieldVector fields;
      for (const auto& child : type->fields())
        fields.push_back(MapField(child, children));
      type = arrow::struct_(fields);
      break;
    }
    case arrow::Type::LIST:
      type = arrow::list(MapField(type->field(0), children));
      break;
    case arrow::Type::LARGE_LIST:
      type = arrow::large_list(MapField(type->field(0), children));
      break;
    case arrow::Type::MAP: {
      const auto& map = static_cast<const arrow::MapType&>(*type);
      type = std::make_shared<arrow::MapType>(MapField(map.key_field(), children),
                                              MapField(map.item_field(), children),
                                              map.keys_sorted());
      break;
    }
    default:
      break;
  }
  auto metadata = field->metadata() ? field->metadata()->Copy()
                                    : std::make_shared<arrow::KeyValueMetadata>();
  if (int index = metadata->FindKey(kParquetFieldIdKey); index >= 0) {
    (void)metadata->Delete(index);
  }
  if (mapped && mapped->field_id) {
    metadata->Append(kParquetFieldIdKey, std::to_string(*mapped->field_id));
  }
  return field->WithType(type)->WithMetadata(metadata);
}

void Reannotate(parquet::arrow::SchemaField* node,
                const std::shared_ptr<arrow::Field>& mapped) {
  node->field = mapped;
  for (size_t i = 0;
       i < node->children.size() && static_cast<int>(i) < mapped->type()->num_fields();
       ++i) {
    Reannotate(&node->children[i], mapped->type()->field(static_cast<int>(i)));
  }
}

bool HasFieldIds(const std::vector<parquet::arrow::SchemaField>& fields) {
  for (const auto& field : fields) {
    if (ArrowFieldId(*field.field) >= 0 || HasFieldIds(field.children)) return true;
  }
  return false;
}

parquet::ReaderProperties VerifyingReaderProperties(bool verify) {
  parquet::ReaderProperties properties = parquet::default_reader_properties();
  // parquet-java (and floe) write a CRC-32 for every page; a page whose bytes changed
  // must fail the read, not decode into wrong values.
  properties.set_page_checksum_verification(verify);
  return properties;
}

// The batches of a file's selected row groups, one row group at a time. Arrow's reader
// over several row groups pre-buffers (when threaded) the column chunks of all of them
// before its first batch, so memory would grow with the file; one row group at a time
// still reads each group's chunks in coalesced requests. `file` outlives the reader.
class RowGroupsReader final : public arrow::RecordBatchReader {
 public:
  static arrow::Result<std::unique_ptr<RowGroupsReader>> Make(
      parquet::arrow::FileReader* file, std::vector<int> row_groups,
      std::vector<int> leaves) {
    std::unique_ptr<RowGroupsReader> reader(new RowGroupsReader());
    reader->file_ = file;
    reader->row_groups_ = std::move(row_groups);
    reader->leaves_ = std::move(leaves);
    ARROW_RETURN_NOT_OK(reader->OpenNext());  // the first group's reader gives the schema
    reader->schema_ = reader->current_->schema();
    return reader;
  }
  std::shared_ptr<arrow::Schema> schema() const override { return schema_; }
  arrow::Status ReadNext(std::shared_ptr<arrow::RecordBatch>* batch) override {
    while (true) {
      if (!current_) {
        if (next_ == row_groups_.size()) {
          *batch = nullptr;
          return arrow::Status::OK();
        }
        ARROW_RETURN_NOT_OK(OpenNext());
      }
      auto status = current_->ReadNext(batch);
      if (!status.ok()) return Diagnose(status);
      if (*batch) return arrow::Status::OK();
      current_.reset();
    }
  }

 private:
  RowGroupsReader() = default;

  // A page whose checksum does not match fails the read with Arrow's message, which
  // names neither the column nor the row group: read the group's columns one at a time
  // to find the one that fails, and say which.
  arrow::Status Diagnose(const arrow::Status& status) {
    if (status.message().find("CRC checksum verification failed") == std::string::npos)
      return status;
    const int row_group = row_groups_[next_ - 1];
    const auto& schema = *file_->parquet_reader()->metadata()->schema();
    for (int leaf : leaves_) {
      auto single = file_->GetRecordBatchReader({row_group}, {leaf});
      arrow::Status read = single.status();
      for (std::shared_ptr<arrow::RecordBatch> batch; read.ok();) {
        read = (*single)->ReadNext(&batch);
        if (!batch) break;
      }
      if (!read.ok()) {
        return arrow::Status::IOError(
            "column ", schema.Column(leaf)->path()->ToDotString(), " (row group ",
            row_group, ") is corrupt: a page's checksum does not match its bytes (",
            read.message(), ")");
      }
    }
    return arrow::Status::IOError("row group ", row_group,
                                  " is corrupt: a page's checksum does not match its "
                                  "bytes (",
                                  status.message(), ")");
  }
  arrow::Status OpenNext() {
    current_.reset();  // its buffered chunks go before the next group's are read
    ARROW_ASSIGN_OR_RAISE(current_,
                          file_->GetRecordBatchReader({row_groups_[next_++]}, leaves_));
    return arrow::Status::OK();
  }

  parquet::arrow::FileReader* file_ = nullptr;
  std::vector<int> row_groups_;
  std::vector<int> leaves_;
  size_t next_ = 0;
  std::unique_ptr<arrow::RecordBatchReader> current_;
  std::shared_ptr<arrow::Schema> schema_;
};

// The batches of a file without field ids, carrying the ids the name mapping gives.
class MappedBatchReader final : public arrow::RecordBatchReader {
 public:
  MappedBatchReader(std::unique_ptr<arrow::RecordBatchReader> source,
                    const NameMapping& mapping)
      : source_(std::move(source)) {
    arrow::FieldVector fields;
    for (const auto& field : source_->schema()->fields())
      fields.push_back(MapField(field, mapping));
    schema_ = arrow::schema(std::move(fields));
  }
  std::shared_ptr<arrow::Schema> schema() const override { return schema_; }
  arrow::Status ReadNext(std::shared_ptr<arrow::RecordBatch>* batch) override {
    std::shared_ptr<arrow::RecordBatch> next;
    ARROW_RETURN_NOT_OK(source_->ReadNext(&next));
    if (!next) {
      *batch = nullptr;
      return arrow::Status::OK();
    }
    arrow::ArrayVector columns;
    for (int i = 0; i < next->num_columns(); ++i) {
      columns.push_back(
          arrow::MakeArray(Retype(next->column_data(i), schema_->field(i)->type())));
    }
    *batch = arrow::RecordBatch::Make(schema_, next->num_rows(), std::move(columns));
    return arrow::Status::OK();
  }

 private:
  std::unique_ptr<arrow::RecordBatchReader> source_;
  std::shared_ptr<arrow::Schema> schema_;
};

}  // namespace

arrow::Result<std::shared_ptr<arrow::RecordBatchReader>> ReadDataFile(
    const std::shared_ptr<FileIO>& io, const DataFile& file,
    const DataFileReadOptions& options, const PartitionSpec& spec,
    std::shared_ptr<ScanStats> stats, std::shared_ptr<const FileDeletes> deletes) {
  const std::string& location = file.file_path;
  const Schema& projection = *options.read_schema;
  auto opened = io->OpenInput(location);
  if (!opened.ok())
    return WithContext(opened.status(), "reading a data file of the table");
  auto counted = std::make_shared<CountingFile>(*opened, stats);
  parquet::arrow::FileReaderBuilder builder;
  FLOE_RETURN_NOT_OK_CONTEXT(
      builder.Open(counted, VerifyingReaderProperties(options.verify_page_checksums)),
      "data file " + location);
  parquet::ArrowReaderProperties properties;
  properties.set_batch_size(65536);
  properties.set_use_threads(options.use_threads);
  properties.set_pre_buffer(options.use_threads);
  builder.properties(properties);
  std::unique_ptr<parquet::arrow::FileReader> reader;
  FLOE_RETURN_NOT_OK_CONTEXT(builder.Build(&reader), "data file " + location);
  if (stats) stats->files_read += 1;

  ARROW_ASSIGN_OR_RAISE(auto read_schema, ToArrowSchema(projection));
  ARROW_ASSIGN_OR_RAISE(auto output_schema, ToArrowSchema(*options.output_schema));
  const auto& file_fields = reader->manifest().schema_fields;
  const bool has_ids = HasFieldIds(file_fields);
  std::vector<parquet::arrow::SchemaField> mapped_fields;
  if (!has_ids && !file_fields.empty()) {
    // iceberg-java reads such files through the table's name mapping; without one their
    // columns cannot be found, and reading them as NULLs would be silently wrong.
    if (!options.name_mapping) {
      return MakeError(ErrorKind::kInvalidMetadata,
                       "data file " + location +
                           " has no field ids, and the table has no "
                           "schema.name-mapping.default to find its columns by name");
    }
    mapped_fields = file_fields;
    for (auto& field : mapped_fields)
      Reannotate(&field, MapField(field.field, *options.name_mapping));
  }
  const auto& fields = has_ids ? file_fields : mapped_fields;
  std::vector<int> leaves;
  std::vector<int> source_index(projection.fields().size(), -1);
  std::vector<std::shared_ptr<arrow::Scalar>> constants(projection.fields().size());
  std::vector<bool> found(projection.fields().size(), false);
  for (size_t i = 0; i < projection.fields().size(); ++i) {
    const NestedField& wanted = projection.fields()[i];
    for (const auto& field : fields) {
      if (ArrowFieldId(*field.field) == wanted.id) {
        SelectLeaves(field, wanted, &leaves);
        found[i] = true;
        break;
      }
    }
    if (found[i]) continue;
    // Identity-partition values live in the manifest when the file does not hold the
    // column.
    for (size_t p = 0; p < spec.fields().size() && p < file.partition.size(); ++p) {
      const auto& partition_field = spec.fields()[p];
      if (partition_field.source_id == wanted.id &&
          partition_field.transform.kind() == TransformKind::kIdentity) {
        ARROW_ASSIGN_OR_RAISE(constants[i],
                              ValueToArrowScalar(file.partition[p], *wanted.type));
      }
    }
  }
  std::sort(leaves.begin(), leaves.end());
  leaves.erase(std::unique(leaves.begin(), leaves.end()), leaves.end());

  // Row groups whose statistics show that no row matches the filter are not read.
  auto metadata = reader->parquet_reader()->metadata();
  std::vector<int> row_groups;
  std::vector<std::pair<int64_t, int64_t>> spans;  // (first row in the file, rows)
  int64_t rows_selected = 0;
  int64_t file_row = 0;
  const bool filtering = options.filter && options.filter->op != Operation::kTrue;
  std::set<int> filter_ids;
  if (filtering) filter_ids = ReferencedFieldIds(*options.filter);
  // Parquet's metadata accessors throw on a corrupt footer; that is the file's error.
  try {
    for (int g = 0; g < metadata->num_row_groups(); ++g) {
      auto row_group = metadata->RowGroup(g);
      const int64_t group_start = file_row;
      file_row += row_group->num_rows();
      if (filtering) {
        std::map<int, ColumnSummary> summaries;
        for (int id : filter_ids) {
          const NestedField* field = projection.FindField(id);
          int column = field ? LeafColumnOf(fields, id) : -1;
          if (column < 0) continue;
          auto summary =
              RowGroupSummary(*row_group->ColumnChunk(column),
                              *metadata->schema()->Column(column), *field->type);
          if (summary) summaries[id] = std::move(*summary);
        }
        SummaryLookup lookup = [&](int id) -> const ColumnSummary* {
          auto it = summaries.find(id);
          return it == summaries.end() ? nullptr : &it->second;
        };
        if (!MightMatch(*options.filter, lookup)) {
          if (stats) stats->row_groups_skipped += 1;
          continue;
        }
      }
      row_groups.push_back(g);
      spans.emplace_back(group_start, row_group->num_rows());
      rows_selected += row_group->num_rows();
    }
  } catch (const std::exception& error) {
    return MakeError(ErrorKind::kInvalidMetadata,
                     "data file " + location + " has a corrupt footer: " + error.what());
  }
  if (stats) stats->row_groups_read += static_cast<int64_t>(row_groups.size());

  std::unique_ptr<arrow::RecordBatchReader> batches;
  if (!leaves.empty() && !row_groups.empty()) {
    auto result = RowGroupsReader::Make(reader.get(), row_groups, leaves);
    if (!result.ok()) return WithContext(result.status(), "data file " + location);
    batches = std::move(*result);
    if (!has_ids) {
      batches =
          std::make_unique<MappedBatchReader>(std::move(batches), *options.name_mapping);
    }
    // The reader returns columns in file order: find each projected column by its field
    // id.
    const auto& file_schema = *batches->schema();
    for (size_t i = 0; i < projection.fields().size(); ++i) {
      if (!found[i]) continue;
      for (int c = 0; c < file_schema.num_fields(); ++c) {
        if (ArrowFieldId(*file_schema.field(c)) == projection.fields()[i].id)
          source_index[i] = c;
      }
    }
  } else if (!leaves.empty()) {
    rows_selected = 0;  // every row group pruned
  }
  return std::shared_ptr<arrow::RecordBatchReader>(std::make_shared<ProjectingReader>(
      std::move(reader), std::move(batches), std::move(read_schema),
      std::move(output_schema), std::move(source_index), std::move(constants),
      rows_selected, options.filter, location, std::move(stats), std::move(deletes),
      std::move(spans)));
}

}  // namespace floe
