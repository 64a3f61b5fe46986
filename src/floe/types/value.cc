#include "floe/types/value.h"

#include <bit>
#include <cmath>
#include <cstring>

#include "floe/util/date_time.h"
#include "floe/util/error.h"
#include "floe/util/java_text.h"

namespace floe {
namespace {

template <typename T>
Bytes LittleEndian(T value) {
  Bytes bytes(sizeof(T));
  std::memcpy(bytes.data(), &value, sizeof(T));  // x86-64 and aarch64 are little-endian
  return bytes;
}

template <typename T>
T FromLittleEndian(const uint8_t* data) {
  T value;
  std::memcpy(&value, data, sizeof(T));
  return value;
}

std::string Int128ToString(__int128 value) {
  if (value == 0) return "0";
  bool negative = value < 0;
  unsigned __int128 magnitude = negative
                                    ? static_cast<unsigned __int128>(-(value + 1)) + 1
                                    : static_cast<unsigned __int128>(value);
  std::string digits;
  while (magnitude > 0) {
    digits.push_back(static_cast<char>('0' + static_cast<int>(magnitude % 10)));
    magnitude /= 10;
  }
  if (negative) digits.push_back('-');
  return std::string(digits.rbegin(), digits.rend());
}

}  // namespace

bool ValueMatchesType(const Value& value, const Type& type) {
  if (IsNull(value)) return true;
  switch (type.id()) {
    case TypeId::kBoolean:
      return std::holds_alternative<bool>(value);
    case TypeId::kInt:
    case TypeId::kDate:
      return std::holds_alternative<int32_t>(value);
    case TypeId::kLong:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs:
      return std::holds_alternative<int64_t>(value);
    case TypeId::kFloat:
      return std::holds_alternative<float>(value);
    case TypeId::kDouble:
      return std::holds_alternative<double>(value);
    case TypeId::kString:
      return std::holds_alternative<std::string>(value);
    case TypeId::kUuid:
    case TypeId::kFixed:
    case TypeId::kBinary:
      return std::holds_alternative<Bytes>(value);
    case TypeId::kDecimal:
      return std::holds_alternative<Decimal>(value);
    default:
      return false;
  }
}

Bytes DecimalToBytes(__int128 unscaled) {
  Bytes bytes(16);
  for (int i = 0; i < 16; ++i) {
    bytes[15 - i] =
        static_cast<uint8_t>(static_cast<unsigned __int128>(unscaled) >> (8 * i));
  }
  // Drop leading bytes that only repeat the sign of the next byte.
  size_t start = 0;
  while (start < 15) {
    bool redundant = (bytes[start] == 0x00 && (bytes[start + 1] & 0x80) == 0) ||
                     (bytes[start] == 0xFF && (bytes[start + 1] & 0x80) != 0);
    if (!redundant) break;
    ++start;
  }
  return Bytes(bytes.begin() + static_cast<ptrdiff_t>(start), bytes.end());
}

arrow::Result<__int128> DecimalFromBytes(const uint8_t* data, size_t size) {
  if (size == 0 || size > 16) {
    return MakeError(ErrorKind::kInvalidMetadata,
                     "decimal of " + std::to_string(size) + " bytes (1 to 16 allowed)");
  }
  unsigned __int128 value = (data[0] & 0x80) ? ~static_cast<unsigned __int128>(0) : 0;
  for (size_t i = 0; i < size; ++i) value = (value << 8) | data[i];
  return static_cast<__int128>(value);
}

std::string DecimalToPlainString(__int128 unscaled, int scale) {
  std::string digits = Int128ToString(unscaled);
  bool negative = !digits.empty() && digits[0] == '-';
  if (negative) digits.erase(0, 1);
  if (scale > 0) {
    if (static_cast<int>(digits.size()) <= scale) {
      digits.insert(0, static_cast<size_t>(scale) - digits.size() + 1, '0');
    }
    digits.insert(digits.size() - static_cast<size_t>(scale), ".");
  }
  return negative ? "-" + digits : digits;
}

Bytes ToBinary(const Value& value, const Type& type) {
  if (IsNull(value)) return {};
  switch (type.id()) {
    case TypeId::kBoolean:
      return Bytes{static_cast<uint8_t>(std::get<bool>(value) ? 1 : 0)};
    case TypeId::kInt:
    case TypeId::kDate:
      return LittleEndian(std::get<int32_t>(value));
    case TypeId::kLong:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs:
      return LittleEndian(std::get<int64_t>(value));
    case TypeId::kFloat:
      return LittleEndian(std::get<float>(value));
    case TypeId::kDouble:
      return LittleEndian(std::get<double>(value));
    case TypeId::kString: {
      const auto& text = std::get<std::string>(value);
      return Bytes(text.begin(), text.end());
    }
    case TypeId::kUuid:
    case TypeId::kFixed:
    case TypeId::kBinary:
      return std::get<Bytes>(value);
    case TypeId::kDecimal:
      return DecimalToBytes(std::get<Decimal>(value).unscaled);
    default:
      return {};
  }
}

arrow::Result<Value> FromBinary(const uint8_t* data, size_t size, const Type& type) {
  auto expect = [&](size_t wanted) -> arrow::Status {
    if (size != wanted) {
      return MakeError(ErrorKind::kInvalidMetadata,
                       "a " + type.ToString() + " value of " + std::to_string(size) +
                           " bytes (expected " + std::to_string(wanted) + ")");
    }
    return arrow::Status::OK();
  };
  switch (type.id()) {
    case TypeId::kBoolean:
      ARROW_RETURN_NOT_OK(expect(1));
      return Value(data[0] != 0);
    case TypeId::kInt:
    case TypeId::kDate:
      ARROW_RETURN_NOT_OK(expect(4));
      return Value(FromLittleEndian<int32_t>(data));
    case TypeId::kLong:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs:
      // Bounds written for an int column promoted to long are 4 bytes (spec: promotion).
      if (size == 4 && type.id() == TypeId::kLong) {
        return Value(static_cast<int64_t>(FromLittleEndian<int32_t>(data)));
      }
      ARROW_RETURN_NOT_OK(expect(8));
      return Value(FromLittleEndian<int64_t>(data));
    case TypeId::kFloat:
      ARROW_RETURN_NOT_OK(expect(4));
      return Value(FromLittleEndian<float>(data));
    case TypeId::kDouble:
      if (size == 4) return Value(static_cast<double>(FromLittleEndian<float>(data)));
      ARROW_RETURN_NOT_OK(expect(8));
      return Value(FromLittleEndian<double>(data));
    case TypeId::kString:
      return Value(std::string(reinterpret_cast<const char*>(data), size));
    case TypeId::kUuid:
      ARROW_RETURN_NOT_OK(expect(16));
      return Value(Bytes(data, data + size));
    case TypeId::kFixed:
    case TypeId::kBinary:
      return Value(Bytes(data, data + size));
    case TypeId::kDecimal: {
      ARROW_ASSIGN_OR_RAISE(auto unscaled, DecimalFromBytes(data, size));
      return Value(Decimal{unscaled});
    }
    default:
      return MakeError(ErrorKind::kNotSupported,
                       "no binary form for values of type " + type.ToString());
  }
}

int CompareValues(const Value& left, const Value& right) {
  if (left.index() != right.index()) return left.index() < right.index() ? -1 : 1;
  return std::visit(
      [&](const auto& typed_left) -> int {
        using T = std::decay_t<decltype(typed_left)>;
        const auto& typed_right = std::get<T>(right);
        if constexpr (std::is_same_v<T, std::monostate>) {
          return 0;
        } else if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
          return JavaDoubleCompare(typed_left, typed_right);
        } else if constexpr (std::is_same_v<T, std::string> || std::is_same_v<T, Bytes>) {
          size_t common = std::min(typed_left.size(), typed_right.size());
          int order = common == 0
                          ? 0
                          : std::memcmp(typed_left.data(), typed_right.data(), common);
          if (order != 0) return order < 0 ? -1 : 1;
          if (typed_left.size() == typed_right.size()) return 0;
          return typed_left.size() < typed_right.size() ? -1 : 1;
        } else if constexpr (std::is_same_v<T, Decimal>) {
          if (typed_left.unscaled == typed_right.unscaled) return 0;
          return typed_left.unscaled < typed_right.unscaled ? -1 : 1;
        } else {
          if (typed_left == typed_right) return 0;
          return typed_left < typed_right ? -1 : 1;
        }
      },
      left);
}

std::string ValueToString(const Value& value, const Type& type) {
  if (IsNull(value)) return "null";
  switch (type.id()) {
    case TypeId::kBoolean:
      return std::get<bool>(value) ? "true" : "false";
    case TypeId::kInt:
      return std::to_string(std::get<int32_t>(value));
    case TypeId::kDate:
      return FormatDate(std::get<int32_t>(value));
    case TypeId::kLong:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs:
      return std::to_string(std::get<int64_t>(value));
    case TypeId::kFloat:
      return std::to_string(std::get<float>(value));
    case TypeId::kDouble:
      return std::to_string(std::get<double>(value));
    case TypeId::kString:
      return std::get<std::string>(value);
    case TypeId::kDecimal:
      return DecimalToPlainString(std::get<Decimal>(value).unscaled,
                                  static_cast<const PrimitiveType&>(type).scale());
    default: {
      static constexpr char kHex[] = "0123456789abcdef";
      std::string text = "0x";
      for (uint8_t byte : std::get<Bytes>(value)) {
        text.push_back(kHex[byte >> 4]);
        text.push_back(kHex[byte & 0x0F]);
      }
      return text;
    }
  }
}

}  // namespace floe
