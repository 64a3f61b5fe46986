// Generic Avro values, decoded from or encoded to the binary encoding with a schema.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "arrow/result.h"
#include "floe/iceberg/avro/schema.h"

namespace floe::iceberg::avro {

struct Datum;

/// The fields of a record, in schema order.
struct RecordDatum {
  std::vector<Datum> fields;
};
struct ArrayDatum {
  std::vector<Datum> items;
};
struct MapDatum {
  std::vector<std::pair<std::string, Datum>> entries;
};

/// One value. Unions hold the value of their chosen branch (null as monostate); strings,
/// bytes and fixed all hold std::string bytes; enums hold their symbol index as int32.
struct Datum {
  std::variant<std::monostate, bool, int32_t, int64_t, float, double, std::string,
               RecordDatum, ArrayDatum, MapDatum>
      value;

  Datum() = default;
  template <typename T>
  Datum(T v) : value(std::move(v)) {}  // NOLINT(google-explicit-constructor)

  bool is_null() const { return std::holds_alternative<std::monostate>(value); }
};

/// Appends the binary encoding of `datum` under `schema` to `out`. A datum whose shape
/// does not fit the schema gives Invalid naming the schema node.
arrow::Status Encode(const AvroNode& schema, const Datum& datum, std::string* out);

/// Reads binary-encoded values from a byte range, checking every length against what is
/// left.
class Decoder {
 public:
  Decoder(const uint8_t* data, size_t size) : data_(data), size_(size) {}

  /// Decodes one value of `schema`. Truncated or malformed input gives InvalidMetadata.
  arrow::Result<Datum> Decode(const AvroNode& schema);
  arrow::Result<int64_t> ReadLong();
  size_t remaining() const { return size_ - position_; }

 private:
  arrow::Result<Datum> DecodeAtDepth(const AvroNode& schema, int depth);
  arrow::Result<std::string_view> ReadBytes(size_t length);

  const uint8_t* data_;
  size_t size_;
  size_t position_ = 0;
};

/// Appends a zig-zag varint long.
void EncodeLong(int64_t value, std::string* out);

}  // namespace floe::iceberg::avro
