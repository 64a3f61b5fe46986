#include "floe/iceberg/scan/data_file_reader.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>

#include "arrow/array.h"
#include "arrow/array/util.h"
#include "arrow/builder.h"
#include "arrow/compute/api.h"
#include "arrow/util/key_value_metadata.h"
#include "floe/expr/evaluators.h"
#include "floe/expr/row_filter.h"
#include "floe/iceberg/scan/delete_files.h"
#include "floe/iceberg/spec/metadata_columns.h"
#include "floe/iceberg/spec/name_mapping.h"
#include "floe/parquet/file_reader.h"
#include "floe/types/arrow_schema.h"
#include "floe/types/arrow_value.h"
#include "floe/util/cancel.h"
#include "floe/util/error.h"
#include "parquet/metadata.h"

namespace floe::iceberg {
namespace {

// A row group's Parquet statistics for one column as a summary in the Iceberg type's
// terms: bounds only where the Parquet type holds the Iceberg type's values (a
// timestamp's unit must match), never NaN bounds.
ColumnSummary RowGroupSummary(const ParquetLeafStats& stats, const Type& type) {
  ColumnSummary summary;
  if (stats.null_count) {
    summary.has_null = *stats.null_count > 0;
    summary.all_null = stats.value_count == 0 && *stats.null_count > 0;
  }
  const bool floating = type.id() == TypeId::kFloat || type.id() == TypeId::kDouble;
  if (!floating) {
    summary.has_nan = false;
    summary.all_nan = false;
  }
  if (!stats.min || !stats.max) return summary;
  const auto& logical = stats.logical_type;
  const bool decimal = type.id() == TypeId::kDecimal && logical && logical->is_decimal();
  auto convert = [&](const ParquetLeafStats::Bound& bound) -> std::optional<Value> {
    switch (stats.physical_type) {
      case parquet::Type::BOOLEAN:
        if (type.id() == TypeId::kBoolean) return Value{std::get<bool>(bound)};
        return std::nullopt;
      case parquet::Type::INT32: {
        const int32_t value = std::get<int32_t>(bound);
        if (type.id() == TypeId::kInt || type.id() == TypeId::kDate) return Value{value};
        if (type.id() == TypeId::kLong) return Value{int64_t{value}};
        if (decimal) return Value{Decimal{value}};
        return std::nullopt;
      }
      case parquet::Type::INT64: {
        const int64_t value = std::get<int64_t>(bound);
        if (decimal) return Value{Decimal{value}};
        bool usable = type.id() == TypeId::kLong;
        if (IsTimestamp(type.id()) && logical && logical->is_timestamp()) {
          auto unit =
              static_cast<const parquet::TimestampLogicalType&>(*logical).time_unit();
          bool nanos =
              type.id() == TypeId::kTimestampNs || type.id() == TypeId::kTimestampTzNs;
          usable = unit == (nanos ? parquet::LogicalType::TimeUnit::NANOS
                                  : parquet::LogicalType::TimeUnit::MICROS);
        }
        if (type.id() == TypeId::kTime && logical && logical->is_time()) {
          usable = static_cast<const parquet::TimeLogicalType&>(*logical).time_unit() ==
                   parquet::LogicalType::TimeUnit::MICROS;
        }
        if (usable) return Value{value};
        return std::nullopt;
      }
      case parquet::Type::FLOAT: {
        const float value = std::get<float>(bound);
        if (type.id() == TypeId::kFloat) return Value{value};
        if (type.id() == TypeId::kDouble) return Value{double{value}};
        return std::nullopt;
      }
      case parquet::Type::DOUBLE:
        if (type.id() == TypeId::kDouble) return Value{std::get<double>(bound)};
        return std::nullopt;
      case parquet::Type::BYTE_ARRAY:
      case parquet::Type::FIXED_LEN_BYTE_ARRAY: {
        const auto& bytes = std::get<std::string>(bound);
        const auto* data = reinterpret_cast<const uint8_t*>(bytes.data());
        const bool fixed = stats.physical_type == parquet::Type::FIXED_LEN_BYTE_ARRAY;
        if (!fixed && type.id() == TypeId::kString) return Value{bytes};
        if ((!fixed && type.id() == TypeId::kBinary) ||
            (fixed && (type.id() == TypeId::kFixed || type.id() == TypeId::kUuid))) {
          return Value{Bytes(data, data + bytes.size())};
        }
        if (decimal) {
          auto unscaled = DecimalFromBytes(data, bytes.size());
          if (!unscaled.ok()) return std::nullopt;
          return Value{Decimal{*unscaled}};
        }
        return std::nullopt;
      }
      default:
        return std::nullopt;
    }
  };
  std::optional<Value> min = convert(*stats.min);
  std::optional<Value> max = convert(*stats.max);
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

// What the metadata columns of one file's rows are made of (see ReadDataFile).
struct FileMetadataValues {
  std::string path;
  int spec_id = 0;
  std::optional<int64_t> first_row_id;
  std::optional<int64_t> data_sequence_number;
  std::shared_ptr<arrow::Scalar> partition;  ///< `_partition`'s value, when read
};

// The selected row groups as (first row position in the file, row count), in read order.
using RowGroupSpans = std::vector<std::pair<int64_t, int64_t>>;

// Gives the rows read, one after another, their positions in the file.
class SpanCursor {
 public:
  /// The next row's position, or nullopt when the spans hold no more rows.
  std::optional<int64_t> Next(const RowGroupSpans& spans) {
    while (span_ < spans.size() && offset_ >= spans[span_].second) {
      ++span_;
      offset_ = 0;
    }
    if (span_ >= spans.size()) return std::nullopt;
    return spans[span_].first + offset_++;
  }

 private:
  size_t span_ = 0;
  int64_t offset_ = 0;
};

class ProjectingReader final : public arrow::RecordBatchReader {
 public:
  ProjectingReader(std::unique_ptr<ParquetFileReader> file_reader,
                   std::unique_ptr<arrow::RecordBatchReader> batches,
                   std::shared_ptr<arrow::Schema> read,
                   std::shared_ptr<arrow::Schema> output, std::vector<int> source_index,
                   std::vector<std::shared_ptr<arrow::Scalar>> constants,
                   int64_t row_count, ExpressionPtr filter, std::string location,
                   std::shared_ptr<ScanStats> stats,
                   std::shared_ptr<const FileDeletes> deletes, RowGroupSpans spans,
                   FileMetadataValues metadata_values)
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
        spans_(std::move(spans)),
        metadata_values_(std::move(metadata_values)) {
    for (int i = 0; i < read_->num_fields(); ++i) {
      const int id = ArrowFieldId(*read_->field(i));
      if (id == kPosColumnId || (id == kRowIdColumnId && metadata_values_.first_row_id))
        needs_positions_ = true;
      if (id == kIsDeletedColumnId) deleted_index_ = i;
    }
  }

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
                              ProjectColumn(read->column(index), *field,
                                            ParquetColumnMatch::kFieldId, field->name()));
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
    std::shared_ptr<arrow::Array> positions;
    if (needs_positions_) {
      ARROW_ASSIGN_OR_RAISE(positions, NextPositions(rows));
    }
    arrow::ArrayVector columns;
    for (size_t i = 0; i < source_index_.size(); ++i) {
      const auto& field = read_->field(static_cast<int>(i));
      if (FindMetadataColumn(ArrowFieldId(*field))) {
        std::shared_ptr<arrow::Array> stored;
        if (source_index_[i] >= 0) {
          ARROW_ASSIGN_OR_RAISE(
              stored, ProjectColumn(batch->column(source_index_[i]), *field,
                                    ParquetColumnMatch::kFieldId, field->name()));
        }
        ARROW_ASSIGN_OR_RAISE(auto column,
                              MetadataColumn(*field, rows, positions, std::move(stored)));
        columns.push_back(std::move(column));
      } else if (source_index_[i] >= 0) {
        ARROW_ASSIGN_OR_RAISE(auto column,
                              ProjectColumn(batch->column(source_index_[i]), *field,
                                            ParquetColumnMatch::kFieldId, field->name()));
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

  // The positions in the file of the next `rows` rows of the selected row groups.
  arrow::Result<std::shared_ptr<arrow::Array>> NextPositions(int64_t rows) {
    arrow::Int64Builder builder;
    ARROW_RETURN_NOT_OK(builder.Reserve(rows));
    for (int64_t row = 0; row < rows; ++row) {
      std::optional<int64_t> position = row_positions_.Next(spans_);
      if (!position) return MoreRowsThanGroups();
      builder.UnsafeAppend(*position);
    }
    return builder.Finish();
  }

  arrow::Status MoreRowsThanGroups() const {
    return MakeError(
        ErrorKind::kInvalidMetadata,
        "data file " + location_ + " returned more rows than its row groups hold");
  }

  // A metadata column's values for the next `rows` rows, whose positions are
  // `positions`. `stored` is the column as the file holds it, when it does (the lineage
  // columns a rewrite of rows wrote).
  arrow::Result<std::shared_ptr<arrow::Array>> MetadataColumn(
      const arrow::Field& field, int64_t rows,
      const std::shared_ptr<arrow::Array>& positions,
      std::shared_ptr<arrow::Array> stored) const {
    const int id = ArrowFieldId(field);
    const auto& type = field.type();
    if (id == kFileColumnId) {
      ARROW_ASSIGN_OR_RAISE(
          auto path,
          arrow::MakeScalar(type, arrow::Buffer::FromString(metadata_values_.path)));
      return arrow::MakeArrayFromScalar(*path, rows);
    }
    if (id == kSpecIdColumnId) {
      ARROW_ASSIGN_OR_RAISE(auto spec, arrow::MakeScalar(type, metadata_values_.spec_id));
      return arrow::MakeArrayFromScalar(*spec, rows);
    }
    if (id == kPosColumnId) return positions;
    if (id == kPartitionColumnId) {
      return arrow::MakeArrayFromScalar(*metadata_values_.partition, rows);
    }
    if (id == kIsDeletedColumnId) {
      // ApplyDeletes marks the deleted rows.
      return arrow::MakeArrayFromScalar(arrow::BooleanScalar(false), rows);
    }
    // Lineage (format v3): a value the file holds is the row's own (kept by the rewrite
    // that wrote it); a null one is inherited, _row_id as the file's first_row_id plus
    // the row's position and _last_updated_sequence_number as the file's data sequence
    // number. A file without first_row_id (added before the table had lineage) inherits
    // nothing: its rows' lineage is null. As iceberg-java reads them. (By hand, not with
    // Arrow's add and coalesce: those live in the compute library floe does not load.)
    const auto& first_row_id = metadata_values_.first_row_id;
    const auto& sequence_number = metadata_values_.data_sequence_number;
    const bool inherits =
        first_row_id && (id == kRowIdColumnId || sequence_number.has_value());
    if (!inherits) {
      if (stored) return stored;
      return arrow::MakeArrayOfNull(type, rows);
    }
    if (stored && stored->null_count() == 0) return stored;
    const auto* own =
        stored ? static_cast<const arrow::Int64Array*>(stored.get()) : nullptr;
    const auto* position = static_cast<const arrow::Int64Array*>(positions.get());
    arrow::Int64Builder values;
    ARROW_RETURN_NOT_OK(values.Reserve(rows));
    for (int64_t row = 0; row < rows; ++row) {
      if (own && own->IsValid(row)) {
        values.UnsafeAppend(own->Value(row));
      } else if (id == kRowIdColumnId) {
        values.UnsafeAppend(*first_row_id + position->Value(row));
      } else {
        values.UnsafeAppend(*sequence_number);
      }
    }
    return values.Finish();
  }

  // Drops the rows of `batch` (the next rows of the selected row groups) that the delete
  // files delete: by file position, then by equality key.
  arrow::Status ApplyDeletes(std::shared_ptr<arrow::RecordBatch>* batch) {
    const int64_t rows = (*batch)->num_rows();
    std::vector<bool> keep(rows, true);
    const auto& positions = deletes_->positions;
    for (int64_t row = 0; row < rows; ++row) {
      std::optional<int64_t> position = delete_positions_.Next(spans_);
      if (!position) return MoreRowsThanGroups();
      if (positions.empty()) continue;
      // Rows come in rising positions (row groups in file order): walk the sorted
      // deleted positions alongside, searching only if a position ever goes back.
      if (*position < last_position_) {
        next_deleted_ = static_cast<size_t>(
            std::lower_bound(positions.begin(), positions.end(), *position) -
            positions.begin());
      }
      last_position_ = *position;
      while (next_deleted_ < positions.size() && positions[next_deleted_] < *position) {
        ++next_deleted_;
      }
      if (next_deleted_ < positions.size() && positions[next_deleted_] == *position) {
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
    // A read of `_deleted` keeps the deleted rows, marked in it (iceberg-java's
    // DeleteFilter when the projection holds _deleted).
    const bool mark = deleted_index_ >= 0;
    for (int64_t row = 0; row < rows; ++row) mask.UnsafeAppend(keep[row] != mark);
    ARROW_ASSIGN_OR_RAISE(auto mask_array, mask.Finish());
    if (mark) {
      ARROW_ASSIGN_OR_RAISE(
          *batch,
          (*batch)->SetColumn(deleted_index_, read_->field(deleted_index_), mask_array));
      return arrow::Status::OK();
    }
    ARROW_ASSIGN_OR_RAISE(auto filtered,
                          arrow::compute::Filter(arrow::Datum(*batch), mask_array));
    *batch = filtered.record_batch();
    return arrow::Status::OK();
  }

  std::unique_ptr<ParquetFileReader> file_reader_;  ///< Outlives batches_.
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
  RowGroupSpans spans_;
  // ApplyDeletes and NextPositions each walk the spans, once per row read.
  SpanCursor delete_positions_;
  size_t next_deleted_ = 0;  // the first of deletes_->positions not below last_position_
  int64_t last_position_ = -1;  // the position of the row ApplyDeletes saw last
  SpanCursor row_positions_;
  FileMetadataValues metadata_values_;
  bool needs_positions_ = false;
  int deleted_index_ = -1;  // `_deleted` in the read schema, or -1
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

// Where each field of the read schema comes from: the file's leaves, an identity
// partition value from the manifest, or nulls.
struct FileLayout {
  std::vector<int> leaves;  ///< Sorted, unique.
  std::vector<bool> in_file;
  std::vector<std::shared_ptr<arrow::Scalar>> constants;
};

arrow::Result<FileLayout> LayOut(const std::vector<parquet::arrow::SchemaField>& fields,
                                 const arrow::Schema& read_arrow,
                                 const Schema& projection, const DataFile& file,
                                 const PartitionSpec& spec) {
  const size_t count = projection.fields().size();
  FileLayout layout{{},
                    std::vector<bool>(count, false),
                    std::vector<std::shared_ptr<arrow::Scalar>>(count)};
  for (size_t i = 0; i < count; ++i) {
    const NestedField& wanted = projection.fields()[i];
    for (const auto& field : fields) {
      if (ArrowFieldId(*field.field) == wanted.id) {
        SelectLeaves(field, *read_arrow.field(static_cast<int>(i)),
                     ParquetColumnMatch::kFieldId, &layout.leaves);
        layout.in_file[i] = true;
        break;
      }
    }
    if (layout.in_file[i]) continue;
    // Identity-partition values live in the manifest when the file does not hold the
    // column.
    for (size_t p = 0; p < spec.fields().size() && p < file.partition.size(); ++p) {
      const auto& partition_field = spec.fields()[p];
      if (partition_field.source_id == wanted.id &&
          partition_field.transform.kind() == TransformKind::kIdentity) {
        ARROW_ASSIGN_OR_RAISE(layout.constants[i],
                              ValueToArrowScalar(file.partition[p], *wanted.type));
      }
    }
  }
  std::sort(layout.leaves.begin(), layout.leaves.end());
  layout.leaves.erase(std::unique(layout.leaves.begin(), layout.leaves.end()),
                      layout.leaves.end());
  return layout;
}

// `_partition`'s value for `file`: its partition tuple in the struct `column` (whose
// fields stand for `partition_field_ids`), null where its spec lacks a field, and null
// as a whole when the struct has no fields (as iceberg-java's reader gives it).
arrow::Result<std::shared_ptr<arrow::Scalar>> PartitionValue(
    const NestedField& column, const std::vector<int>& partition_field_ids,
    const DataFile& file, const PartitionSpec& spec) {
  ARROW_ASSIGN_OR_RAISE(auto arrow_type, ToArrowType(*column.type));
  const auto& fields = static_cast<const StructType&>(*column.type).fields();
  if (fields.empty()) return arrow::MakeNullScalar(arrow_type);
  if (partition_field_ids.size() != fields.size()) {
    return arrow::Status::Invalid("_partition has ", fields.size(),
                                  " fields but the scan gave ",
                                  partition_field_ids.size(), " partition field ids");
  }
  const std::vector<Value> tuple = spec.Coerce(file.partition, partition_field_ids);
  arrow::ScalarVector values;
  for (size_t i = 0; i < fields.size(); ++i) {
    ARROW_ASSIGN_OR_RAISE(auto scalar, ValueToArrowScalar(tuple[i], *fields[i].type));
    values.push_back(std::move(scalar));
  }
  return std::make_shared<arrow::StructScalar>(std::move(values), arrow_type);
}

// The row groups to read: those whose statistics do not show that no row matches the
// filter.
struct RowGroupSelection {
  std::vector<int> row_groups;
  RowGroupSpans spans;
  int64_t rows = 0;
};

arrow::Result<RowGroupSelection> SelectRowGroups(
    const ParquetFileReader& reader,
    const std::vector<parquet::arrow::SchemaField>& fields, const Schema& projection,
    const ExpressionPtr& filter, ScanStats* stats,
    const std::optional<std::pair<int64_t, int64_t>>& range) {
  const auto& metadata = reader.metadata();
  RowGroupSelection selection;
  int64_t file_row = 0;
  const bool filtering = filter && filter->op != Operation::kTrue;
  std::set<int> filter_ids;
  if (filtering) filter_ids = ReferencedFieldIds(*filter);
  // Parquet's metadata accessors throw on a corrupt footer; that is the file's error.
  try {
    for (int g = 0; g < metadata.num_row_groups(); ++g) {
      auto row_group = metadata.RowGroup(g);
      const int64_t group_start = file_row;
      file_row += row_group->num_rows();
      if (range && row_group->num_columns() > 0) {
        // parquet-mr's midpoint rule.
        const int64_t midpoint =
            RowGroupStart(*row_group) + row_group->total_compressed_size() / 2;
        if (midpoint < range->first || midpoint >= range->first + range->second) continue;
      }
      if (filtering) {
        std::map<int, ColumnSummary> summaries;
        for (int id : filter_ids) {
          // A metadata column's statistics (a file may store `_row_id` and
          // `_last_updated_sequence_number`) do not bound it: its nulls read as
          // inherited values.
          if (FindMetadataColumn(id)) continue;
          const NestedField* field = projection.FindField(id);
          int column = field ? FindLeafColumn(fields, id) : -1;
          if (column < 0) continue;
          auto leaf = DecodeLeafStats(*row_group->ColumnChunk(column),
                                      *metadata.schema()->Column(column));
          if (leaf) summaries[id] = RowGroupSummary(*leaf, *field->type);
        }
        SummaryLookup lookup = [&](int id) -> const ColumnSummary* {
          auto it = summaries.find(id);
          return it == summaries.end() ? nullptr : &it->second;
        };
        if (!MightMatch(*filter, lookup)) {
          if (stats) stats->row_groups_skipped += 1;
          continue;
        }
      }
      selection.row_groups.push_back(g);
      selection.spans.emplace_back(group_start, row_group->num_rows());
      selection.rows += row_group->num_rows();
    }
  } catch (const std::exception& error) {
    return MakeError(
        ErrorKind::kInvalidMetadata,
        "data file " + reader.location() + " has a corrupt footer: " + error.what());
  }
  if (stats) stats->row_groups_read += static_cast<int64_t>(selection.row_groups.size());
  return selection;
}

}  // namespace

arrow::Result<std::shared_ptr<arrow::RecordBatchReader>> ReadDataFile(
    const std::shared_ptr<FileIO>& io, const DataFile& file,
    const DataFileReadOptions& options, const PartitionSpec& spec,
    std::shared_ptr<ScanStats> stats, std::shared_ptr<const FileDeletes> deletes,
    std::optional<int64_t> data_sequence_number,
    std::optional<std::pair<int64_t, int64_t>> range) {
  const std::string& location = file.file_path;
  const Schema& projection = *options.read_schema;
  ParquetReadOptions read_options;
  read_options.use_threads = options.use_threads;
  read_options.verify_page_checksums = options.verify_page_checksums;
  if (file.file_size_in_bytes > 0) read_options.file_size = file.file_size_in_bytes;
  if (stats) {
    // The callback keeps the counters alive as long as the file (reads a pre-buffering
    // reader started may finish after the scan let go of them).
    read_options.on_read = [counters = stats](int64_t bytes) {
      counters->bytes_read += bytes;
      counters->requests += 1;
    };
  }
  ARROW_ASSIGN_OR_RAISE(auto reader,
                        ParquetFileReader::Open(*io, location, read_options));
  if (stats) stats->files_read += 1;

  ARROW_ASSIGN_OR_RAISE(auto read_schema, ToArrowSchema(projection));
  ARROW_ASSIGN_OR_RAISE(auto output_schema, ToArrowSchema(*options.output_schema));
  const bool has_ids = reader->HasFieldIds();
  if (!has_ids && !reader->fields().empty()) {
    // iceberg-java reads such files through the table's name mapping; without one their
    // columns cannot be found, and reading them as NULLs would be silently wrong.
    if (!options.name_mapping) {
      return MakeError(ErrorKind::kInvalidMetadata,
                       "data file " + location +
                           " has no field ids, and the table has no "
                           "schema.name-mapping.default to find its columns by name");
    }
    reader->Annotate([&](const std::shared_ptr<arrow::Field>& field) {
      return MapField(field, *options.name_mapping);
    });
  }
  const auto& fields = reader->fields();
  ARROW_ASSIGN_OR_RAISE(FileLayout layout,
                        LayOut(fields, *read_schema, projection, file, spec));
  std::shared_ptr<arrow::Scalar> partition;
  if (const NestedField* column = projection.FindField(kPartitionColumnId)) {
    ARROW_ASSIGN_OR_RAISE(
        partition, PartitionValue(*column, options.partition_field_ids, file, spec));
  }
  ARROW_ASSIGN_OR_RAISE(
      RowGroupSelection selection,
      SelectRowGroups(*reader, fields, projection, options.filter, stats.get(), range));

  std::vector<int> source_index(projection.fields().size(), -1);
  std::unique_ptr<arrow::RecordBatchReader> batches;
  if (!layout.leaves.empty() && !selection.row_groups.empty()) {
    ARROW_ASSIGN_OR_RAISE(batches,
                          reader->ReadRowGroups(selection.row_groups, layout.leaves));
    if (!has_ids) {
      batches =
          std::make_unique<MappedBatchReader>(std::move(batches), *options.name_mapping);
    }
    // The reader returns columns in file order: find each projected column by its field
    // id.
    const auto& file_schema = *batches->schema();
    for (size_t i = 0; i < projection.fields().size(); ++i) {
      if (!layout.in_file[i]) continue;
      for (int c = 0; c < file_schema.num_fields(); ++c) {
        if (ArrowFieldId(*file_schema.field(c)) == projection.fields()[i].id)
          source_index[i] = c;
      }
    }
  } else if (!layout.leaves.empty()) {
    selection.rows = 0;  // every row group pruned
  }
  return std::shared_ptr<arrow::RecordBatchReader>(std::make_shared<ProjectingReader>(
      std::move(reader), std::move(batches), std::move(read_schema),
      std::move(output_schema), std::move(source_index), std::move(layout.constants),
      selection.rows, options.filter, location, std::move(stats), std::move(deletes),
      std::move(selection.spans),
      FileMetadataValues{file.file_path, file.spec_id, file.first_row_id,
                         data_sequence_number, std::move(partition)}));
}

}  // namespace floe::iceberg
