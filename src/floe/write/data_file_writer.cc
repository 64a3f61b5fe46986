#include "floe/write/data_file_writer.h"

#include <new>

#include "arrow/array.h"
#include "arrow/compute/api_vector.h"
#include "arrow/datum.h"
#include "arrow/io/interfaces.h"
#include "arrow/record_batch.h"
#include "arrow/util/byte_size.h"
#include "arrow/util/key_value_metadata.h"
#include "floe/spec/table_metadata.h"
#include "floe/util/error.h"
#include "floe/util/java_text.h"
#include "parquet/arrow/schema.h"
#include "parquet/arrow/writer.h"
#include "parquet/exception.h"
#include "parquet/file_writer.h"
#include "parquet/schema.h"

namespace floe {
namespace {

bool HasNanosecondTimestamps(const Schema& schema) {
  for (int id : schema.AllFieldIds()) {
    TypeId type = schema.FindField(id)->type->id();
    if (type == TypeId::kTimestampNs || type == TypeId::kTimestampTzNs) return true;
  }
  return false;
}

// A copy of a Parquet schema node with iceberg-java's names: the root renamed, and column
// and struct field names made Avro-compatible (list and map structure keeps Arrow's
// standard names, which are iceberg-java's too).
parquet::schema::NodePtr IcebergNames(const parquet::schema::Node& node,
                                      const std::string& name, bool top) {
  if (node.is_primitive()) {
    const auto& primitive = static_cast<const parquet::schema::PrimitiveNode&>(node);
    return parquet::schema::PrimitiveNode::Make(
        name, node.repetition(), node.logical_type(), primitive.physical_type(),
        primitive.type_length(), node.field_id());
  }
  const auto& group = static_cast<const parquet::schema::GroupNode&>(node);
  // Children of LIST and MAP groups are structural ("list", "key_value", "element", ...).
  bool structural = node.logical_type() &&
                    (node.logical_type()->is_list() || node.logical_type()->is_map());
  parquet::schema::NodeVector children;
  for (int i = 0; i < group.field_count(); ++i) {
    const auto& child = *group.field(i);
    std::string child_name =
        structural || (!top && node.repetition() == parquet::Repetition::REPEATED)
            ? child.name()
            : MakeCompatibleName(child.name());
    children.push_back(IcebergNames(child, child_name, false));
  }
  auto logical_type = node.logical_type();
  if (logical_type && logical_type->is_none()) logical_type = nullptr;
  return parquet::schema::GroupNode::Make(name, node.repetition(), children, logical_type,
                                          node.field_id());
}

// The bytes of a binary or string array's values (nulls take none), or -1 for other
// types.
int64_t ValueBytes(const arrow::Array& array) {
  switch (array.type_id()) {
    case arrow::Type::STRING:
    case arrow::Type::BINARY:
      return static_cast<const arrow::BinaryArray&>(array).total_values_length();
    case arrow::Type::LARGE_STRING:
    case arrow::Type::LARGE_BINARY:
      return static_cast<const arrow::LargeBinaryArray&>(array).total_values_length();
    default:
      return -1;
  }
}

int64_t ValueBytes(const arrow::ChunkedArray& array) {
  int64_t total = 0;
  for (const auto& chunk : array.chunks()) {
    const int64_t bytes = ValueBytes(*chunk);
    if (bytes < 0) return -1;
    total += bytes;
  }
  return total;
}

// The columns parquet-java writes without a dictionary, as Parquet column paths:
// - fixed-length byte arrays (fixed, uuid, decimals past precision 18): its format-1.0
//   writer never gives them one;
// - columns (top-level or in structs) whose first page, encoded as dictionary indices,
//   plus the dictionary would not be smaller than the page written plain
//   (FallbackValuesWriter and DictionaryValuesWriter.isCompressionSatisfying). A first
//   page ends at write.parquet.page-row-limit rows or write.parquet.page-size-bytes of
//   values; `first` holds the file's first rows, in pieces. The indices are costed
//   bit-packed (RLE runs of repeated values can only make them smaller, so a borderline
//   column may go plain where parquet-java keeps one).
// Arrow would keep every dictionary until it outgrows its page limit.
arrow::Result<std::vector<std::string>> ColumnsWithoutDictionary(
    const std::vector<std::shared_ptr<arrow::RecordBatch>>& first,
    const parquet::SchemaDescriptor& descriptor, const ParquetSettings& settings) {
  int64_t first_rows = 0;
  for (const auto& piece : first) first_rows += piece->num_rows();
  std::vector<std::string> plain;
  for (int leaf = 0; leaf < descriptor.num_columns(); ++leaf) {
    const parquet::ColumnDescriptor* column = descriptor.Column(leaf);
    if (column->physical_type() == parquet::Type::FIXED_LEN_BYTE_ARRAY) {
      plain.push_back(column->path()->ToDotString());
      continue;
    }
    if (first_rows == 0) continue;
    // The leaf's values: top-level columns and fields of structs (not inside lists or
    // maps, whose values are not one per row), with their parents' nulls merged in.
    std::vector<int> path;
    bool repeated = false;
    for (const parquet::schema::Node* node = column->schema_node().get();
         node->parent() != nullptr; node = node->parent()) {
      const auto* parent = static_cast<const parquet::schema::GroupNode*>(node->parent());
      repeated = repeated || node->is_repeated() ||
                 (node->logical_type() &&
                  (node->logical_type()->is_list() || node->logical_type()->is_map()));
      path.insert(path.begin(), parent->FieldIndex(*node));
    }
    if (repeated || path.empty() || path[0] < 0 ||
        path[0] >= first.front()->num_columns()) {
      continue;
    }
    arrow::ArrayVector chunks;
    for (const auto& piece : first) {
      std::shared_ptr<arrow::Array> values = piece->column(path[0]);
      for (size_t depth = 1; depth < path.size() && values; ++depth) {
        if (values->type_id() != arrow::Type::STRUCT) {
          values = nullptr;
          break;
        }
        ARROW_ASSIGN_OR_RAISE(
            values, static_cast<const arrow::StructArray&>(*values).GetFlattenedField(
                        path[depth]));
      }
      if (!values) break;
      chunks.push_back(std::move(values));
    }
    if (chunks.size() != first.size()) continue;
    const arrow::ChunkedArray leaf_values(std::move(chunks));
    int64_t width;
    switch (column->physical_type()) {
      case parquet::Type::INT32:
      case parquet::Type::FLOAT:
        width = 4;
        break;
      case parquet::Type::INT64:
      case parquet::Type::DOUBLE:
        width = 8;
        break;
      case parquet::Type::BYTE_ARRAY:
        width = 4;  // the length prefix; the value bytes are added below
        break;
      default:
        continue;  // booleans have no dictionary
    }
    // Raw (plain) and dictionary-encoded bytes of the first `rows` rows.
    auto measure = [&](int64_t rows, int64_t* raw,
                       int64_t* encoded) -> arrow::Result<bool> {
      auto values = leaf_values.Slice(0, rows);
      const int64_t count = values->length() - values->null_count();
      if (count == 0) {
        // No value: parquet-java's dictionary stays empty, is no gain, and has no page.
        *raw = 0;
        *encoded = 0;
        return true;
      }
      ARROW_ASSIGN_OR_RAISE(auto distinct, arrow::compute::Unique(arrow::Datum(values)));
      const int64_t entries = distinct->length() - (distinct->null_count() > 0 ? 1 : 0);
      *raw = width * count;
      int64_t dictionary = width * entries;
      if (column->physical_type() == parquet::Type::BYTE_ARRAY) {
        const int64_t value_bytes = ValueBytes(*values);
        const int64_t entry_bytes = ValueBytes(*distinct);
        if (value_bytes < 0 || entry_bytes < 0) return false;
        *raw += value_bytes;
        dictionary += entry_bytes;
      }
      int bit_width = 0;
      while ((int64_t{1} << bit_width) < entries) ++bit_width;
      // Bit-packed indices as parquet-java's hybrid encoder writes them: the bit width,
      // groups of 8 values padded, one header byte per run of up to 63 groups.
      const int64_t groups = (count + 7) / 8;
      *encoded = dictionary + 1 + groups * bit_width + (groups + 62) / 63;
      return true;
    };
    int64_t rows = std::min(first_rows, settings.page_row_limit);
    int64_t raw = 0;
    int64_t encoded = 0;
    ARROW_ASSIGN_OR_RAISE(bool measured, measure(rows, &raw, &encoded));
    if (!measured) continue;
    if (raw > settings.page_size_bytes) {
      // The page fills up by size first: look at the rows that fit in it.
      rows = std::max<int64_t>(1, rows * settings.page_size_bytes / raw);
      ARROW_ASSIGN_OR_RAISE(measured, measure(rows, &raw, &encoded));
      if (!measured) continue;
    }
    if (encoded >= raw) plain.push_back(column->path()->ToDotString());  // no gain
  }
  return plain;
}

// Runs a call into Arrow's Parquet writer, turning an allocation refused by the write's
// memory limit into OutOfMemory: some of its buffers (std::vector with Arrow's pool
// allocator) report a refusal by throwing.
template <typename Call>
arrow::Status Guarded(Call&& call) {
  try {
    return call();
  } catch (const std::bad_alloc& error) {
    return arrow::Status::OutOfMemory(error.what());
  }
}

}  // namespace

arrow::Result<std::unique_ptr<ParquetDataWriter>> ParquetDataWriter::Open(
    std::shared_ptr<const DataWriterContext> context, std::string location) {
  std::unique_ptr<ParquetDataWriter> writer(new ParquetDataWriter());
  writer->context_ = std::move(context);
  writer->location_ = std::move(location);
  const auto& ctx = *writer->context_;
  ARROW_ASSIGN_OR_RAISE(writer->stream_, ctx.io->OpenOutput(writer->location_));
  // A pool of its own, so the open row group's buffered bytes can be measured.
  writer->pool_ = std::make_unique<arrow::ProxyMemoryPool>(ctx.pool);
  auto arrow_properties = parquet::ArrowWriterProperties::Builder().build();
  auto properties = ctx.settings.ToWriterProperties(HasNanosecondTimestamps(*ctx.schema),
                                                    writer->pool_.get());
  // The Parquet schema iceberg-java writes: root "table", names made Avro-compatible.
  std::shared_ptr<parquet::SchemaDescriptor> descriptor;
  FLOE_RETURN_NOT_OK_CONTEXT(
      parquet::arrow::ToParquetSchema(ctx.arrow_schema.get(), *properties,
                                      *arrow_properties, &descriptor),
      "data file " + writer->location_);
  writer->leaf_columns_ = descriptor->num_columns();
  writer->root_ = std::static_pointer_cast<parquet::schema::GroupNode>(
      IcebergNames(*descriptor->schema_root(), "table", /*top=*/true));
  writer->descriptor_ = std::make_shared<parquet::SchemaDescriptor>();
  try {
    writer->descriptor_->Init(writer->root_);
  } catch (const parquet::ParquetException& error) {
    return arrow::Status::IOError("opening data file ", writer->location_, ": ",
                                  error.what());
  }
  writer->floats_ = std::make_unique<FloatMetricsTracker>(*ctx.schema);
  return writer;
}

arrow::Status ParquetDataWriter::StartWriting(
    const std::vector<std::shared_ptr<arrow::RecordBatch>>& first) {
  const auto& ctx = *context_;
  auto chosen = ColumnsWithoutDictionary(first, *descriptor_, ctx.settings);
  if (!chosen.ok()) return WithContext(chosen.status(), "data file " + location_);
  const std::vector<std::string>& plain_columns = *chosen;
  auto properties = ctx.settings.ToWriterProperties(HasNanosecondTimestamps(*ctx.schema),
                                                    pool_.get(), plain_columns);
  auto arrow_properties = parquet::ArrowWriterProperties::Builder().build();
  // iceberg-java records the write schema in the footer.
  auto footer =
      arrow::key_value_metadata({"iceberg.schema"}, {SchemaToJson(*ctx.schema)});
  std::unique_ptr<parquet::ParquetFileWriter> file_writer;
  try {
    file_writer = parquet::ParquetFileWriter::Open(stream_, root_, properties, footer);
  } catch (const parquet::ParquetException& error) {
    return arrow::Status::IOError("opening data file ", location_, ": ", error.what());
  }
  FLOE_RETURN_NOT_OK_CONTEXT(Guarded([&] {
                               return parquet::arrow::FileWriter::Make(
                                   pool_.get(), std::move(file_writer), ctx.arrow_schema,
                                   arrow_properties, &writer_);
                             }),
                             "opening data file " + location_);
  FLOE_RETURN_NOT_OK_CONTEXT(Guarded([&] { return writer_->NewBufferedRowGroup(); }),
                             "data file " + location_);
  empty_row_group_bytes_ = pool_->bytes_allocated();
  return arrow::Status::OK();
}

ParquetDataWriter::~ParquetDataWriter() {
  if (!closed_) Abort();
}

arrow::Status ParquetDataWriter::Write(const arrow::RecordBatch& batch) {
  if (batch.num_rows() == 0) return arrow::Status::OK();
  row_count_ += batch.num_rows();
  if (writer_) return WriteRows(batch);
  // Until the file's first page of rows is in, its rows wait (copied into the file's
  // pool, so its length and buffered bytes count them), to choose the columns without a
  // dictionary from them as parquet-java does from its first page.
  ARROW_ASSIGN_OR_RAISE(
      auto copy,
      arrow::ConcatenateRecordBatches(
          {arrow::RecordBatch::Make(batch.schema(), batch.num_rows(), batch.columns())},
          pool_.get()));
  pending_.push_back(std::move(copy));
  pending_rows_ += batch.num_rows();
  if (pending_rows_ < context_->settings.page_row_limit) return arrow::Status::OK();
  return WritePending();
}

arrow::Status ParquetDataWriter::WritePending() {
  std::vector<std::shared_ptr<arrow::RecordBatch>> rows = std::move(pending_);
  pending_.clear();
  pending_rows_ = 0;
  ARROW_RETURN_NOT_OK(StartWriting(rows));
  for (const auto& piece : rows) ARROW_RETURN_NOT_OK(WriteRows(*piece));
  return arrow::Status::OK();
}

arrow::Status ParquetDataWriter::WriteRows(const arrow::RecordBatch& batch) {
  if (row_group_full_) {
    // Started only when rows follow, so no file ends with an empty row group.
    FLOE_RETURN_NOT_OK_CONTEXT(Guarded([&] { return writer_->NewBufferedRowGroup(); }),
                               "writing data file " + location_);
    row_group_full_ = false;
    row_group_rows_ = 0;
    empty_row_group_bytes_ = pool_->bytes_allocated();
  }
  floats_->Update(batch);
  FLOE_RETURN_NOT_OK_CONTEXT(Guarded([&] { return writer_->WriteRecordBatch(batch); }),
                             "writing data file " + location_);
  row_group_rows_ += batch.num_rows();
  // Cut the row group once its buffered bytes reach the target (iceberg-java checks its
  // buffered size the same way, at intervals).
  row_group_full_ = pool_->bytes_allocated() >= context_->settings.row_group_size_bytes;
  return arrow::Status::OK();
}

arrow::Status ParquetDataWriter::FlushRowGroup() {
  // Rows still waiting for their first page are written now, choosing from them.
  if (!writer_ && pending_rows_ > 0) ARROW_RETURN_NOT_OK(WritePending());
  if (!writer_ || row_group_rows_ == 0 || row_group_full_) return arrow::Status::OK();
  // Arrow writes the buffered row group out and opens the next one at once; if no row
  // follows, the file ends with an empty row group (metrics skip it; see
  // docs/divergences.md).
  FLOE_RETURN_NOT_OK_CONTEXT(Guarded([&] { return writer_->NewBufferedRowGroup(); }),
                             "writing data file " + location_);
  row_group_rows_ = 0;
  empty_row_group_bytes_ = pool_->bytes_allocated();
  return arrow::Status::OK();
}

arrow::Result<int64_t> ParquetDataWriter::GrowthBound(
    const arrow::RecordBatch& rows) const {
  ARROW_ASSIGN_OR_RAISE(int64_t referenced, arrow::util::ReferencedBufferSize(rows));
  return 4 * referenced + 32 * leaf_columns_ * rows.num_rows() + (int64_t{1} << 20);
}

int64_t ParquetDataWriter::Length() const {
  auto position = stream_->Tell();
  return (position.ok() ? *position : 0) + pool_->bytes_allocated();
}

arrow::Result<DataFile> ParquetDataWriter::Close() {
  if (!writer_) {
    // A file smaller than a page chooses from all its rows.
    ARROW_RETURN_NOT_OK(pending_rows_ > 0 ? WritePending() : StartWriting({}));
  }
  closed_ = true;
  FLOE_RETURN_NOT_OK_CONTEXT(Guarded([&] { return writer_->Close(); }),
                             "closing data file " + location_);
  ARROW_ASSIGN_OR_RAISE(int64_t size, stream_->Tell());
  FLOE_RETURN_NOT_OK_CONTEXT(stream_->Close(), "closing data file " + location_);
  DataFile file;
  file.content = FileContent::kData;
  file.file_path = location_;
  file.file_format = FileFormat::kParquet;
  file.record_count = row_count_;
  file.file_size_in_bytes = size;
  file.sort_order_id = context_->sort_order_id;
  ARROW_RETURN_NOT_OK(ComputeMetrics(*writer_->metadata(), *context_->schema,
                                     *context_->metrics, *floats_, &file));
  return file;
}

void ParquetDataWriter::Abort() {
  closed_ = true;
  pending_.clear();
  // Deliberately ignored: the file is being abandoned and its owner deletes it. No stream
  // when opening it was what failed.
  if (stream_) (void)stream_->Close();
}

}  // namespace floe
