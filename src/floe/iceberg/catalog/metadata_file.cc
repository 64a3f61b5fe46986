#include "floe/iceberg/catalog/metadata_file_internal.h"

#include <zlib.h>

#include "floe/iceberg/catalog/catalog.h"
#include "floe/iceberg/spec/location_provider.h"
#include "floe/iceberg/spec/table_properties.h"
#include "floe/util/error.h"

namespace floe::iceberg {
namespace {

// The same bound for the inflated text as for a plain metadata file (FileIO::ReadAll).
constexpr size_t kMaxMetadataSize = FileIO::kMaxReadAllBytes;

bool EndsWith(const std::string& text, std::string_view suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

arrow::Result<std::string> Gunzip(const std::string& input, const std::string& location) {
  z_stream stream{};
  if (inflateInit2(&stream, 16 + MAX_WBITS) != Z_OK)
    return arrow::Status::IOError("inflateInit2");
  std::string output;
  char buffer[65536];
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(input.data()));
  stream.avail_in = static_cast<uInt>(input.size());
  int result = Z_OK;
  while (result != Z_STREAM_END) {
    stream.next_out = reinterpret_cast<Bytef*>(buffer);
    stream.avail_out = sizeof(buffer);
    result = inflate(&stream, Z_NO_FLUSH);
    if (output.size() > kMaxMetadataSize) {
      inflateEnd(&stream);
      return MakeError(ErrorKind::kInvalidMetadata,
                       "metadata file " + location + " inflates to more than " +
                           std::to_string(kMaxMetadataSize) + " bytes");
    }
    if ((result != Z_OK && result != Z_STREAM_END) ||
        (result == Z_OK && stream.avail_in == 0 && stream.avail_out != 0)) {
      inflateEnd(&stream);
      return MakeError(ErrorKind::kInvalidMetadata,
                       "metadata file " + location + " is not valid gzip");
    }
    output.append(buffer, sizeof(buffer) - stream.avail_out);
  }
  inflateEnd(&stream);
  return output;
}

arrow::Result<std::string> Gzip(const std::string& input) {
  z_stream stream{};
  if (deflateInit2(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8,
                   Z_DEFAULT_STRATEGY) != Z_OK) {
    return arrow::Status::IOError("deflateInit2");
  }
  std::string output(deflateBound(&stream, input.size()) + 32, '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(input.data()));
  stream.avail_in = static_cast<uInt>(input.size());
  stream.next_out = reinterpret_cast<Bytef*>(output.data());
  stream.avail_out = static_cast<uInt>(output.size());
  int result = deflate(&stream, Z_FINISH);
  deflateEnd(&stream);
  if (result != Z_STREAM_END) return arrow::Status::IOError("gzip failed");
  output.resize(stream.total_out);
  return output;
}

bool IsGzipName(const std::string& location) {
  return EndsWith(location, ".gz.metadata.json") ||
         EndsWith(location, ".metadata.json.gz");
}

}  // namespace

arrow::Result<TableMetadataPtr> ReadMetadataFile(FileIO& io,
                                                 const std::string& location) {
  auto bytes = io.ReadAll(location);
  if (!bytes.ok()) {
    if (bytes.status().IsInvalid()) {  // too large to read whole
      return MakeError(ErrorKind::kInvalidMetadata,
                       "metadata file " + bytes.status().message());
    }
    return WithContext(bytes.status(), "reading metadata file");
  }
  std::string text = std::move(*bytes);
  if (IsGzipName(location)) {
    ARROW_ASSIGN_OR_RAISE(text, Gunzip(text, location));
  }
  auto metadata = TableMetadataFromJson(text);
  if (!metadata.ok()) return WithContext(metadata.status(), "metadata file " + location);
  return metadata;
}

arrow::Status WriteMetadataFile(FileIO& io, const std::string& location,
                                const TableMetadata& metadata) {
  std::string json = TableMetadataToJson(metadata);
  if (IsGzipName(location)) {
    ARROW_ASSIGN_OR_RAISE(json, Gzip(json));
  }
  return WithContext(io.WriteAll(location, json), "writing metadata file");
}

bool GzipsMetadataFiles(const PropertyMap& properties) {
  // Behind the gate, which declines a codec other than none and gzip.
  return properties::MetadataFilesGzipped(properties).ValueOr(false);
}

std::string NewMetadataFileLocation(const TableMetadata& metadata,
                                    const std::string& base_location, Env* env) {
  LocationProvider locations(metadata.location, metadata.properties);
  std::string name = NextMetadataFileName(base_location, env);
  if (GzipsMetadataFiles(metadata.properties)) {
    name.replace(name.size() - std::string_view(".metadata.json").size(),
                 std::string_view(".metadata.json").size(), ".gz.metadata.json");
  }
  return locations.NewMetadataLocation(name);
}

}  // namespace floe::iceberg
