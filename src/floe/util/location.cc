#include "floe/util/location.h"
#include "floe/util/text.h"

#include <algorithm>
#include <cctype>
#include <filesystem>

namespace floe {
namespace {

constexpr std::string_view kFilePrefix = "file:";

}  // namespace

std::string LocalPath(std::string_view location) {
  // Schemes are case-insensitive (RFC 3986): FILE:/a is file:/a.
  if (location.size() < kFilePrefix.size() ||
      AsciiLower(location.substr(0, kFilePrefix.size())) != kFilePrefix) {
    return std::string(location);
  }
  std::string_view rest = location.substr(kFilePrefix.size());
  if (rest.substr(0, 2) == "//") {
    rest.remove_prefix(2);
    size_t slash = rest.find('/');
    rest = slash == std::string_view::npos ? std::string_view("/") : rest.substr(slash);
  }
  return std::string(rest);
}

std::string LocationScheme(std::string_view location) {
  // A scheme is letters, digits, '+', '-' or '.' before ':' (RFC 3986), starting with a
  // letter.
  size_t colon = location.find(':');
  if (colon == std::string_view::npos || colon == 0) return "file";
  for (size_t i = 0; i < colon; ++i) {
    char c = location[i];
    bool ok = std::isalpha(static_cast<unsigned char>(c)) ||
              (i > 0 && (std::isdigit(static_cast<unsigned char>(c)) || c == '+' ||
                         c == '-' || c == '.'));
    if (!ok) return "file";
  }
  return AsciiLower(location.substr(0, colon));
}

std::string StripTrailingSlash(std::string location) {
  while (location.size() > 1 && location.back() == '/') {
    if (location.size() >= 3 && location.compare(location.size() - 3, 3, "://") == 0)
      break;
    location.pop_back();
  }
  return location;
}

std::string CanonicalLocation(std::string_view location) {
  if (LocationScheme(location) != "file") return std::string(location);
  return std::filesystem::path(LocalPath(location)).lexically_normal().string();
}

bool IsLocationUnder(std::string_view location, std::string_view directory) {
  auto normalise = [](std::string_view text) {
    std::string path =
        LocationScheme(text) == "file" ? LocalPath(text) : std::string(text);
    return std::filesystem::path(path).lexically_normal().string();
  };
  std::string child = normalise(location);
  std::string parent = normalise(directory);
  while (parent.size() > 1 && parent.back() == '/') parent.pop_back();
  if (LocationScheme(location) != LocationScheme(directory)) return false;
  if (child == parent) return true;
  return child.size() > parent.size() && child.compare(0, parent.size(), parent) == 0 &&
         child[parent.size()] == '/';
}

}  // namespace floe
