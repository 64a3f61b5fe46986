#include "floe/iceberg/write/data_file_writer.h"

#include "arrow/util/key_value_metadata.h"
#include "floe/iceberg/spec/table_metadata.h"
#include "floe/types/arrow_schema.h"

namespace floe::iceberg {

arrow::Result<std::shared_ptr<const DataWriterContext>> DataWriterContext::Make(
    std::shared_ptr<FileIO> io, SchemaPtr schema, ParquetSettings settings,
    std::shared_ptr<const MetricsConfig> metrics, int sort_order_id,
    arrow::MemoryPool* pool) {
  auto parquet = std::make_shared<ParquetWriteContext>();
  parquet->io = std::move(io);
  ARROW_ASSIGN_OR_RAISE(parquet->arrow_schema, ToArrowSchema(*schema));
  parquet->settings = std::move(settings);
  parquet->pool = pool;
  parquet->nanosecond_timestamps = HasNanosecondTimestamps(*parquet->arrow_schema);
  // The Parquet schema iceberg-java writes: root "table", names made Avro-compatible,
  // and the write schema recorded in the footer.
  parquet->root_name = "table";
  parquet->avro_compatible_names = true;
  parquet->footer_metadata =
      arrow::key_value_metadata({"iceberg.schema"}, {SchemaToJson(*schema)});
  auto context = std::make_shared<DataWriterContext>();
  context->schema = std::move(schema);
  context->metrics = std::move(metrics);
  context->sort_order_id = sort_order_id;
  context->parquet = std::move(parquet);
  return std::shared_ptr<const DataWriterContext>(std::move(context));
}

arrow::Result<std::unique_ptr<ParquetDataWriter>> ParquetDataWriter::Open(
    std::shared_ptr<const DataWriterContext> context, std::string location) {
  std::unique_ptr<ParquetDataWriter> writer(new ParquetDataWriter());
  ARROW_ASSIGN_OR_RAISE(writer->file_,
                        ParquetFileWriter::Open(context->parquet, std::move(location)));
  writer->context_ = std::move(context);
  return writer;
}

arrow::Result<DataFile> ToDataFile(const DataWriterContext& context,
                                   const WrittenParquetFile& written) {
  DataFile file;
  file.content = FileContent::kData;
  file.file_path = written.location;
  file.file_format = FileFormat::kParquet;
  file.record_count = written.rows;
  file.file_size_in_bytes = written.size;
  file.sort_order_id = context.sort_order_id;
  ARROW_RETURN_NOT_OK(ComputeMetrics(*written.footer, *context.schema, *context.metrics,
                                     written.float_stats, &file));
  return file;
}

arrow::Result<DataFile> ParquetDataWriter::Close() {
  ARROW_ASSIGN_OR_RAISE(auto written, file_->Close());
  return ToDataFile(*context_, written);
}

}  // namespace floe::iceberg
