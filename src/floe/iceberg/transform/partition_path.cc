#include "floe/iceberg/transform/partition_path.h"

#include <cstdio>

#include "floe/util/date_time.h"
#include "floe/util/java_text.h"

namespace floe::iceberg {
namespace {

std::string Int128Digits(unsigned __int128 magnitude) {
  if (magnitude == 0) return "0";
  std::string digits;
  while (magnitude > 0) {
    digits.push_back(static_cast<char>('0' + static_cast<int>(magnitude % 10)));
    magnitude /= 10;
  }
  return std::string(digits.rbegin(), digits.rend());
}

}  // namespace

std::string JavaBigDecimalToString(__int128 unscaled, int scale) {
  bool negative = unscaled < 0;
  unsigned __int128 magnitude = negative ? static_cast<unsigned __int128>(0) -
                                               static_cast<unsigned __int128>(unscaled)
                                         : static_cast<unsigned __int128>(unscaled);
  std::string digits = Int128Digits(magnitude);
  std::string sign = negative ? "-" : "";
  if (scale == 0) return sign + digits;
  // BigDecimal.toString: plain when scale >= 0 and the adjusted exponent >= -6.
  int64_t adjusted = static_cast<int64_t>(digits.size()) - 1 - scale;
  if (scale > 0 && adjusted >= -6) {
    if (static_cast<int64_t>(digits.size()) <= scale) {
      return sign + "0." + std::string(static_cast<size_t>(scale) - digits.size(), '0') +
             digits;
    }
    return sign + digits.substr(0, digits.size() - static_cast<size_t>(scale)) + "." +
           digits.substr(digits.size() - static_cast<size_t>(scale));
  }
  std::string text = sign + digits.substr(0, 1);
  if (digits.size() > 1) text += "." + digits.substr(1);
  text += "E";
  if (adjusted >= 0) text += "+";
  return text + std::to_string(adjusted);
}

std::string PartitionHumanString(const Transform& transform, const Type& result_type,
                                 const Value& value) {
  if (IsNull(value)) return "null";
  char buffer[64];
  switch (transform.kind()) {
    case TransformKind::kYear:
      std::snprintf(buffer, sizeof(buffer), "%04lld", 1970LL + std::get<int32_t>(value));
      return buffer;
    case TransformKind::kMonth: {
      int64_t ordinal = std::get<int32_t>(value);
      std::snprintf(buffer, sizeof(buffer), "%04lld-%02lld",
                    static_cast<long long>(FloorDiv(ordinal, 12)) + 1970,
                    static_cast<long long>(FloorMod(ordinal, 12)) + 1);
      return buffer;
    }
    case TransformKind::kHour: {
      int64_t ordinal = std::get<int32_t>(value);
      CivilDate date = CivilFromDays(FloorDiv(ordinal, 24));
      std::snprintf(buffer, sizeof(buffer), "%04lld-%02d-%02d-%02lld",
                    static_cast<long long>(date.year), date.month, date.day,
                    static_cast<long long>(FloorMod(ordinal, 24)));
      return buffer;
    }
    default:
      break;
  }
  switch (result_type.id()) {
    case TypeId::kBoolean:
      return std::get<bool>(value) ? "true" : "false";
    case TypeId::kInt:
      return std::to_string(std::get<int32_t>(value));
    case TypeId::kLong:
      return std::to_string(std::get<int64_t>(value));
    case TypeId::kFloat:
      return JavaFloatToString(std::get<float>(value));
    case TypeId::kDouble:
      return JavaDoubleToString(std::get<double>(value));
    case TypeId::kDate:
      return FormatDate(std::get<int32_t>(value));
    case TypeId::kTime:
      return FormatLocalTime(std::get<int64_t>(value));
    case TypeId::kTimestamp:
      return FormatIsoDateTime(std::get<int64_t>(value), 1000000);
    case TypeId::kTimestampTz:
      return FormatIsoDateTime(std::get<int64_t>(value), 1000000) + "+00:00";
    case TypeId::kTimestampNs:
      return FormatIsoDateTime(std::get<int64_t>(value), 1000000000);
    case TypeId::kTimestampTzNs:
      return FormatIsoDateTime(std::get<int64_t>(value), 1000000000) + "+00:00";
    case TypeId::kString:
      return std::get<std::string>(value);
    case TypeId::kUuid: {
      const auto& bytes = std::get<Bytes>(value);
      static constexpr char kHex[] = "0123456789abcdef";
      std::string text;
      for (size_t i = 0; i < bytes.size(); ++i) {
        if (i == 4 || i == 6 || i == 8 || i == 10) text.push_back('-');
        text.push_back(kHex[bytes[i] >> 4]);
        text.push_back(kHex[bytes[i] & 0x0F]);
      }
      return text;
    }
    case TypeId::kFixed:
    case TypeId::kBinary: {
      const auto& bytes = std::get<Bytes>(value);
      return Base64Encode(
          std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
    }
    case TypeId::kDecimal:
      return JavaBigDecimalToString(
          std::get<Decimal>(value).unscaled,
          static_cast<const PrimitiveType&>(result_type).scale());
    default:
      return "null";
  }
}

std::string PartitionToPath(const PartitionSpec& spec, const StructType& partition_type,
                            const std::vector<Value>& partition) {
  std::string path;
  for (size_t i = 0; i < spec.fields().size(); ++i) {
    if (i > 0) path += "/";
    const auto& field = spec.fields()[i];
    path += JavaUrlEncode(field.name) + "=" +
            JavaUrlEncode(PartitionHumanString(
                field.transform, *partition_type.fields()[i].type, partition[i]));
  }
  return path;
}

}  // namespace floe::iceberg
