#include "floe/util/text.h"

#include <cctype>
#include <charconv>
#include <limits>

#include "floe/util/error.h"
#include "floe/util/number_text.h"

namespace floe {
namespace {

// std::isspace in the C locale, whatever the process's locale.
bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

}  // namespace

std::string_view TrimTrailingSpace(std::string_view text) {
  while (!text.empty() && IsSpace(text.back())) text.remove_suffix(1);
  return text;
}

std::string_view TrimSpace(std::string_view text) {
  while (!text.empty() && IsSpace(text.front())) text.remove_prefix(1);
  return TrimTrailingSpace(text);
}

}  // namespace floe

namespace floe {

std::string AsciiLower(std::string_view text) {
  std::string lower(text);
  for (auto& c : lower)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower;
}

std::string Printable(std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    auto byte = static_cast<unsigned char>(text[i]);
    if (byte == '\\') {
      out += "\\\\";
    } else if (byte == '\n') {
      out += "\\n";
    } else if (byte == '\t') {
      out += "\\t";
    } else if (byte == '\r') {
      out += "\\r";
    } else if (byte < 0x20 || byte == 0x7F) {
      out += "\\x";
      out.push_back(kHex[byte >> 4]);
      out.push_back(kHex[byte & 0xF]);
    } else if (byte < 0x80) {
      out.push_back(static_cast<char>(byte));
    } else {
      // A UTF-8 sequence: copy it unless it is malformed or a C1 control (U+0080 to
      // U+009F, encoded C2 80 to C2 9F), which terminals also obey.
      size_t length = 0;
      if (byte >= 0xC2 && byte < 0xE0) {
        length = 2;
      } else if (byte >= 0xE0 && byte < 0xF0) {
        length = 3;
      } else if (byte >= 0xF0 && byte < 0xF5) {
        length = 4;
      }
      bool valid = length > 0 && i + length <= text.size();
      for (size_t k = 1; valid && k < length; ++k) {
        valid = (static_cast<unsigned char>(text[i + k]) & 0xC0) == 0x80;
      }
      if (valid && byte == 0xC2 && static_cast<unsigned char>(text[i + 1]) < 0xA0) {
        out += "\\u00";
        out.push_back(kHex[static_cast<unsigned char>(text[i + 1]) >> 4]);
        out.push_back(kHex[static_cast<unsigned char>(text[i + 1]) & 0xF]);
        i += 1;
      } else if (valid) {
        out.append(text.substr(i, length));
        i += length - 1;
      } else {
        out += "\\x";
        out.push_back(kHex[byte >> 4]);
        out.push_back(kHex[byte & 0xF]);
      }
    }
  }
  return out;
}

std::string ShortenForMessage(std::string_view text, size_t limit) {
  if (text.size() <= limit) return std::string(text);
  size_t end = limit;
  // Back to the start of a UTF-8 character (continuation bytes are 10xxxxxx).
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  return std::string(text.substr(0, end)) + "... (" + std::to_string(text.size()) +
         " bytes)";
}

arrow::Result<int64_t> ParseByteSize(std::string_view text) {
  std::string_view digits = text;
  // 512M, 512MB, 512MiB and 512m all mean 512 * 2^20, as in Spark and the JVM's -Xmx.
  if (!digits.empty() && (digits.back() == 'b' || digits.back() == 'B'))
    digits.remove_suffix(1);
  if (digits.size() >= 2 && (digits.back() == 'i' || digits.back() == 'I') &&
      std::string_view("kKmMgGtT").find(digits[digits.size() - 2]) !=
          std::string_view::npos) {
    digits.remove_suffix(1);
  }
  int64_t multiplier = 1;
  if (!digits.empty()) {
    switch (std::tolower(static_cast<unsigned char>(digits.back()))) {
      case 'k':
        multiplier = int64_t{1} << 10;
        break;
      case 'm':
        multiplier = int64_t{1} << 20;
        break;
      case 'g':
        multiplier = int64_t{1} << 30;
        break;
      case 't':
        multiplier = int64_t{1} << 40;
        break;
      default:
        break;
    }
    if (multiplier != 1) digits.remove_suffix(1);
  }
  const int64_t value = ParseDigits(digits).value_or(0);
  if (value <= 0 || value > std::numeric_limits<int64_t>::max() / multiplier) {
    return MakeError(
        ErrorKind::kInvalidInput,
        "'" + std::string(text) + "' is not a byte size (e.g. 512M, 512MiB, 2G)");
  }
  return value * multiplier;
}

std::string JoinText(const std::vector<std::string>& parts, std::string_view separator) {
  std::string text;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) text += separator;
    text += parts[i];
  }
  return text;
}

}  // namespace floe
