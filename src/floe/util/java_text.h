// Text exactly as Java writes it, where Iceberg's file layout depends on it: URL encoding
// of partition paths (java.net.URLEncoder), floating-point numbers
// (Double/Float.toString) and Base64 (java.util.Base64).
#pragma once

#include <string>
#include <string_view>

namespace floe {

/// java.net.URLEncoder.encode(text, UTF_8): A-Z a-z 0-9 . - * _ unchanged, space as '+',
/// every other byte of the UTF-8 text as %XX (upper-case hex).
std::string JavaUrlEncode(std::string_view text);

/// Java's Double.compare: -0.0 orders below 0.0, and NaN above everything (all NaNs
/// equal). Negative, zero or positive.
int JavaDoubleCompare(double left, double right);

/// Double.toString as JDK 19 and later write it (shortest round-trip digits): "1.0",
/// "-0.0", "1.0E-5", "1.23456789E8", "NaN", "Infinity". Plain notation for 1e-3 <= |x| <
/// 1e7.
std::string JavaDoubleToString(double value);
/// Float.toString, with the same rules over float's shortest digits.
std::string JavaFloatToString(float value);

/// Avro's name rules as iceberg-java applies them (AvroSchemaUtil.validAvroName /
/// sanitize, also used for Parquet field names by makeCompatibleName). A valid name
/// starts with a letter or '_' and continues with letters, digits or '_' ("letter" in
/// Java's Unicode sense, per UTF-16 unit, so characters beyond the BMP never count).
/// Otherwise each offending UTF-16 unit becomes
/// "_<digit>" (a digit in first position) or "_x<HEX>" (upper-case, unpadded).
bool IsValidAvroName(std::string_view name);
std::string MakeCompatibleName(std::string_view name);

/// Standard Base64 with '=' padding (RFC 4648 §4).
std::string Base64Encode(std::string_view bytes);

}  // namespace floe
