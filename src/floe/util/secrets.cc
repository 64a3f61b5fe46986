#include "floe/util/secrets.h"
#include "floe/util/text.h"

#include <algorithm>
#include <cctype>

namespace floe {

bool IsSecretPropertyKey(std::string_view key) {
  const std::string lower = AsciiLower(key);
  for (const char* marker : {"secret", "password", "passwd", "token", "credential",
                             "access-key", "access_key", "private-key", "private_key"}) {
    if (lower.find(marker) != std::string::npos) return true;
  }
  return lower.size() >= 4 && lower.compare(lower.size() - 4, 4, ".key") == 0;
}

std::string PrintableProperty(std::string_view key, std::string_view value) {
  return IsSecretPropertyKey(key) ? std::string("***") : std::string(value);
}

std::string RedactSecrets(std::string text, const std::vector<std::string>& secrets) {
  for (const auto& secret : secrets) {
    if (secret.empty()) continue;
    for (size_t at = text.find(secret); at != std::string::npos;
         at = text.find(secret, at + 3)) {
      text.replace(at, secret.size(), "***");
    }
  }
  return text;
}

namespace {

// Query parameters whose values are secrets, for SecretsOfUri and RedactUri.
constexpr std::string_view kSecretQueryKeys[] = {
    "password=", "secret=", "token=", "credential=", "key="};

std::string PercentDecoded(std::string_view text) {
  std::string decoded;
  for (size_t i = 0; i < text.size(); ++i) {
    auto hex = [](char c) {
      return std::isxdigit(static_cast<unsigned char>(c))
                 ? (std::isdigit(static_cast<unsigned char>(c)) ? c - '0'
                                                                : ((c | 0x20) - 'a' + 10))
                 : -1;
    };
    if (text[i] == '%' && i + 2 < text.size() && hex(text[i + 1]) >= 0 &&
        hex(text[i + 2]) >= 0) {
      decoded.push_back(static_cast<char>(hex(text[i + 1]) * 16 + hex(text[i + 2])));
      i += 2;
    } else {
      decoded.push_back(text[i]);
    }
  }
  return decoded;
}

}  // namespace

std::vector<std::string> SecretsOfUri(std::string_view uri) {
  std::vector<std::string> secrets;
  // user:password@ in the authority, however malformed the rest ("[::1" without "]"). A
  // password may hold '/', '?' or '@' unescaped: everything up to the last '@' is taken
  // (over-redacting a path that holds one is harmless).
  size_t scheme = uri.find("://");
  if (scheme != std::string_view::npos) {
    std::string_view rest = uri.substr(scheme + 3);
    size_t at = rest.rfind('@');
    if (at != std::string_view::npos) {
      std::string_view user_info = rest.substr(0, at);
      size_t colon = user_info.find(':');
      if (colon != std::string_view::npos) {
        std::string_view password = user_info.substr(colon + 1);
        secrets.emplace_back(password);
        secrets.push_back(PercentDecoded(password));
      }
    }
  }
  for (std::string_view key : kSecretQueryKeys) {
    for (size_t at = uri.find(key); at != std::string_view::npos;
         at = uri.find(key, at + 1)) {
      std::string_view value = uri.substr(at + key.size());
      value = value.substr(0, value.find('&'));
      secrets.emplace_back(value);
      secrets.push_back(PercentDecoded(value));
    }
  }
  // Longest first, so a secret that contains another is replaced whole.
  std::sort(
      secrets.begin(), secrets.end(),
      [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  return secrets;
}

std::string RedactUri(std::string_view uri) {
  std::string text(uri);
  // user:password@host -> user:***@host
  size_t scheme = text.find("://");
  if (scheme != std::string::npos) {
    size_t start = scheme + 3;
    size_t at = text.find('@', start);
    size_t slash = text.find('/', start);
    if (at != std::string::npos && (slash == std::string::npos || at < slash)) {
      size_t colon = text.find(':', start);
      if (colon != std::string::npos && colon < at) {
        text.replace(colon + 1, at - colon - 1, "***");
      }
    }
  }
  // ?password=...&secret=...&token=...
  for (std::string_view key : kSecretQueryKeys) {
    size_t position = 0;
    while ((position = text.find(key, position)) != std::string::npos) {
      size_t value = position + key.size();
      size_t end = text.find('&', value);
      text.replace(value, (end == std::string::npos ? text.size() : end) - value, "***");
      position = value + 3;
    }
  }
  return text;
}

}  // namespace floe
