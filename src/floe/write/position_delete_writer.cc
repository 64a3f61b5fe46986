#include "floe/write/position_delete_writer.h"

#include "arrow/api.h"
#include "floe/spec/metadata_columns.h"
#include "floe/util/error.h"
#include "floe/write/data_file_writer.h"
#include "floe/write/parquet_settings.h"

namespace floe {
namespace {

// iceberg-java's DeleteSchemaUtil.pathPosSchema, docs included (they reach the footer).
arrow::Result<SchemaPtr> PositionDeleteSchema() {
  auto field = [](int id, const char* name, TypeId type, const char* doc) {
    NestedField column;
    column.id = id;
    column.name = name;
    column.required = true;
    column.type = PrimitiveType::Make(type);
    column.doc = doc;
    return column;
  };
  return Schema::Make(0,
                      {field(kDeleteFilePathColumnId, "file_path", TypeId::kString,
                             "Path of a file in which a deleted row is stored"),
                       field(kDeletePosColumnId, "pos", TypeId::kLong,
                             "Ordinal position of a deleted row in the data file")},
                      {});
}

// The settings of iceberg-java's delete context: each write.delete.parquet.* key over its
// write.parquet.* one.
PropertyMap DeleteProperties(const PropertyMap& table_properties) {
  PropertyMap properties = table_properties;
  constexpr std::string_view kDeletePrefix = "write.delete.parquet.";
  for (const auto& [key, value] : table_properties) {
    if (key.starts_with(kDeletePrefix)) {
      properties["write.parquet." + key.substr(kDeletePrefix.size())] = value;
    }
  }
  return properties;
}

}  // namespace

arrow::Result<DataFile> WritePositionDeleteFile(const std::shared_ptr<FileIO>& io,
                                                const std::string& location,
                                                const std::string& data_file,
                                                const std::vector<int64_t>& positions,
                                                const PropertyMap& table_properties) {
  if (positions.empty() || positions.front() < 0) {
    return MakeError(ErrorKind::kInvalidInput,
                     "a position delete file for " + data_file +
                         " needs one or more non-negative positions");
  }
  ARROW_ASSIGN_OR_RAISE(auto schema, PositionDeleteSchema());
  const PropertyMap properties = DeleteProperties(table_properties);
  ARROW_ASSIGN_OR_RAISE(auto settings, ParquetSettingsFromProperties(properties));
  // Both columns full (MetricsConfig.forPositionDelete).
  auto metrics = std::make_shared<const MetricsConfig>(MetricsConfig::Make(
      *schema, {{"write.metadata.metrics.default", "full"}}, *SortOrder::Unsorted()));
  ARROW_ASSIGN_OR_RAISE(
      auto context, DataWriterContext::Make(io, schema, std::move(settings), metrics, 0,
                                            arrow::default_memory_pool()));
  // The footer says what kind of delete file this is, as iceberg-java's writer says.
  auto parquet = std::make_shared<ParquetWriteContext>(*context->parquet);
  parquet->footer_metadata = parquet->footer_metadata->Merge(
      *arrow::key_value_metadata({"delete-type"}, {"position"}));
  auto with_type = std::make_shared<DataWriterContext>(*context);
  with_type->parquet = std::move(parquet);

  auto write = [&]() -> arrow::Result<DataFile> {
    ARROW_ASSIGN_OR_RAISE(auto writer, ParquetDataWriter::Open(with_type, location));
    const int64_t rows = static_cast<int64_t>(positions.size());
    arrow::StringBuilder paths;
    ARROW_RETURN_NOT_OK(paths.Reserve(rows));
    ARROW_RETURN_NOT_OK(paths.ReserveData(rows * static_cast<int64_t>(data_file.size())));
    for (int64_t i = 0; i < rows; ++i) ARROW_RETURN_NOT_OK(paths.Append(data_file));
    ARROW_ASSIGN_OR_RAISE(auto path_array, paths.Finish());
    auto pos_array = std::make_shared<arrow::Int64Array>(
        rows, arrow::Buffer::Wrap(positions.data(), positions.size()));
    auto batch = arrow::RecordBatch::Make(with_type->parquet->arrow_schema, rows,
                                          {path_array, pos_array});
    ARROW_RETURN_NOT_OK(writer->file().Write(*batch));
    ARROW_ASSIGN_OR_RAISE(DataFile file, writer->Close());
    file.content = FileContent::kPositionDeletes;
    file.sort_order_id.reset();
    // Bounds of both columns, no counts (PositionDeleteWriter drops them).
    file.value_counts.clear();
    file.null_value_counts.clear();
    file.nan_value_counts.clear();
    return file;
  };
  auto written = write();
  if (!written.ok()) {
    (void)io->Delete(location);  // best effort: the caller never reports this file
    return WithContext(written.status(), "writing position delete file " + location);
  }
  return written;
}

}  // namespace floe
