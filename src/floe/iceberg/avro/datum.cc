#include "floe/iceberg/avro/datum.h"

#include <cstring>

#include "floe/util/error.h"

namespace floe::iceberg::avro {
namespace {

constexpr int kMaxDepth = 128;
// Values whose encoding can take zero bytes (nulls, empty records) could let a few input
// bytes claim billions of items; such blocks are capped at this many items.
constexpr int64_t kMaxZeroSizeItems = 1 << 20;

arrow::Status Corrupt(const std::string& message) {
  return MakeError(ErrorKind::kInvalidMetadata, "Avro data: " + message);
}

arrow::Status Mismatch(const AvroNode& schema, const char* expected) {
  return arrow::Status::Invalid("Avro encode: value does not fit the schema (expected ",
                                expected,
                                schema.name.empty() ? "" : " for " + schema.name, ")");
}

template <typename T>
void AppendRaw(T value, std::string* out) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  out->append(bytes, sizeof(T));
}

}  // namespace

void EncodeLong(int64_t value, std::string* out) {
  uint64_t zigzag =
      (static_cast<uint64_t>(value) << 1) ^ static_cast<uint64_t>(value >> 63);
  while (zigzag >= 0x80) {
    out->push_back(static_cast<char>((zigzag & 0x7F) | 0x80));
    zigzag >>= 7;
  }
  out->push_back(static_cast<char>(zigzag));
}

arrow::Status Encode(const AvroNode& schema, const Datum& datum, std::string* out) {
  const auto& value = datum.value;
  switch (schema.type) {
    case AvroType::kNull:
      if (!datum.is_null()) return Mismatch(schema, "null");
      return arrow::Status::OK();
    case AvroType::kBoolean:
      if (!std::holds_alternative<bool>(value)) return Mismatch(schema, "boolean");
      out->push_back(std::get<bool>(value) ? 1 : 0);
      return arrow::Status::OK();
    case AvroType::kInt:
    case AvroType::kEnum:
      if (!std::holds_alternative<int32_t>(value)) return Mismatch(schema, "int");
      EncodeLong(std::get<int32_t>(value), out);
      return arrow::Status::OK();
    case AvroType::kLong:
      if (std::holds_alternative<int32_t>(value)) {
        EncodeLong(std::get<int32_t>(value), out);
        return arrow::Status::OK();
      }
      if (!std::holds_alternative<int64_t>(value)) return Mismatch(schema, "long");
      EncodeLong(std::get<int64_t>(value), out);
      return arrow::Status::OK();
    case AvroType::kFloat:
      if (!std::holds_alternative<float>(value)) return Mismatch(schema, "float");
      AppendRaw(std::get<float>(value), out);
      return arrow::Status::OK();
    case AvroType::kDouble:
      if (!std::holds_alternative<double>(value)) return Mismatch(schema, "double");
      AppendRaw(std::get<double>(value), out);
      return arrow::Status::OK();
    case AvroType::kBytes:
    case AvroType::kString: {
      if (!std::holds_alternative<std::string>(value)) return Mismatch(schema, "bytes");
      const auto& bytes = std::get<std::string>(value);
      EncodeLong(static_cast<int64_t>(bytes.size()), out);
      out->append(bytes);
      return arrow::Status::OK();
    }
    case AvroType::kFixed: {
      if (!std::holds_alternative<std::string>(value)) return Mismatch(schema, "fixed");
      const auto& bytes = std::get<std::string>(value);
      if (bytes.size() != static_cast<size_t>(schema.size))
        return Mismatch(schema, "fixed size");
      out->append(bytes);
      return arrow::Status::OK();
    }
    case AvroType::kRecord: {
      if (!std::holds_alternative<RecordDatum>(value)) return Mismatch(schema, "record");
      const auto& record = std::get<RecordDatum>(value);
      if (record.fields.size() != schema.fields.size())
        return Mismatch(schema, "field count");
      for (size_t i = 0; i < record.fields.size(); ++i) {
        auto status = Encode(*schema.fields[i].type, record.fields[i], out);
        if (!status.ok()) {
          return arrow::Status::Invalid(status.message(), " in field ",
                                        schema.fields[i].name);
        }
      }
      return arrow::Status::OK();
    }
    case AvroType::kArray: {
      if (!std::holds_alternative<ArrayDatum>(value)) return Mismatch(schema, "array");
      const auto& items = std::get<ArrayDatum>(value).items;
      if (!items.empty()) {
        EncodeLong(static_cast<int64_t>(items.size()), out);
        for (const auto& item : items)
          ARROW_RETURN_NOT_OK(Encode(*schema.items, item, out));
      }
      out->push_back(0);
      return arrow::Status::OK();
    }
    case AvroType::kMap: {
      if (!std::holds_alternative<MapDatum>(value)) return Mismatch(schema, "map");
      const auto& entries = std::get<MapDatum>(value).entries;
      if (!entries.empty()) {
        EncodeLong(static_cast<int64_t>(entries.size()), out);
        for (const auto& [key, item] : entries) {
          EncodeLong(static_cast<int64_t>(key.size()), out);
          out->append(key);
          ARROW_RETURN_NOT_OK(Encode(*schema.values, item, out));
        }
      }
      out->push_back(0);
      return arrow::Status::OK();
    }
    case AvroType::kUnion: {
      // Pick the null branch for null, else the first non-null branch the value fits.
      for (size_t i = 0; i < schema.branches.size(); ++i) {
        const auto& branch = *schema.branches[i];
        if ((branch.type == AvroType::kNull) != datum.is_null()) continue;
        std::string encoded;
        if (Encode(branch, datum, &encoded).ok()) {
          EncodeLong(static_cast<int64_t>(i), out);
          out->append(encoded);
          return arrow::Status::OK();
        }
      }
      return Mismatch(schema, "a union branch");
    }
  }
  return Mismatch(schema, "a known type");
}

