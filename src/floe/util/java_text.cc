#include "floe/util/java_text.h"

#include <charconv>
#include <clocale>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cwctype>
#include <string>
#include <type_traits>
#include <vector>

#include <clocale>

namespace floe {
namespace {

// Formats shortest scientific digits ("d.dddde±x" from to_chars) the way Java's
// FloatingDecimal does.
std::string JavaFormat(const char* scientific, size_t length, bool negative) {
  std::string_view text(scientific, length);
  size_t e = text.find('e');
  std::string digits;
  for (char c : text.substr(0, e)) {
    if (c >= '0' && c <= '9') digits.push_back(c);
  }
  int exponent = std::atoi(std::string(text.substr(e + 1)).c_str());
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  std::string result = negative ? "-" : "";
  // Java: plain notation when 10^-3 <= |x| < 10^7, i.e. -3 <= exponent < 7.
  if (exponent >= -3 && exponent < 7) {
    if (exponent >= 0) {
      std::string integer =
          digits.substr(0, std::min(digits.size(), static_cast<size_t>(exponent) + 1));
      integer.append(static_cast<size_t>(exponent) + 1 - integer.size(), '0');
      std::string fraction = digits.size() > static_cast<size_t>(exponent) + 1
                                 ? digits.substr(static_cast<size_t>(exponent) + 1)
                                 : "0";
      result += integer + "." + fraction;
    } else {
      result += "0." + std::string(static_cast<size_t>(-exponent - 1), '0') + digits;
    }
    return result;
  }
  result += digits.substr(0, 1) + "." + (digits.size() > 1 ? digits.substr(1) : "0");
  result += "E" + std::to_string(exponent);
  return result;
}

// Parses decimal text as T (strtod or strtof).
template <typename T>
T ParseAs(const char* text) {
  if constexpr (std::is_same_v<T, float>) {
    return std::strtof(text, nullptr);
  } else {
    return std::strtod(text, nullptr);
  }
}

// Java's rule when the shortest decimal that rounds to `value` has one digit (JDK 19+
// Double.toString: "when p = 1, T is the set of decimals in R of length 1 or 2; d is the
// one in T closest to the value"): of the one- and two-digit decimals that round to
// `value`, the closest. The shortest digit alone is usually exact or nearly so; it is
// not for the smallest subnormals, whose neighbours are far apart (Double.MIN_VALUE,
// 4.94e-324, is "4.9E-324", not "5.0E-324"). `scientific` is to_chars' "de±x".
template <typename T>
std::string ClosestOfOneOrTwoDigits(T value, const std::string& scientific) {
  // Two-digit decimals c * 10^(exponent - 1), c in 10..99, around the value, whose
  // decimal exponent is its own (9.88e-324 lies between 9.8e-324 and 9.9e-324, though
  // its one shortest digit is 1e-323).
  const long double exact = value;
  const int exponent = static_cast<int>(std::floor(std::log10(exact)));
  const long double unit = std::pow(10.0L, exponent - 1);
  const auto nearest = static_cast<int>(std::lround(exact / unit));
  std::string best = scientific;  // the one-digit decimal d * 10^exponent
  long double best_distance =
      std::fabs(std::strtold(scientific.c_str(), nullptr) - exact);
  for (int c = nearest - 1; c <= nearest + 1; ++c) {
    if (c < 10 || c > 99 || c % 10 == 0) continue;  // c0 is the one-digit decimal
    char candidate[32];
    std::snprintf(candidate, sizeof(candidate), "%d.%de%d", c / 10, c % 10, exponent);
    if (ParseAs<T>(candidate) != value) continue;  // does not round to the value
    long double distance = std::fabs(std::strtold(candidate, nullptr) - exact);
    if (distance < best_distance) {
      best = candidate;
      best_distance = distance;
    }
  }
  return best;
}

template <typename T>
std::string JavaFloatingToString(T value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "Infinity" : "-Infinity";
  if (value == 0) return std::signbit(value) ? "-0.0" : "0.0";
  char buffer[64];
  auto [end, error] = std::to_chars(buffer, buffer + sizeof(buffer), std::fabs(value),
                                    std::chars_format::scientific);
  std::string shortest(buffer, end);
  if (shortest.find('.') == std::string::npos) {
    shortest = ClosestOfOneOrTwoDigits(std::fabs(value), shortest);
  }
  return JavaFormat(shortest.data(), shortest.size(), std::signbit(value));
}

// UTF-16 code units of UTF-8 text (invalid bytes map to themselves as units).
std::vector<char16_t> Utf16Units(std::string_view text) {
  std::vector<char16_t> units;
  size_t i = 0;
  while (i < text.size()) {
    auto lead = static_cast<unsigned char>(text[i]);
    size_t length = lead < 0x80           ? 1
                    : (lead >> 5) == 0x6  ? 2
                    : (lead >> 4) == 0xE  ? 3
                    : (lead >> 3) == 0x1E ? 4
                                          : 0;
    if (length == 0 || i + length > text.size()) {
      units.push_back(lead);
      ++i;
      continue;
    }
    char32_t code_point = length == 1 ? lead : lead & (0xFF >> (length + 1));
    for (size_t k = 1; k < length; ++k)
      code_point = (code_point << 6) | (static_cast<unsigned char>(text[i + k]) & 0x3F);
    if (code_point >= 0x10000) {
      code_point -= 0x10000;
      units.push_back(static_cast<char16_t>(0xD800 + (code_point >> 10)));
      units.push_back(static_cast<char16_t>(0xDC00 + (code_point & 0x3FF)));
    } else {
      units.push_back(static_cast<char16_t>(code_point));
    }
    i += length;
  }
  return units;
}

// Java's Character.isLetter / isDigit for one UTF-16 unit, from the C library's Unicode
// tables.
locale_t Utf8Locale() {
  static locale_t locale = [] {
    locale_t created = newlocale(LC_CTYPE_MASK, "C.UTF-8", nullptr);
    return created ? created : newlocale(LC_CTYPE_MASK, "C", nullptr);
  }();
  return locale;
}
bool IsJavaDigit(char16_t unit) { return unit >= '0' && unit <= '9'; }
bool IsJavaLetter(char16_t unit) {
  if (unit < 0x80) return (unit >= 'a' && unit <= 'z') || (unit >= 'A' && unit <= 'Z');
  if (unit >= 0xD800 && unit <= 0xDFFF) return false;  // surrogates are never letters
  return iswalpha_l(static_cast<wint_t>(unit), Utf8Locale()) != 0;
}

void AppendUtf16Unit(char16_t unit, std::string* out) {
  if (unit < 0x80) {
    out->push_back(static_cast<char>(unit));
  } else if (unit < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (unit >> 6)));
    out->push_back(static_cast<char>(0x80 | (unit & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xE0 | (unit >> 12)));
    out->push_back(static_cast<char>(0x80 | ((unit >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (unit & 0x3F)));
  }
}

}  // namespace

bool IsValidAvroName(std::string_view name) {
  auto units = Utf16Units(name);
  if (units.empty()) return false;
  if (!(IsJavaLetter(units[0]) || units[0] == '_')) return false;
  for (size_t i = 1; i < units.size(); ++i) {
    if (!(IsJavaLetter(units[i]) || IsJavaDigit(units[i]) || units[i] == '_'))
      return false;
  }
  return true;
}

std::string MakeCompatibleName(std::string_view name) {
  if (IsValidAvroName(name)) return std::string(name);
  auto units = Utf16Units(name);
  std::string result;
  auto sanitize = [&](char16_t unit) {
    if (IsJavaDigit(unit)) {
      result.push_back('_');
      result.push_back(static_cast<char>(unit));
    } else {
      char buffer[16];
      std::snprintf(buffer, sizeof(buffer), "_x%X", static_cast<unsigned>(unit));
      result += buffer;
    }
  };
  for (size_t i = 0; i < units.size(); ++i) {
    char16_t unit = units[i];
    bool keep = i == 0 ? (IsJavaLetter(unit) || unit == '_')
                       : (IsJavaLetter(unit) || IsJavaDigit(unit) || unit == '_');
    if (keep) {
      AppendUtf16Unit(unit, &result);
    } else {
      sanitize(unit);
    }
  }
  return result;
}

std::string JavaUrlEncode(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string encoded;
  encoded.reserve(text.size());
  for (char c : text) {
    auto byte = static_cast<unsigned char>(c);
    if ((byte >= 'a' && byte <= 'z') || (byte >= 'A' && byte <= 'Z') ||
        (byte >= '0' && byte <= '9') || byte == '.' || byte == '-' || byte == '*' ||
        byte == '_') {
      encoded.push_back(c);
    } else if (byte == ' ') {
      encoded.push_back('+');
    } else {
      encoded.push_back('%');
      encoded.push_back(kHex[byte >> 4]);
      encoded.push_back(kHex[byte & 0x0F]);
    }
  }
  return encoded;
}

std::string JavaDoubleToString(double value) { return JavaFloatingToString(value); }
std::string JavaFloatToString(float value) { return JavaFloatingToString(value); }

std::string Base64Encode(std::string_view bytes) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string encoded;
  encoded.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    uint32_t chunk = (uint32_t{static_cast<uint8_t>(bytes[i])} << 16) |
                     (uint32_t{static_cast<uint8_t>(bytes[i + 1])} << 8) |
                     uint32_t{static_cast<uint8_t>(bytes[i + 2])};
    for (int shift = 18; shift >= 0; shift -= 6)
      encoded.push_back(kAlphabet[(chunk >> shift) & 63]);
  }
  size_t left = bytes.size() - i;
  if (left > 0) {
    uint32_t chunk = uint32_t{static_cast<uint8_t>(bytes[i])} << 16;
    if (left == 2) chunk |= uint32_t{static_cast<uint8_t>(bytes[i + 1])} << 8;
    encoded.push_back(kAlphabet[(chunk >> 18) & 63]);
    encoded.push_back(kAlphabet[(chunk >> 12) & 63]);
    encoded.push_back(left == 2 ? kAlphabet[(chunk >> 6) & 63] : '=');
    encoded.push_back('=');
  }
  return encoded;
}

int JavaDoubleCompare(double left, double right) {
  const bool left_nan = std::isnan(left);
  const bool right_nan = std::isnan(right);
  if (left_nan || right_nan) return left_nan == right_nan ? 0 : (left_nan ? 1 : -1);
  if (left < right) return -1;
  if (left > right) return 1;
  const bool left_negative = std::signbit(left);
  const bool right_negative = std::signbit(right);
  if (left_negative == right_negative) return 0;
  return left_negative ? -1 : 1;
}

}  // namespace floe
