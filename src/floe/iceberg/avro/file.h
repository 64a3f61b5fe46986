// Avro object container files: a header (magic, metadata, sync marker) followed by blocks
// of encoded values, each optionally compressed.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "arrow/result.h"
#include "floe/iceberg/avro/datum.h"
#include "floe/iceberg/avro/schema.h"

namespace floe::iceberg::avro {

/// Block codecs. iceberg-java writes manifests and manifest lists with deflate (level 9
/// by default); pyiceberg and other writers may use the others.
enum class Codec { kNull, kDeflate, kSnappy, kZstandard };

/// The `avro.codec` name of a codec ("null", "deflate", "snappy", "zstandard").
std::string_view CodecName(Codec codec);

/// Writes one container file into memory.
class FileWriter {
 public:
  /// `metadata` entries are written to the header after avro.schema and avro.codec, in
  /// the given order. `level` is the deflate or zstd level (-1 for the codec's default).
  FileWriter(AvroNodePtr schema,
             std::vector<std::pair<std::string, std::string>> metadata,
             Codec codec = Codec::kDeflate, int level = -1);

  /// Appends one value; a value that does not fit the schema gives Invalid.
  arrow::Status Append(const Datum& datum);
  /// Flushes the last block and returns the file's bytes. The writer is spent afterwards.
  arrow::Result<std::string> Finish();

 private:
  arrow::Status FlushBlock();

  AvroNodePtr schema_;
  Codec codec_;
  int level_;
  std::string sync_;
  std::string output_;
  std::string block_;
  int64_t block_count_ = 0;
};

/// A fully decoded container file.
struct FileContents {
  AvroNodePtr schema;  ///< The writer's schema from avro.schema.
  std::map<std::string, std::string> metadata;
  std::vector<Datum> values;
};

/// Decodes a whole container file held in memory. A bad magic, an unknown codec, a
/// corrupt block or a sync mismatch gives InvalidMetadata.
arrow::Result<FileContents> ReadFile(std::string_view bytes);

}  // namespace floe::iceberg::avro
