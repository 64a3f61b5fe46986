#include "floe/util/java_text.h"

#include <charconv>
#include <cmath>
#include <cstdlib>

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
      std::string integer = digits.substr(0, std::min(digits.size(), static_cast<size_t>(exponent) + 1));
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

template <typename T>
std::string JavaFloatingToString(T value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "Infinity" : "-Infinity";
  if (value == 0) return std::signbit(value) ? "-0.0" : "0.0";
  char buffer[64];
  auto [end, error] =
      std::to_chars(buffer, buffer + sizeof(buffer), std::fabs(value), std::chars_format::scientific);
  return JavaFormat(buffer, static_cast<size_t>(end - buffer), std::signbit(value));
}

}  // namespace

std::string JavaUrlEncode(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string encoded;
  encoded.reserve(text.size());
  for (char c : text) {
    auto byte = static_cast<unsigned char>(c);
    if ((byte >= 'a' && byte <= 'z') || (byte >= 'A' && byte <= 'Z') || (byte >= '0' && byte <= '9') ||
        byte == '.' || byte == '-' || byte == '*' || byte == '_') {
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
    for (int shift = 18; shift >= 0; shift -= 6) encoded.push_back(kAlphabet[(chunk >> shift) & 63]);
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

}  // namespace floe
