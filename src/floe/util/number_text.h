// Numbers read from text floe does not control: property values, literals of a filter,
// file names, numbers in JSON written by other programs. Every such parse goes through
// these functions, so that a number out of range is refused instead of wrapping,
// saturating or being left at zero, and no parse can throw (std::stoi, std::stoll and
// friends throw std::out_of_range and std::invalid_argument, which must never cross a
// function of floe's).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace floe {

/// Java's Long.parseLong over ASCII: an optional '+' or '-', then one or more digits
/// '0'-'9' (leading zeros allowed), nothing else (no spaces, no '_', no second sign), and
/// within int64's range. nullopt otherwise. Thread-safe; never throws.
std::optional<int64_t> ParseJavaLong(std::string_view text);

/// Java's Integer.parseInt over ASCII: as ParseJavaLong, within int32's range.
std::optional<int32_t> ParseJavaInt(std::string_view text);

/// Digits only ('0'-'9', at least one, no sign), within int64's range: the numbers in
/// file names ("00000000000000000010.json", a checkpoint's part numbers). nullopt
/// otherwise.
std::optional<int64_t> ParseDigits(std::string_view text);

/// Java's Boolean.parseBoolean: "true" in any case is true, everything else false.
bool ParseJavaBoolean(std::string_view text);

/// A decimal floating-point number, as Java's Double.parseDouble reads the numbers floe
/// accepts: an optional sign, digits with an optional '.', an optional exponent ('e' or
/// 'E', optional sign, digits); no spaces, no hexadecimal, no "Infinity" or "NaN"
/// (callers that accept those say so themselves). Rounded to the nearest double. A value
/// too small for a double is the zero of its sign (as Java, and as Spark's parser reads
/// 1e-400).
struct ParsedDouble {
  double value = 0;
  /// True when the number is beyond double's range (|x| rounds above DBL_MAX, e.g.
  /// 1e400): `value` is then the infinity of its sign, and a caller must decide (Spark's
  /// SQL parser refuses such a literal: INVALID_NUMERIC_LITERAL_RANGE).
  bool out_of_range = false;
};
/// nullopt when `text` is not such a number.
std::optional<ParsedDouble> ParseDecimalDouble(std::string_view text);

}  // namespace floe
