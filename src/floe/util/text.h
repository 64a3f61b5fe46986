// Small text helpers shared by floe's parsers.
#pragma once

#include <string_view>

namespace floe {

/// `text` without its trailing ASCII white space (space, tab, newline, vertical tab, form
/// feed, carriage return).
std::string_view TrimTrailingSpace(std::string_view text);
/// `text` without its leading and trailing ASCII white space.
std::string_view TrimSpace(std::string_view text);

}  // namespace floe
