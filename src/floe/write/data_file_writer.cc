#include "floe/write/data_file_writer.h"

#include "arrow/io/interfaces.h"
#include "arrow/record_batch.h"
#include "arrow/util/key_value_metadata.h"
#include "floe/spec/table_metadata.h"
#include "floe/util/error.h"
#include "parquet/arrow/writer.h"
#include "parquet/file_writer.h"

namespace floe {

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
  auto opened = parquet::arrow::FileWriter::Open(*ctx.arrow_schema, writer->pool_.get(),
                                                 writer->stream_, ctx.settings.ToWriterProperties(),
                                                 arrow_properties);
  if (!opened.ok()) return WithContext(opened.status(), "opening data file " + writer->location_);
  writer->writer_ = std::move(*opened);
  // iceberg-java records the write schema in the footer.
  FLOE_RETURN_NOT_OK_CONTEXT(
      writer->writer_->AddKeyValueMetadata(
          arrow::key_value_metadata({"iceberg.schema"}, {SchemaToJson(*ctx.schema)})),
      "data file " + writer->location_);
  FLOE_RETURN_NOT_OK_CONTEXT(writer->writer_->NewBufferedRowGroup(),
                             "data file " + writer->location_);
  writer->floats_ = std::make_unique<FloatMetricsTracker>(*ctx.schema);
  return writer;
}

ParquetDataWriter::~ParquetDataWriter() {
  if (!closed_) Abort();
}

arrow::Status ParquetDataWriter::Write(const arrow::RecordBatch& batch) {
  if (batch.num_rows() == 0) return arrow::Status::OK();
  floats_->Update(batch);
  FLOE_RETURN_NOT_OK_CONTEXT(writer_->WriteRecordBatch(batch), "writing data file " + location_);
  row_count_ += batch.num_rows();
  // Cut the row group once its buffered bytes reach the target (iceberg-java checks its
  // buffered size the same way, at intervals).
  if (pool_->bytes_allocated() >= context_->settings.row_group_size_bytes) {
    FLOE_RETURN_NOT_OK_CONTEXT(writer_->NewBufferedRowGroup(), "writing data file " + location_);
  }
  return arrow::Status::OK();
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
  // Deliberately ignored: the file is being abandoned and its owner deletes it.
  (void)stream_->Close();
}

}  // namespace floe
