#include "floe/iceberg/scan/delete_files.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <set>
#include <string_view>

#include "arrow/array.h"
#include "arrow/io/interfaces.h"
#include "floe/iceberg/scan/data_file_reader.h"
#include "floe/iceberg/spec/metadata_columns.h"
#include "floe/types/arrow_schema.h"
#include "floe/types/arrow_value.h"
#include "floe/util/deletion_vector_bitmap.h"
#include "floe/util/error.h"

namespace floe::iceberg {

arrow::Result<std::vector<std::string>> EqualityKeys(const arrow::RecordBatch& batch,
                                                     const std::vector<int>& field_ids) {
  std::vector<const arrow::Array*> columns;
  for (int id : field_ids) {
    const arrow::Array* found = nullptr;
    for (int c = 0; c < batch.num_columns(); ++c) {
      if (ArrowFieldId(*batch.schema()->field(c)) == id) found = batch.column(c).get();
    }
    if (!found) {
      return MakeError(ErrorKind::kInvalidInput, "equality field " + std::to_string(id) +
                                                     " is not in the rows read");
    }
    if (found->type()->id() == arrow::Type::STRUCT ||
        found->type()->id() == arrow::Type::LIST ||
        found->type()->id() == arrow::Type::MAP) {
      return MakeError(ErrorKind::kNotSupported,
                       "equality field " + std::to_string(id) + " is not a primitive");
    }
    columns.push_back(found);
  }
  std::vector<std::string> keys(batch.num_rows());
  for (int64_t row = 0; row < batch.num_rows(); ++row) {
    for (const auto* column : columns) AppendValueKey(*column, row, &keys[row]);
  }
  return keys;
}

DeleteLoader::DeleteLoader(std::shared_ptr<FileIO> io, SchemaPtr schema,
                           std::shared_ptr<const NameMapping> name_mapping,
                           std::shared_ptr<ScanStats> stats)
    : io_(std::move(io)),
      schema_(std::move(schema)),
      name_mapping_(std::move(name_mapping)),
      stats_(std::move(stats)) {}

namespace {

// Reads a delete file through the data-file reader, counting only its bytes and requests
// into `stats` (its rows and row groups are not the scan's).
arrow::Status ReadDeleteFile(
    const std::shared_ptr<FileIO>& io, const DataFile& file,
    const DataFileReadOptions& options, const PartitionSpec& spec,
    const std::shared_ptr<ScanStats>& stats,
    const std::function<arrow::Status(const arrow::RecordBatch&)>& use) {
  auto local = std::make_shared<ScanStats>();
  auto reader = ReadDataFile(io, file, options, spec, local);
  arrow::Status status = reader.status();
  while (status.ok()) {
    std::shared_ptr<arrow::RecordBatch> batch;
    status = (*reader)->ReadNext(&batch);
    if (!status.ok() || !batch) break;
    status = use(*batch);
  }
  if (stats) {
    stats->bytes_read += local->bytes_read.load();
    stats->requests += local->requests.load();
  }
  return status;
}

}  // namespace

arrow::Result<std::shared_ptr<const FileDeletes>> DeleteLoader::LoadShared(
    const std::vector<std::shared_ptr<const DeleteFileEntry>>& deletes,
    const std::string& data_path) {
  if (deletes.empty()) return nullptr;
  ARROW_ASSIGN_OR_RAISE(auto loaded, Load(deletes, data_path));
  return std::make_shared<const FileDeletes>(std::move(loaded));
}

arrow::Result<FileDeletes> DeleteLoader::Load(
    const std::vector<std::shared_ptr<const DeleteFileEntry>>& deletes,
    const std::string& data_path) {
  FileDeletes out;
  for (const auto& entry : deletes) {
    if (entry->file.content == FileContent::kEqualityDeletes) {
      ARROW_ASSIGN_OR_RAISE(auto keys, EqualityFile(*entry));
      if (!keys->keys.empty()) out.equality.push_back(std::move(keys));
    } else if (entry->file.file_format == FileFormat::kPuffin) {
      ARROW_ASSIGN_OR_RAISE(auto positions, DeletionVector(*entry));
      out.positions.insert(out.positions.end(), positions.begin(), positions.end());
    } else {
      ARROW_ASSIGN_OR_RAISE(auto by_file, PositionFile(*entry));
      auto found = by_file->find(data_path);
      if (found != by_file->end())
        out.positions.insert(out.positions.end(), found->second.begin(),
                             found->second.end());
    }
  }
  std::sort(out.positions.begin(), out.positions.end());
  out.positions.erase(std::unique(out.positions.begin(), out.positions.end()),
                      out.positions.end());
  return out;
}

arrow::Result<std::shared_ptr<const DeleteLoader::PositionsByFile>>
DeleteLoader::Positions(const DeleteFileEntry& entry) {
  if (entry.file.content != FileContent::kPositionDeletes) {
    return MakeError(ErrorKind::kInvalidInput,
                     entry.file.file_path + " is not a position delete file");
  }
  if (entry.file.file_format != FileFormat::kPuffin) return PositionFile(entry);
  if (!entry.file.referenced_data_file) {
    return MakeError(ErrorKind::kInvalidMetadata, "the deletion vector in Puffin file " +
                                                      entry.file.file_path +
                                                      " names no referenced_data_file");
  }
  ARROW_ASSIGN_OR_RAISE(auto positions, DeletionVector(entry));
  auto by_file = std::make_shared<PositionsByFile>();
  (*by_file)[*entry.file.referenced_data_file] = std::move(positions);
  return by_file;
}

arrow::Result<std::shared_ptr<const DeleteLoader::PositionsByFile>>
DeleteLoader::PositionFile(const DeleteFileEntry& entry) {
  const std::string& location = entry.file.file_path;
  if (auto cached = position_files_.find(location); cached != position_files_.end())
    return cached->second;
  if (entry.file.file_format != FileFormat::kParquet) {
    return MakeError(ErrorKind::kNotSupported,
                     "position-delete file " + location + " is " +
                         std::string(FileFormatName(entry.file.file_format)) +
                         "; floe reads Parquet delete files and deletion vectors");
  }
  ARROW_ASSIGN_OR_RAISE(
      auto schema,
      Schema::Make(
          0, {NestedField{kDeleteFilePathColumnId, "file_path", true, types::String()},
              NestedField{kDeletePosColumnId, "pos", true, types::Long()}}));
  DataFileReadOptions options{schema, schema, nullptr, nullptr};
  auto positions = std::make_shared<PositionsByFile>();
  auto status = ReadDeleteFile(
      io_, entry.file, options, *entry.spec, stats_,
      [&](const arrow::RecordBatch& batch) -> arrow::Status {
        const auto& paths = static_cast<const arrow::StringArray&>(*batch.column(0));
        const auto& pos = static_cast<const arrow::Int64Array&>(*batch.column(1));
        // Rows come sorted by file_path: a run of one path goes to one list, found once.
        std::vector<int64_t>* current = nullptr;
        std::string_view current_path;  // the map's key of `current` (stable)
        for (int64_t row = 0; row < batch.num_rows(); ++row) {
          if (paths.IsNull(row) || pos.IsNull(row)) {
            return MakeError(ErrorKind::kInvalidMetadata,
                             "it has a null file_path or pos");
          }
          const std::string_view path = paths.GetView(row);
          if (current == nullptr || path != current_path) {
            auto slot = positions->try_emplace(std::string(path)).first;
            current = &slot->second;
            current_path = slot->first;
          }
          current->push_back(pos.Value(row));
        }
        return arrow::Status::OK();
      });
  if (!status.ok()) return WithContext(status, "position-delete file " + location);
  position_files_[location] = positions;
  return positions;
}

arrow::Result<std::vector<int64_t>> DeleteLoader::DeletionVector(
    const DeleteFileEntry& entry) {
  const DataFile& file = entry.file;
  std::string where = "Puffin file " + file.file_path;
  if (!file.content_offset || !file.content_size_in_bytes || *file.content_offset < 0 ||
      *file.content_size_in_bytes < 12 ||
      *file.content_size_in_bytes > FileIO::kMaxReadAllBytes) {
    return MakeError(
        ErrorKind::kInvalidMetadata,
        "the deletion vector in " + where + " has no valid content offset and size");
  }
  ARROW_ASSIGN_OR_RAISE(auto input, io_->OpenInput(file.file_path));
  auto buffer = input->ReadAt(*file.content_offset, *file.content_size_in_bytes);
  if (stats_) {
    stats_->bytes_read += *file.content_size_in_bytes;
    stats_->requests += 1;
  }
  if (!buffer.ok()) return WithContext(buffer.status(), where);
  if ((*buffer)->size() != *file.content_size_in_bytes) {
    return MakeError(ErrorKind::kInvalidMetadata,
                     where + " ends inside its deletion vector");
  }
  return DecodeDeletionVector(
      std::string_view(reinterpret_cast<const char*>((*buffer)->data()),
                       (*buffer)->size()),
      where, file.record_count);
}

arrow::Result<std::vector<int64_t>> DecodeDeletionVector(std::string_view blob,
                                                         const std::string& where,
                                                         int64_t max_positions) {
  return DecodeFramedDeletionVector(blob, where, max_positions);
}

arrow::Result<std::shared_ptr<const EqualityDeletes>> DeleteLoader::EqualityFile(
    const DeleteFileEntry& entry) {
  const std::string& location = entry.file.file_path;
  if (auto cached = equality_files_.find(location); cached != equality_files_.end())
    return cached->second;
  if (entry.file.file_format != FileFormat::kParquet) {
    return MakeError(ErrorKind::kNotSupported,
                     "equality-delete file " + location + " is " +
                         std::string(FileFormatName(entry.file.file_format)) +
                         "; floe reads Parquet delete files");
  }
  auto deletes = std::make_shared<EqualityDeletes>();
  deletes->field_ids = entry.file.equality_ids;
  if (deletes->field_ids.empty()) {
    return MakeError(ErrorKind::kInvalidMetadata,
                     "equality-delete file " + location + " has no equality_ids");
  }
  std::set<int> ids(deletes->field_ids.begin(), deletes->field_ids.end());
  for (int id : ids) {
    if (!schema_->FindField(id) || schema_->FindParentId(id)) {
      return MakeError(ErrorKind::kNotSupported,
                       "equality-delete file " + location + " deletes by field " +
                           std::to_string(id) +
                           ", which is not a top-level column of the schema read");
    }
  }
  SchemaPtr read = SelectFields(*schema_, ids);
  DataFileReadOptions options{read, read, nullptr, name_mapping_};
  auto status = ReadDeleteFile(io_, entry.file, options, *entry.spec, stats_,
                               [&](const arrow::RecordBatch& batch) -> arrow::Status {
                                 ARROW_ASSIGN_OR_RAISE(
                                     auto keys, EqualityKeys(batch, deletes->field_ids));
                                 for (auto& key : keys)
                                   deletes->keys.insert(std::move(key));
                                 return arrow::Status::OK();
                               });
  if (!status.ok()) return WithContext(status, "equality-delete file " + location);
  equality_files_[location] = deletes;
  return std::shared_ptr<const EqualityDeletes>(deletes);
}

}  // namespace floe::iceberg
