#include "floe/iceberg/avro/file.h"

#include <cstring>

#include <zlib.h>

#include "arrow/util/compression.h"
#include "floe/util/error.h"
#include "floe/util/uuid.h"

namespace floe::iceberg::avro {
namespace {

constexpr char kMagic[] = {'O', 'b', 'j', 1};
// Avro's default sync interval: a block is flushed once it holds about this many bytes.
constexpr size_t kSyncInterval = 64000;
// A block that would inflate past this is refused (bounded memory on hostile input); the
// same bound as a whole manifest read from storage (FileIO::kMaxReadAllBytes).
constexpr size_t kMaxBlockSize = size_t{256} << 20;
// Snappy cannot expand its input more than about 22 times (a 3-byte copy yields at most
// 64 bytes), so a header claiming more is a lie told to make the reader allocate.
constexpr size_t kMaxSnappyRatio = 64;

arrow::Status Corrupt(const std::string& message) {
  return MakeError(ErrorKind::kInvalidMetadata, "Avro file: " + message);
}

arrow::Result<std::string> Deflate(std::string_view input, int level) {
  z_stream stream{};
  if (deflateInit2(&stream, level < 0 ? 9 : level, Z_DEFLATED, -15, 8,
                   Z_DEFAULT_STRATEGY) != Z_OK) {
    return arrow::Status::IOError("deflateInit2 failed");
  }
  std::string output(deflateBound(&stream, input.size()), '\0');
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(input.data()));
  stream.avail_in = static_cast<uInt>(input.size());
  stream.next_out = reinterpret_cast<Bytef*>(output.data());
  stream.avail_out = static_cast<uInt>(output.size());
  int result = deflate(&stream, Z_FINISH);
  deflateEnd(&stream);
  if (result != Z_STREAM_END) return arrow::Status::IOError("deflate failed");
  output.resize(stream.total_out);
  return output;
}

arrow::Result<std::string> Inflate(std::string_view input) {
  z_stream stream{};
  if (inflateInit2(&stream, -15) != Z_OK) return Corrupt("inflateInit2 failed");
  std::string output;
  char buffer[65536];
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(input.data()));
  stream.avail_in = static_cast<uInt>(input.size());
  int result = Z_OK;
  while (result != Z_STREAM_END) {
    stream.next_out = reinterpret_cast<Bytef*>(buffer);
    stream.avail_out = sizeof(buffer);
    result = inflate(&stream, Z_NO_FLUSH);
    if (result != Z_OK && result != Z_STREAM_END) {
      inflateEnd(&stream);
      return Corrupt("corrupt deflate block");
    }
    output.append(buffer, sizeof(buffer) - stream.avail_out);
    if (output.size() > kMaxBlockSize) {
      inflateEnd(&stream);
      return Corrupt("a block inflates past 256 MiB");
    }
    if (result == Z_OK && stream.avail_in == 0 && stream.avail_out != 0) {
      inflateEnd(&stream);
      return Corrupt("truncated deflate block");
    }
  }
  inflateEnd(&stream);
  return output;
}

arrow::Result<std::unique_ptr<arrow::util::Codec>> ArrowCodec(Codec codec, int level) {
  auto type =
      codec == Codec::kSnappy ? arrow::Compression::SNAPPY : arrow::Compression::ZSTD;
  if (level < 0) return arrow::util::Codec::Create(type);
  return arrow::util::Codec::Create(type, level);
}

uint32_t ReadBigEndian32(const char* data) {
  const auto* bytes = reinterpret_cast<const uint8_t*>(data);
  return (uint32_t{bytes[0]} << 24) | (uint32_t{bytes[1]} << 16) |
         (uint32_t{bytes[2]} << 8) | uint32_t{bytes[3]};
}

arrow::Result<std::string> Compress(Codec codec, int level, std::string_view input) {
  switch (codec) {
    case Codec::kNull:
      return std::string(input);
    case Codec::kDeflate:
      return Deflate(input, level);
    case Codec::kSnappy:
    case Codec::kZstandard: {
      // Avro's zstandard level 1 default (iceberg-java) unless told otherwise.
      ARROW_ASSIGN_OR_RAISE(
          auto compressor,
          ArrowCodec(codec, codec == Codec::kZstandard && level < 0 ? 1 : level));
      int64_t bound =
          compressor->MaxCompressedLen(static_cast<int64_t>(input.size()),
                                       reinterpret_cast<const uint8_t*>(input.data()));
      std::string output(static_cast<size_t>(bound) + 4, '\0');
      ARROW_ASSIGN_OR_RAISE(
          int64_t written,
          compressor->Compress(static_cast<int64_t>(input.size()),
                               reinterpret_cast<const uint8_t*>(input.data()), bound,
                               reinterpret_cast<uint8_t*>(output.data())));
      output.resize(static_cast<size_t>(written));
      if (codec == Codec::kSnappy) {
        // Avro's snappy blocks end with the CRC-32 of the uncompressed data, big-endian.
        auto crc =
            static_cast<uint32_t>(crc32(0L, reinterpret_cast<const Bytef*>(input.data()),
                                        static_cast<uInt>(input.size())));
        for (int shift = 24; shift >= 0; shift -= 8)
          output.push_back(static_cast<char>(crc >> shift));
      }
      return output;
    }
  }
  return arrow::Status::Invalid("unknown codec");
}

