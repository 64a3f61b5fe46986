#include "floe/write/data_file_writer.h"

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
  // iceberg-java records the write schema in the footer.
  auto footer =
      arrow::key_value_metadata({"iceberg.schema"}, {SchemaToJson(*ctx.schema)});
  writer->leaf_columns_ = descriptor->num_columns();
  std::unique_ptr<parquet::ParquetFileWriter> file_writer;
  try {
    auto root = std::static_pointer_cast<parquet::schema::GroupNode>(
        IcebergNames(*descriptor->schema_root(), "table", /*top=*/true));
    file_writer =
        parquet::ParquetFileWriter::Open(writer->stream_, root, properties, footer);
  } catch (const parquet::ParquetException& error) {
    return arrow::Status::IOError("opening data file ", writer->location_, ": ",
                                  error.what());
  }
  FLOE_RETURN_NOT_OK_CONTEXT(parquet::arrow::FileWriter::Make(
                                 writer->pool_.get(), std::move(file_writer),
                                 ctx.arrow_schema, arrow_properties, &writer->writer_),
                             "opening data file " + writer->location_);
  FLOE_RETURN_NOT_OK_CONTEXT(writer->writer_->NewBufferedRowGroup(),
                             "data file " + writer->location_);
  writer->empty_row_group_bytes_ = writer->pool_->bytes_allocated();
  writer->floats_ = std::make_unique<FloatMetricsTracker>(*ctx.schema);
  return writer;
}

ParquetDataWriter::~ParquetDataWriter() {
  if (!closed_) Abort();
}

arrow::Status ParquetDataWriter::Write(const arrow::RecordBatch& batch) {
  if (batch.num_rows() == 0) return arrow::Status::OK();
  if (row_group_full_) {
    // Started only when rows follow, so no file ends with an empty row group.
    FLOE_RETURN_NOT_OK_CONTEXT(writer_->NewBufferedRowGroup(),
                               "writing data file " + location_);
    row_group_full_ = false;
    row_group_rows_ = 0;
    empty_row_group_bytes_ = pool_->bytes_allocated();
  }
  floats_->Update(batch);
  FLOE_RETURN_NOT_OK_CONTEXT(writer_->WriteRecordBatch(batch),
                             "writing data file " + location_);
  row_count_ += batch.num_rows();
  row_group_rows_ += batch.num_rows();
  // Cut the row group once its buffered bytes reach the target (iceberg-java checks its
  // buffered size the same way, at intervals).
  row_group_full_ = pool_->bytes_allocated() >= context_->settings.row_group_size_bytes;
  return arrow::Status::OK();
}

arrow::Status ParquetDataWriter::FlushRowGroup() {
  if (row_group_rows_ == 0 || row_group_full_) return arrow::Status::OK();
  // Arrow writes the buffered row group out and opens the next one at once; if no row
  // follows, the file ends with an empty row group (metrics skip it; see
  // docs/divergences.md).
  FLOE_RETURN_NOT_OK_CONTEXT(writer_->NewBufferedRowGroup(),
                             "writing data file " + location_);
  row_group_rows_ = 0;
  empty_row_group_bytes_ = pool_->bytes_allocated();
  return arrow::Status::OK();
}

arrow::Result<int64_t> ParquetDataWriter::GrowthBound(
    const arrow::RecordBatch& rows) const {
  ARROW_ASSIGN_OR_RAISE(int64_t referenced, arrow::util::ReferencedBufferSize(rows));
  return 4 * referenced + 32 * leaf_columns_ * rows.num_rows() +
         pool_->bytes_allocated() / 2 + (int64_t{1} << 20);
}

int64_t ParquetDataWriter::Length() const {
  auto position = stream_->Tell();
  return (position.ok() ? *position : 0) + pool_->bytes_allocated();
}

arrow::Result<DataFile> ParquetDataWriter::Close() {
  closed_ = true;
  FLOE_RETURN_NOT_OK_CONTEXT(writer_->Close(), "closing data file " + location_);
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
  // Deliberately ignored: the file is being abandoned and its owner deletes it. No stream
  // when opening it was what failed.
  if (stream_) (void)stream_->Close();
}

}  // namespace floe
