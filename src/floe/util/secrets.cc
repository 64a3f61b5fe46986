#include "floe/util/secrets.h"

#include <algorithm>
#include <cctype>

namespace floe {

bool IsSecretPropertyKey(std::string_view key) {
  std::string lower(key);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (const char* marker : {"secret", "password", "passwd", "token", "credential",
                             "access-key", "access_key", "private-key", "private_key"}) {
    if (lower.find(marker) != std::string::npos) return true;
  }
  return lower.size() >= 4 && lower.compare(lower.size() - 4, 4, ".key") == 0;
}

std::string PrintableProperty(std::string_view key, std::string_view value) {
  return IsSecretPropertyKey(key) ? std::string("***") : std::string(value);
}

}  // namespace floe