arrow::Result<std::string> Decompress(Codec codec, std::string_view input) {
  switch (codec) {
    case Codec::kNull:
      return std::string(input);
    case Codec::kDeflate:
      return Inflate(input);
    case Codec::kSnappy: {
      if (input.size() < 4) return Corrupt("snappy block without checksum");
      std::string_view compressed = input.substr(0, input.size() - 4);
      ARROW_ASSIGN_OR_RAISE(auto codec_impl, ArrowCodec(Codec::kSnappy, -1));
      // Snappy's header states the uncompressed length as a varint.
      uint64_t length = 0;
      int shift = 0;
      size_t index = 0;
      while (index < compressed.size() && shift < 35) {
        auto byte = static_cast<uint8_t>(compressed[index++]);
        length |= static_cast<uint64_t>(byte & 0x7F) << shift;
        if ((byte & 0x80) == 0) break;
        shift += 7;
      }
      if (length > kMaxBlockSize || length > compressed.size() * kMaxSnappyRatio + 64) {
        return Corrupt("a snappy block of " + std::to_string(compressed.size()) +
                       " bytes claims to inflate to " + std::to_string(length));
      }
      std::string output(length, '\0');
      auto written = codec_impl->Decompress(
          static_cast<int64_t>(compressed.size()),
          reinterpret_cast<const uint8_t*>(compressed.data()),
          static_cast<int64_t>(length), reinterpret_cast<uint8_t*>(output.data()));
      if (!written.ok() || static_cast<uint64_t>(*written) != length) {
        return Corrupt("corrupt snappy block");
      }
      auto crc =
          static_cast<uint32_t>(crc32(0L, reinterpret_cast<const Bytef*>(output.data()),
                                      static_cast<uInt>(output.size())));
      if (crc != ReadBigEndian32(input.data() + input.size() - 4)) {
        return Corrupt("snappy block checksum mismatch");
      }
      return output;
    }
    case Codec::kZstandard: {
      ARROW_ASSIGN_OR_RAISE(auto codec_impl, ArrowCodec(Codec::kZstandard, -1));
      ARROW_ASSIGN_OR_RAISE(auto decompressor, codec_impl->MakeDecompressor());
      std::string output;
      std::string buffer(65536, '\0');
      const auto* next = reinterpret_cast<const uint8_t*>(input.data());
      auto left = static_cast<int64_t>(input.size());
      while (!decompressor->IsFinished()) {
        auto result =
            decompressor->Decompress(left, next, static_cast<int64_t>(buffer.size()),
                                     reinterpret_cast<uint8_t*>(buffer.data()));
        if (!result.ok()) return Corrupt("corrupt zstandard block");
        next += result->bytes_read;
        left -= result->bytes_read;
        output.append(buffer.data(), static_cast<size_t>(result->bytes_written));
        if (output.size() > kMaxBlockSize)
          return Corrupt("a block inflates past 256 MiB");
        if (result->bytes_read == 0 && result->bytes_written == 0 &&
            !result->need_more_output) {
          if (left == 0) break;
          return Corrupt("truncated zstandard block");
        }
      }
      return output;
    }
  }
  return Corrupt("unknown codec");
}

}  // namespace

std::string_view CodecName(Codec codec) {
  switch (codec) {
    case Codec::kNull:
      return "null";
    case Codec::kDeflate:
      return "deflate";
    case Codec::kSnappy:
      return "snappy";
    case Codec::kZstandard:
      return "zstandard";
  }
  return "null";
}

FileWriter::FileWriter(AvroNodePtr schema,
                       std::vector<std::pair<std::string, std::string>> metadata,
                       Codec codec, int level)
    : schema_(std::move(schema)), codec_(codec), level_(level) {
  auto uuid = Uuid::Random();
  sync_.assign(reinterpret_cast<const char*>(uuid.bytes().data()), 16);
  output_.append(kMagic, sizeof(kMagic));
  std::vector<std::pair<std::string, std::string>> header = {
      {"avro.schema", AvroSchemaToJson(*schema_)},
      {"avro.codec", std::string(CodecName(codec_))}};
  for (auto& entry : metadata) header.push_back(std::move(entry));
  EncodeLong(static_cast<int64_t>(header.size()), &output_);
  for (const auto& [key, value] : header) {
    EncodeLong(static_cast<int64_t>(key.size()), &output_);
    output_.append(key);
    EncodeLong(static_cast<int64_t>(value.size()), &output_);
    output_.append(value);
  }
  output_.push_back(0);
  output_.append(sync_);
}

