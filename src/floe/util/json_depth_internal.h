// A bound on JSON nesting, checked on the text before a parser sees it.
#pragma once

#include <string_view>

namespace floe {

/// The deepest nesting floe parses. Iceberg metadata nests about two levels per type
/// level (schemas are limited to 256 type levels), so real files stay far below this.
inline constexpr int kMaxJsonDepth = 1000;

/// True when `text` opens more than `max_depth` arrays and objects inside one another
/// (brackets inside strings do not count). nlohmann-json's parser and its ordered_json
/// copies recurse once per level, so a hostile file nested a million levels deep would
/// overflow the stack; this linear scan refuses it first.
bool JsonNestsDeeperThan(std::string_view text, int max_depth = kMaxJsonDepth);

}  // namespace floe