arrow::Result<int64_t> Decoder::ReadLong() {
  uint64_t result = 0;
  int shift = 0;
  while (true) {
    if (position_ >= size_) return Corrupt("truncated varint");
    uint8_t byte = data_[position_++];
    if (shift == 63 && (byte & 0x7E) != 0) return Corrupt("varint overflows 64 bits");
    result |= static_cast<uint64_t>(byte & 0x7F) << shift;
    if ((byte & 0x80) == 0) break;
    shift += 7;
    if (shift > 63) return Corrupt("varint longer than 10 bytes");
  }
  return static_cast<int64_t>((result >> 1) ^ (~(result & 1) + 1));
}

arrow::Result<std::string_view> Decoder::ReadBytes(size_t length) {
  if (length > remaining()) {
    return Corrupt("a length of " + std::to_string(length) + " runs past the end (" +
                   std::to_string(remaining()) + " bytes left)");
  }
  std::string_view bytes(reinterpret_cast<const char*>(data_ + position_), length);
  position_ += length;
  return bytes;
}

arrow::Result<Datum> Decoder::Decode(const AvroNode& schema) {
  return DecodeAtDepth(schema, 0);
}

arrow::Result<Datum> Decoder::DecodeAtDepth(const AvroNode& schema, int depth) {
  if (depth > kMaxDepth) return Corrupt("values nested deeper than 128 levels");
  switch (schema.type) {
    case AvroType::kNull:
      return Datum();
    case AvroType::kBoolean: {
      ARROW_ASSIGN_OR_RAISE(auto byte, ReadBytes(1));
      return Datum(byte[0] != 0);
    }
    case AvroType::kInt: {
      ARROW_ASSIGN_OR_RAISE(int64_t value, ReadLong());
      if (value < INT32_MIN || value > INT32_MAX) return Corrupt("int out of range");
      return Datum(static_cast<int32_t>(value));
    }
    case AvroType::kEnum: {
      ARROW_ASSIGN_OR_RAISE(int64_t value, ReadLong());
      if (value < 0 || value >= static_cast<int64_t>(schema.symbols.size())) {
        return Corrupt("enum index out of range");
      }
      return Datum(static_cast<int32_t>(value));
    }
    case AvroType::kLong: {
      ARROW_ASSIGN_OR_RAISE(int64_t value, ReadLong());
      return Datum(value);
    }
    case AvroType::kFloat: {
      ARROW_ASSIGN_OR_RAISE(auto bytes, ReadBytes(4));
      float value;
      std::memcpy(&value, bytes.data(), 4);
      return Datum(value);
    }
    case AvroType::kDouble: {
      ARROW_ASSIGN_OR_RAISE(auto bytes, ReadBytes(8));
      double value;
      std::memcpy(&value, bytes.data(), 8);
      return Datum(value);
    }
    case AvroType::kBytes:
    case AvroType::kString: {
      ARROW_ASSIGN_OR_RAISE(int64_t length, ReadLong());
      if (length < 0) return Corrupt("negative length");
      ARROW_ASSIGN_OR_RAISE(auto bytes, ReadBytes(static_cast<size_t>(length)));
      return Datum(std::string(bytes));
    }
    case AvroType::kFixed: {
      ARROW_ASSIGN_OR_RAISE(auto bytes, ReadBytes(static_cast<size_t>(schema.size)));
      return Datum(std::string(bytes));
    }
    case AvroType::kRecord: {
      RecordDatum record;
      record.fields.reserve(schema.fields.size());
      for (const auto& field : schema.fields) {
        ARROW_ASSIGN_OR_RAISE(auto value, DecodeAtDepth(*field.type, depth + 1));
        record.fields.push_back(std::move(value));
      }
      return Datum(std::move(record));
    }
    case AvroType::kArray:
    case AvroType::kMap: {
      const bool is_map = schema.type == AvroType::kMap;
      const AvroNode& item_schema = is_map ? *schema.values : *schema.items;
      size_t minimum = item_schema.MinimumEncodedSize() + (is_map ? 1 : 0);
      ArrayDatum array;
      MapDatum map;
      int64_t total = 0;
      while (true) {
        ARROW_ASSIGN_OR_RAISE(int64_t count, ReadLong());
        if (count == 0) break;
        if (count < 0) {
          if (count == INT64_MIN) return Corrupt("invalid block count");
          count = -count;
          ARROW_ASSIGN_OR_RAISE(int64_t block_size, ReadLong());
          if (block_size < 0) return Corrupt("negative block size");
        }
        total += count;
        bool too_many = minimum > 0 ? static_cast<uint64_t>(count) > remaining() / minimum
                                    : total > kMaxZeroSizeItems;
        if (too_many) {
          return Corrupt("a block claims " + std::to_string(count) +
                         " items, more than the remaining bytes can hold");
        }
        for (int64_t i = 0; i < count; ++i) {
          if (is_map) {
            ARROW_ASSIGN_OR_RAISE(int64_t length, ReadLong());
            if (length < 0) return Corrupt("negative map key length");
            ARROW_ASSIGN_OR_RAISE(auto key, ReadBytes(static_cast<size_t>(length)));
            ARROW_ASSIGN_OR_RAISE(auto value, DecodeAtDepth(item_schema, depth + 1));
            map.entries.emplace_back(std::string(key), std::move(value));
          } else {
            ARROW_ASSIGN_OR_RAISE(auto value, DecodeAtDepth(item_schema, depth + 1));
            array.items.push_back(std::move(value));
          }
        }
      }
      if (is_map) return Datum(std::move(map));
      return Datum(std::move(array));
    }
    case AvroType::kUnion: {
      ARROW_ASSIGN_OR_RAISE(int64_t index, ReadLong());
      if (index < 0 || index >= static_cast<int64_t>(schema.branches.size())) {
        return Corrupt("union branch " + std::to_string(index) + " out of range");
      }
      return DecodeAtDepth(*schema.branches[static_cast<size_t>(index)], depth + 1);
    }
  }
  return Corrupt("unknown schema type");
}

}  // namespace floe::iceberg::avro
