#include "floe/util/text.h"

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
