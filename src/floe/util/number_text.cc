#include "floe/util/number_text.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <string>

namespace floe {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

bool AllDigits(std::string_view text) {
  if (text.empty()) return false;
  for (char c : text) {
    if (!IsDigit(c)) return false;
  }
  return true;
}

}  // namespace

std::optional<int64_t> ParseJavaLong(std::string_view text) {
  bool negative = false;
  if (!text.empty() && (text.front() == '+' || text.front() == '-')) {
    negative = text.front() == '-';
    text.remove_prefix(1);
  }
  if (!AllDigits(text)) return std::nullopt;
  // Accumulated as a negative number, whose range holds int64's minimum.
  int64_t value = 0;
  for (char c : text) {
    const int digit = c - '0';
    if (value < (std::numeric_limits<int64_t>::min() + digit) / 10) return std::nullopt;
    value = value * 10 - digit;
  }
  if (negative) return value;
  if (value == std::numeric_limits<int64_t>::min()) return std::nullopt;
  return -value;
}

std::optional<int32_t> ParseJavaInt(std::string_view text) {
  auto value = ParseJavaLong(text);
  if (!value || *value < std::numeric_limits<int32_t>::min() ||
      *value > std::numeric_limits<int32_t>::max()) {
    return std::nullopt;
  }
  return static_cast<int32_t>(*value);
}

std::optional<int64_t> ParseDigits(std::string_view text) {
  if (!AllDigits(text)) return std::nullopt;
  return ParseJavaLong(text);
}

bool ParseJavaBoolean(std::string_view text) {
  if (text.size() != 4) return false;
  constexpr std::string_view kTrue = "true";
  for (size_t i = 0; i < 4; ++i) {
    if ((text[i] | 0x20) != kTrue[i]) return false;
  }
  return true;
}

std::optional<ParsedDouble> ParseDecimalDouble(std::string_view text) {
  std::string_view rest = text;
  bool negative = false;
  if (!rest.empty() && (rest.front() == '+' || rest.front() == '-')) {
    negative = rest.front() == '-';
    rest.remove_prefix(1);
  }
  // The syntax is checked here, not left to from_chars, which also takes "inf", "nan"
  // and (with other formats) hexadecimal.
  size_t at = 0;
  size_t integer_digits = 0;
  size_t fraction_digits = 0;
  while (at < rest.size() && IsDigit(rest[at])) ++at, ++integer_digits;
  if (at < rest.size() && rest[at] == '.') {
    ++at;
    while (at < rest.size() && IsDigit(rest[at])) ++at, ++fraction_digits;
  }
  if (integer_digits + fraction_digits == 0) return std::nullopt;
  const size_t mantissa_end = at;
  int64_t exponent = 0;
  if (at < rest.size() && (rest[at] == 'e' || rest[at] == 'E')) {
    ++at;
    bool negative_exponent = false;
    if (at < rest.size() && (rest[at] == '+' || rest[at] == '-')) {
      negative_exponent = rest[at] == '-';
      ++at;
    }
    if (at >= rest.size()) return std::nullopt;
    for (; at < rest.size(); ++at) {
      if (!IsDigit(rest[at])) return std::nullopt;
      // Saturates: any exponent past a billion overflows or underflows all the same.
      if (exponent < 1'000'000'000) exponent = exponent * 10 + (rest[at] - '0');
    }
    if (negative_exponent) exponent = -exponent;
  }
  if (at != rest.size()) return std::nullopt;

  ParsedDouble parsed;
  auto [end, error] = std::from_chars(rest.data(), rest.data() + rest.size(),
                                      parsed.value, std::chars_format::general);
  if (end != rest.data() + rest.size() ||
      (error != std::errc() && error != std::errc::result_out_of_range)) {
    return std::nullopt;
  }
  if (error == std::errc::result_out_of_range) {
    // from_chars leaves the value untouched on overflow and underflow alike; which one
    // it was follows from the decimal exponent of the first non-zero digit.
    std::string_view mantissa = rest.substr(0, mantissa_end);
    int64_t position = static_cast<int64_t>(integer_digits) - 1;  // of mantissa[0]
    bool found = false;
    for (char c : mantissa) {
      if (c == '.') continue;
      if (c != '0') {
        found = true;
        break;
      }
      --position;
    }
    const bool overflow = found && position + exponent >= 0;
    parsed.out_of_range = overflow;
    parsed.value = overflow ? std::numeric_limits<double>::infinity() : 0.0;
  }
  if (negative) parsed.value = -parsed.value;
  return parsed;
}

}  // namespace floe
