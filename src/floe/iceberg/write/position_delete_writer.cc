#include "floe/iceberg/write/position_delete_writer.h"

#include "arrow/api.h"
#include "floe/iceberg/spec/metadata_columns.h"
#include "floe/iceberg/write/data_file_writer.h"
#include "floe/iceberg/write/parquet_settings.h"
#include "floe/util/error.h"

namespace floe::iceberg {
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
  return WritePositionDeleteFile(io, location, {DataFilePositions{data_file, positions}},
                                 table_properties);
}

arrow::Result<DataFile> WritePositionDeleteFile(
    const std::shared_ptr<FileIO>& io, const std::string& location,
    const std::vector<DataFilePositions>& files, const PropertyMap& table_properties) {
  if (files.empty()) {
    return MakeError(ErrorKind::kInvalidInput,
                     "a position delete file at " + location + " needs a data file");
  }
  int64_t rows = 0;
  int64_t path_bytes = 0;
  for (size_t i = 0; i < files.size(); ++i) {
    const DataFilePositions& file = files[i];
    if (file.positions.empty() || file.positions.front() < 0) {
      return MakeError(ErrorKind::kInvalidInput,
                       "a position delete file for " + file.data_file +
                           " needs one or more non-negative positions");
    }
    if (i > 0 && !(files[i - 1].data_file < file.data_file)) {
      return MakeError(ErrorKind::kInvalidInput,
                       "the data files of a position delete file must come sorted and "
                       "once each (" +
                           file.data_file + ")");
    }
    rows += static_cast<int64_t>(file.positions.size());
    path_bytes += static_cast<int64_t>(file.positions.size() * file.data_file.size());
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
    arrow::StringBuilder paths;
    arrow::Int64Builder positions;
    ARROW_RETURN_NOT_OK(paths.Reserve(rows));
    ARROW_RETURN_NOT_OK(paths.ReserveData(path_bytes));
    ARROW_RETURN_NOT_OK(positions.Reserve(rows));
    for (const DataFilePositions& file : files) {
      for (int64_t position : file.positions) {
        paths.UnsafeAppend(file.data_file);
        positions.UnsafeAppend(position);
      }
    }
    ARROW_ASSIGN_OR_RAISE(auto path_array, paths.Finish());
    ARROW_ASSIGN_OR_RAISE(auto pos_array, positions.Finish());
    auto batch = arrow::RecordBatch::Make(with_type->parquet->arrow_schema, rows,
                                          {path_array, pos_array});
    ARROW_RETURN_NOT_OK(writer->file().Write(*batch));
    ARROW_ASSIGN_OR_RAISE(DataFile file, writer->Close());
    file.content = FileContent::kPositionDeletes;
    file.sort_order_id.reset();
    // No counts (PositionDeleteWriter drops them); bounds only for a file of one data
    // file's deletes.
    file.value_counts.clear();
    file.null_value_counts.clear();
    file.nan_value_counts.clear();
    if (files.size() > 1) {
      file.lower_bounds.clear();
      file.upper_bounds.clear();
    }
    return file;
  };
  auto written = write();
  if (!written.ok()) {
    (void)io->Delete(location);  // best effort: the caller never reports this file
    return WithContext(written.status(), "writing position delete file " + location);
  }
  return written;
}

}  // namespace floe::iceberg
