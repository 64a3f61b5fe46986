#include "floe/scan/delete_files.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <set>

#include "arrow/array.h"
#include "arrow/io/interfaces.h"
#include "floe/scan/data_file_reader.h"
#include "floe/spec/arrow_schema.h"
#include "floe/spec/arrow_value.h"
#include "floe/util/error.h"

namespace floe {
namespace {

// Reserved field ids of position-delete files (the Iceberg spec).
constexpr int kDeleteFilePathId = 2147483546;
constexpr int kDeletePosId = 2147483545;

bool SamePartition(const DeleteFileEntry& deletes, const DataFile& file,
                   const PartitionSpec& spec) {
  return deletes.file.spec_id == spec.spec_id() &&
         deletes.file.partition == file.partition;
}

// Little-endian and big-endian reads from a blob, bounds checked by the caller.
uint32_t Le32(const unsigned char* p) {
  return uint32_t{p[0]} | (uint32_t{p[1]} << 8) | (uint32_t{p[2]} << 16) |
         (uint32_t{p[3]} << 24);
}
uint16_t Le16(const unsigned char* p) {
  return static_cast<uint16_t>(p[0] | (p[1] << 8));
}
uint64_t Le64(const unsigned char* p) {
  return uint64_t{Le32(p)} | (uint64_t{Le32(p + 4)} << 32);
}
uint32_t Be32(const unsigned char* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) |
         uint32_t{p[3]};
}

// A 32-bit Roaring bitmap in the portable serialization (RoaringFormatSpec), its values
// ORed with `high` << 32 into `out`. Returns the bytes consumed.
arrow::Result<size_t> DecodeRoaring32(const unsigned char* data, size_t size,
                                      uint64_t high, int64_t max_positions,
                                      std::vector<int64_t>* out,
                                      const std::string& where) {
  auto bad = [&](const std::string& what) {
    return MakeError(ErrorKind::kInvalidMetadata,
                     "deletion vector in " + where + ": " + what);
  };
  constexpr uint32_t kCookieNoRun = 12346;
  constexpr uint32_t kCookieRun = 12347;
  size_t at = 0;
  if (size < 4) return bad("truncated bitmap header");
  uint32_t cookie = Le32(data);
  uint32_t containers = 0;
  std::vector<bool> is_run;
  if ((cookie & 0xFFFF) == kCookieRun) {
    containers = (cookie >> 16) + 1;
    at = 4;
    size_t run_bytes = (containers + 7) / 8;
    if (size < at + run_bytes) return bad("truncated run flags");
    for (uint32_t i = 0; i < containers; ++i)
      is_run.push_back((data[at + i / 8] >> (i % 8)) & 1);
    at += run_bytes;
  } else if (cookie == kCookieNoRun) {
    if (size < 8) return bad("truncated bitmap header");
    containers = Le32(data + 4);
    at = 8;
    is_run.assign(containers, false);
  } else {
    return bad("unknown Roaring cookie");
  }
  if (containers > 65536) return bad("too many containers");
  if (size < at + size_t{containers} * 4) return bad("truncated container headers");
  std::vector<uint16_t> keys(containers);
  std::vector<uint32_t> cardinalities(containers);
  for (uint32_t i = 0; i < containers; ++i) {
    keys[i] = Le16(data + at + 4 * i);
    cardinalities[i] = uint32_t{Le16(data + at + 4 * i + 2)} + 1;
  }
  at += size_t{containers} * 4;
  // Offsets follow when there is no run container or at least 4 containers.
  if (cookie == kCookieNoRun || containers >= 4) {
    if (size < at + size_t{containers} * 4) return bad("truncated offsets");
    at += size_t{containers} * 4;
  }
  for (uint32_t i = 0; i < containers; ++i) {
    // Checked before each container adds at most 65536 more, so a small hostile blob
    // cannot claim billions of positions.
    if (static_cast<int64_t>(out->size()) > max_positions) {
      return bad("more positions than the delete file's record count");
    }
    if (i > 0 && keys[i] <= keys[i - 1]) return bad("container keys out of order");
    uint64_t base = (high << 32) | (uint64_t{keys[i]} << 16);
    if (is_run[i]) {
      if (size < at + 2) return bad("truncated run container");
      uint16_t runs = Le16(data + at);
      at += 2;
      if (size < at + size_t{runs} * 4) return bad("truncated run container");
      for (uint16_t r = 0; r < runs; ++r) {
        uint32_t start = Le16(data + at + 4 * r);
        uint32_t length = Le16(data + at + 4 * r + 2);
        if (start + length > 0xFFFF) return bad("run past the container");
        if (static_cast<int64_t>(out->size()) > max_positions) {
          return bad("more positions than the delete file's record count");
        }
        for (uint32_t v = start; v <= start + length; ++v)
          out->push_back(static_cast<int64_t>(base | v));
      }
      at += size_t{runs} * 4;
    } else if (cardinalities[i] > 4096) {
      if (size < at + 8192) return bad("truncated bitmap container");
      for (uint32_t word = 0; word < 1024; ++word) {
        uint64_t bits = Le64(data + at + 8 * word);
        while (bits) {
          int bit = __builtin_ctzll(bits);
          out->push_back(static_cast<int64_t>(base | (word * 64 + bit)));
          bits &= bits - 1;
        }
      }
      at += 8192;
    } else {
      if (size < at + size_t{cardinalities[i]} * 2)
        return bad("truncated array container");
      for (uint32_t v = 0; v < cardinalities[i]; ++v)
        out->push_back(static_cast<int64_t>(base | Le16(data + at + 2 * v)));
      at += size_t{cardinalities[i]} * 2;
    }
  }
  return at;
}

}  // namespace

