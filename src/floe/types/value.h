// Single Iceberg values: partition tuple members, column bounds, literals.
//
// A Value is interpreted through its Iceberg type: int32 holds int and date; int64 holds
// long, time and every timestamp; Bytes holds binary, fixed and uuid (16 bytes,
// big-endian); a Decimal holds the unscaled value (the scale is the type's).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "arrow/result.h"
#include "floe/types/type.h"

namespace floe {

using Bytes = std::vector<uint8_t>;

/// An unscaled decimal value (up to 38 digits).
struct Decimal {
  __int128 unscaled = 0;
  bool operator==(const Decimal&) const = default;
};

/// monostate is null.
using Value = std::variant<std::monostate, bool, int32_t, int64_t, float, double,
                           std::string, Bytes, Decimal>;

inline bool IsNull(const Value& value) {
  return std::holds_alternative<std::monostate>(value);
}

/// True when `value` holds the alternative `type` is represented by (or is null).
bool ValueMatchesType(const Value& value, const Type& type);

/// The spec's single-value binary serialisation (Appendix D), used for bounds and
/// partition summaries: little-endian numbers, UTF-8 strings, raw bytes, big-endian uuid
/// and the shortest two's-complement big-endian unscaled decimal. Null gives an empty
/// buffer.
Bytes ToBinary(const Value& value, const Type& type);
/// The inverse; a buffer of the wrong size gives InvalidMetadata.
arrow::Result<Value> FromBinary(const uint8_t* data, size_t size, const Type& type);

/// Orders two non-null values of one type the way iceberg-java's comparators do: numbers
/// numerically, floats by Float.compare (-0.0 < 0.0, NaN greatest), strings by code point
/// (UTF-8 byte order), binary and fixed as unsigned bytes. Returns <0, 0 or >0.
int CompareValues(const Value& left, const Value& right);

/// The shortest big-endian two's-complement bytes of an unscaled decimal
/// (Java's BigInteger.toByteArray()).
Bytes DecimalToBytes(__int128 unscaled);
/// The inverse, for up to 16 bytes; more gives InvalidMetadata.
arrow::Result<__int128> DecimalFromBytes(const uint8_t* data, size_t size);
/// The decimal's text as Java's BigDecimal.toPlainString() would write it (no exponent).
std::string DecimalToPlainString(__int128 unscaled, int scale);

/// Readable text of a value for messages and the CLI (not the partition-path form).
std::string ValueToString(const Value& value, const Type& type);

}  // namespace floe
