// Small text helpers shared by floe's parsers.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "arrow/result.h"

namespace floe {

/// `text` without its trailing ASCII white space (space, tab, newline, vertical tab, form
/// feed, carriage return).
std::string_view TrimTrailingSpace(std::string_view text);
/// `text` without its leading and trailing ASCII white space.
std::string_view TrimSpace(std::string_view text);

/// `text` with ASCII letters in lower case (property values iceberg-java compares
/// ignoring case).
std::string AsciiLower(std::string_view text);

/// `text` safe to show on a terminal: C0 control characters (newline and tab too), DEL
/// and the C1 controls (U+0080 to U+009F, and bytes that are not UTF-8) are written as
/// escapes (`\n`, `\t`, `\x1b`, `\u009b`, ...) and a backslash as `\\`, so a name or
/// path read from a catalog or a file cannot move the cursor, clear the screen or set
/// the window title (ESC sequences, OSC). Printable text, UTF-8 included, is unchanged.
std::string Printable(std::string_view text);

/// `text` as an error message quotes it: whole when at most `limit` bytes, otherwise its
/// first `limit` bytes (never splitting a UTF-8 character) followed by "... (N bytes)",
/// so that a 10,000-character expression does not drown the message. Not made Printable.
std::string ShortenForMessage(std::string_view text, size_t limit = 120);

/// `parts` joined with `separator` between them ("a, b, c" for ", "); empty for none.
std::string JoinText(const std::vector<std::string>& parts,
                     std::string_view separator = ", ");

/// Parses a byte size: a number with an optional K, M, G or T suffix (powers of 1024, an
/// optional "i" and trailing "B", any case): "512M", "512MiB", "2g", "1048576". Anything
/// else gives InvalidInput.
arrow::Result<int64_t> ParseByteSize(std::string_view text);

}  // namespace floe