void DeleteIndex::Add(DeleteFileEntry entry) {
  entries_.push_back(std::make_shared<const DeleteFileEntry>(std::move(entry)));
}

std::vector<std::shared_ptr<const DeleteFileEntry>> DeleteIndex::For(
    const DataFile& file, int64_t sequence_number, const PartitionSpec& spec) const {
  std::vector<std::shared_ptr<const DeleteFileEntry>> out;
  for (const auto& entry : entries_) {
    const DataFile& deletes = entry->file;
    if (deletes.content == FileContent::kPositionDeletes) {
      if (entry->sequence_number < sequence_number) continue;
      if (deletes.referenced_data_file) {
        if (*deletes.referenced_data_file != file.file_path) continue;
      } else if (!SamePartition(*entry, file, spec)) {
        continue;
      }
    } else if (deletes.content == FileContent::kEqualityDeletes) {
      if (entry->sequence_number <= sequence_number) continue;
      bool global = entry->spec && entry->spec->IsUnpartitioned();
      if (!global && !SamePartition(*entry, file, spec)) continue;
    } else {
      continue;
    }
    out.push_back(entry);
  }
  return out;
}

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
      Schema::Make(0, {NestedField{kDeleteFilePathId, "file_path", true, types::String()},
                       NestedField{kDeletePosId, "pos", true, types::Long()}}));
  DataFileReadOptions options{schema, schema, nullptr, nullptr};
  auto positions = std::make_shared<PositionsByFile>();
  auto status = ReadDeleteFile(
      io_, entry.file, options, *entry.spec, stats_,
      [&](const arrow::RecordBatch& batch) -> arrow::Status {
        const auto& paths = static_cast<const arrow::StringArray&>(*batch.column(0));
        const auto& pos = static_cast<const arrow::Int64Array&>(*batch.column(1));
        for (int64_t row = 0; row < batch.num_rows(); ++row) {
          if (paths.IsNull(row) || pos.IsNull(row)) {
            return MakeError(ErrorKind::kInvalidMetadata,
                             "it has a null file_path or pos");
          }
          (*positions)[std::string(paths.GetView(row))].push_back(pos.Value(row));
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
  auto bad = [&](const std::string& what) {
    return MakeError(ErrorKind::kInvalidMetadata,
                     "deletion vector in " + where + ": " + what);
  };
  const auto* data = reinterpret_cast<const unsigned char*>(blob.data());
  if (blob.size() < 12) return bad("too short");
  // Length (big-endian) of magic + bitmap, the magic, the bitmap, then a CRC-32 of magic
  // and bitmap (big-endian).
  uint32_t length = Be32(data);
  if (length < 4 || size_t{length} + 8 != blob.size())
    return bad("length does not match");
  static constexpr unsigned char kMagic[] = {0xD1, 0xD3, 0x39, 0x64};
  if (std::memcmp(data + 4, kMagic, 4) != 0) return bad("wrong magic");
  uint32_t expected_crc = Be32(data + 4 + length);
  uLong crc = crc32(0L, Z_NULL, 0);
  crc = crc32(crc, data + 4, length);
  if (static_cast<uint32_t>(crc) != expected_crc) return bad("CRC-32 mismatch");
  const unsigned char* bitmap = data + 8;
  size_t size = length - 4;
  if (size < 8) return bad("truncated bitmap count");
  uint64_t buckets = Le64(bitmap);
  size_t at = 8;
  std::vector<int64_t> positions;
  int64_t previous_high = -1;
  for (uint64_t b = 0; b < buckets; ++b) {
    if (size < at + 4) return bad("truncated bucket key");
    uint32_t high = Le32(bitmap + at);
    if (static_cast<int64_t>(high) <= previous_high)
      return bad("bucket keys out of order");
    previous_high = high;
    at += 4;
    ARROW_ASSIGN_OR_RAISE(size_t used, DecodeRoaring32(bitmap + at, size - at, high,
                                                       max_positions, &positions, where));
    at += used;
  }
  if (at != size) return bad("trailing bytes after the bitmap");
  if (static_cast<int64_t>(positions.size()) > max_positions) {
    return bad("more positions than the delete file's record count");
  }
  return positions;
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

}  // namespace floe