arrow::Status FileWriter::Append(const Datum& datum) {
  ARROW_RETURN_NOT_OK(Encode(*schema_, datum, &block_));
  ++block_count_;
  if (block_.size() >= kSyncInterval) return FlushBlock();
  return arrow::Status::OK();
}

arrow::Status FileWriter::FlushBlock() {
  if (block_count_ == 0) return arrow::Status::OK();
  ARROW_ASSIGN_OR_RAISE(std::string compressed, Compress(codec_, level_, block_));
  EncodeLong(block_count_, &output_);
  EncodeLong(static_cast<int64_t>(compressed.size()), &output_);
  output_.append(compressed);
  output_.append(sync_);
  block_.clear();
  block_count_ = 0;
  return arrow::Status::OK();
}

arrow::Result<std::string> FileWriter::Finish() {
  ARROW_RETURN_NOT_OK(FlushBlock());
  return std::move(output_);
}

arrow::Result<FileContents> ReadFile(std::string_view bytes) {
  if (bytes.size() < sizeof(kMagic) ||
      std::memcmp(bytes.data(), kMagic, sizeof(kMagic)) != 0) {
    return Corrupt("not an Avro object container file (bad magic)");
  }
  Decoder decoder(reinterpret_cast<const uint8_t*>(bytes.data()) + sizeof(kMagic),
                  bytes.size() - sizeof(kMagic));
  FileContents contents;
  // The header metadata map.
  auto header_schema = MakeMap(MakePrimitive(AvroType::kBytes));
  ARROW_ASSIGN_OR_RAISE(Datum header, decoder.Decode(*header_schema));
  for (auto& [key, value] : std::get<MapDatum>(header.value).entries) {
    contents.metadata[key] = std::get<std::string>(value.value);
  }
  auto schema_text = contents.metadata.find("avro.schema");
  if (schema_text == contents.metadata.end()) return Corrupt("header has no avro.schema");
  ARROW_ASSIGN_OR_RAISE(contents.schema, ParseAvroSchema(schema_text->second));
  Codec codec = Codec::kNull;
  if (auto found = contents.metadata.find("avro.codec");
      found != contents.metadata.end()) {
    const std::string& name = found->second;
    if (name == "null" || name.empty()) {
      codec = Codec::kNull;
    } else if (name == "deflate") {
      codec = Codec::kDeflate;
    } else if (name == "snappy") {
      codec = Codec::kSnappy;
    } else if (name == "zstandard") {
      codec = Codec::kZstandard;
    } else {
      return Corrupt("unsupported codec '" + name + "'");
    }
  }
  size_t offset = bytes.size() - decoder.remaining();
  if (decoder.remaining() < 16) return Corrupt("truncated header (no sync marker)");
  std::string_view sync = bytes.substr(offset, 16);
  Decoder blocks(reinterpret_cast<const uint8_t*>(bytes.data()) + offset + 16,
                 bytes.size() - offset - 16);
  size_t minimum = contents.schema->MinimumEncodedSize();
  while (blocks.remaining() > 0) {
    ARROW_ASSIGN_OR_RAISE(int64_t count, blocks.ReadLong());
    ARROW_ASSIGN_OR_RAISE(int64_t size, blocks.ReadLong());
    if (count < 0 || size < 0 || static_cast<uint64_t>(size) + 16 > blocks.remaining()) {
      return Corrupt("block header claims more bytes than the file holds");
    }
    size_t block_offset = bytes.size() - blocks.remaining();
    std::string_view compressed = bytes.substr(block_offset, static_cast<size_t>(size));
    if (bytes.substr(block_offset + static_cast<size_t>(size), 16) != sync) {
      return Corrupt("sync marker mismatch after a block");
    }
    ARROW_ASSIGN_OR_RAISE(std::string block, Decompress(codec, compressed));
    if (minimum > 0 && static_cast<uint64_t>(count) > block.size() / minimum) {
      return Corrupt("a block claims " + std::to_string(count) + " values in " +
                     std::to_string(block.size()) + " bytes");
    }
    if (minimum == 0 && count > (1 << 20))
      return Corrupt("a block claims too many values");
    Decoder values(reinterpret_cast<const uint8_t*>(block.data()), block.size());
    for (int64_t i = 0; i < count; ++i) {
      ARROW_ASSIGN_OR_RAISE(Datum value, values.Decode(*contents.schema));
      contents.values.push_back(std::move(value));
    }
    // Skip the block and its sync marker.
    Decoder skip(
        reinterpret_cast<const uint8_t*>(bytes.data()) + block_offset + size + 16,
        bytes.size() - block_offset - static_cast<size_t>(size) - 16);
    blocks = skip;
  }
  return contents;
}

}  // namespace floe::iceberg::avro
