#include "floe/delta/calendar_interval.h"

#include <limits>
#include <optional>

#include "floe/util/error.h"
#include "floe/util/text.h"

namespace floe::delta {
namespace {

constexpr int64_t kMicrosPerMillisecond = 1'000;
constexpr int64_t kMicrosPerSecond = 1'000'000;
constexpr int64_t kMicrosPerMinute = 60 * kMicrosPerSecond;
constexpr int64_t kMicrosPerHour = 60 * kMicrosPerMinute;
constexpr int64_t kMicrosPerDay = 24 * kMicrosPerHour;

// Java's Character.isWhitespace for the bytes Spark's parser tests with it (ASCII only:
// a byte of a multi-byte character is negative in Java and never white space).
bool IsJavaWhitespace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r' ||
         (c >= 0x1C && c <= 0x1F);
}

// Math.addExact / multiplyExact / toIntExact.
bool Add(int64_t a, int64_t b, int64_t* out) {
  return !__builtin_add_overflow(a, b, out);
}
bool Multiply(int64_t a, int64_t b, int64_t* out) {
  return !__builtin_mul_overflow(a, b, out);
}
bool ToInt(int64_t value, int32_t* out) {
  if (value < std::numeric_limits<int32_t>::min() ||
      value > std::numeric_limits<int32_t>::max()) {
    return false;
  }
  *out = static_cast<int32_t>(value);
  return true;
}

// One "[+|-]number" of an interval, as Spark's parser reads it: its value (negated by
// the sign) and, for seconds, a fraction in nanoseconds. `*at` moves past it.
struct Amount {
  int64_t value = 0;
  bool has_fraction = false;
  int64_t fraction_nanos = 0;  ///< Signed as the value.
};

// Reads an Amount at `input[*at]` (not white space); a failure says why.
std::optional<Amount> ReadAmount(const std::string& input, size_t* at, std::string* why) {
  auto digit = [&](size_t i) {
    return i < input.size() && input[i] >= '0' && input[i] <= '9';
  };
  Amount amount;
  bool negative = false;
  const bool point_prefixed = input[*at] == '.';  // ".5 seconds": digits must follow
  if (input[*at] == '-' || input[*at] == '+') {
    negative = input[*at] == '-';
    ++*at;
    while (*at < input.size() && IsJavaWhitespace(input[*at])) ++*at;
  } else if (!digit(*at) && input[*at] != '.') {
    *why = "unrecognized number";
    return std::nullopt;
  }
  bool has_digits = false;
  for (; digit(*at); ++*at) {
    if (!Multiply(amount.value, 10, &amount.value) ||
        !Add(amount.value, input[*at] - '0', &amount.value)) {
      *why = "the number overflows a long";
      return std::nullopt;
    }
    has_digits = true;
  }
  if (*at < input.size() && input[*at] == '.') {
    // A fraction, to nanoseconds (nine digits).
    amount.has_fraction = true;
    ++*at;
    int64_t scale = 100'000'000;
    int fraction_digits = 0;
    for (; digit(*at); ++*at, ++fraction_digits) {
      if (scale == 0) {
        *why = "more than nanosecond precision";
        return std::nullopt;
      }
      amount.fraction_nanos += (input[*at] - '0') * scale;
      scale /= 10;
    }
    has_digits = has_digits || fraction_digits > 0 || !point_prefixed;
  }
  if (!has_digits) {
    *why = "invalid value";
    return std::nullopt;
  }
  if (negative) {
    amount.value = -amount.value;
    amount.fraction_nanos = -amount.fraction_nanos;
  }
  return amount;
}

// Adds `amount` of `unit` to `interval` (months and days summed in `months` and `days`
// as longs, narrowed to int at each step, as Spark does). False when a sum or product
// overflows.
bool AddAmount(std::string_view unit, const Amount& amount, int64_t* months,
               int64_t* days, CalendarInterval* interval) {
  int64_t product = 0;
  int32_t narrow = 0;
  if (unit == "year") {
    return Multiply(amount.value, 12, &product) && Add(*months, product, months) &&
           ToInt(*months, &interval->months);
  }
  if (unit == "month") {
    return ToInt(amount.value, &narrow) && Add(*months, narrow, months) &&
           ToInt(*months, &interval->months);
  }
  if (unit == "week") {
    return Multiply(amount.value, 7, &product) && Add(*days, product, days) &&
           ToInt(*days, &interval->days);
  }
  if (unit == "day") {
    return ToInt(amount.value, &narrow) && Add(*days, narrow, days) &&
           ToInt(*days, &interval->days);
  }
  const int64_t scale = unit == "hour"          ? kMicrosPerHour
                        : unit == "minute"      ? kMicrosPerMinute
                        : unit == "second"      ? kMicrosPerSecond
                        : unit == "millisecond" ? kMicrosPerMillisecond
                                                : 1;
  return Multiply(amount.value, scale, &product) &&
         Add(interval->microseconds, product, &interval->microseconds) &&
         Add(interval->microseconds, amount.fraction_nanos / 1000,
             &interval->microseconds);
}

}  // namespace

arrow::Result<CalendarInterval> ParseCalendarInterval(std::string_view text) {
  auto bad = [&](const std::string& why) {
    return MakeError(ErrorKind::kInvalidInput,
                     "'" + Printable(ShortenForMessage(text)) + "' is not an interval (" +
                         why + "); e.g. 'interval 7 days', '2 weeks', '36 hours'");
  };
  // UTF8String.trimAll: white space and control characters at both ends.
  std::string_view trimmed = text;
  while (!trimmed.empty() && static_cast<unsigned char>(trimmed.front()) <= ' ')
    trimmed.remove_prefix(1);
  while (!trimmed.empty() && static_cast<unsigned char>(trimmed.back()) <= ' ')
    trimmed.remove_suffix(1);
  if (trimmed.empty()) return bad("it is empty");
  const std::string input = AsciiLower(trimmed);
  // delta-spark puts "interval " before a value that does not start with it, so any other
  // spelling of the prefix ("interval\t", "intervals") fails as a number.
  constexpr std::string_view kPrefix = "interval ";
  size_t at = std::string_view(input).starts_with(kPrefix) ? kPrefix.size() : 0;
  auto skip_space = [&] {
    while (at < input.size() && IsJavaWhitespace(input[at])) ++at;
  };

  CalendarInterval interval;
  int64_t months = 0;
  int64_t days = 0;
  bool any_group = false;
  for (skip_space(); at < input.size(); skip_space()) {
    std::string why;
    const std::optional<Amount> amount = ReadAmount(input, &at, &why);
    if (!amount) return bad(why);
    // White space, then the unit.
    if (at >= input.size()) return bad("a unit must follow the number");
    if (!IsJavaWhitespace(input[at])) return bad("invalid value");
    skip_space();
    if (at >= input.size()) return bad("a unit must follow the number");
    std::string_view rest = std::string_view(input).substr(at);
    std::string_view unit;
    for (std::string_view candidate : {"year", "month", "week", "day", "hour", "minute",
                                       "second", "millisecond", "microsecond"}) {
      if (rest.starts_with(candidate)) {
        unit = candidate;
        break;
      }
    }
    if (unit.empty()) return bad("invalid unit");
    if (amount->has_fraction && unit != "second") {
      return bad("only seconds take a fraction");
    }
    if (!AddAmount(unit, *amount, &months, &days, &interval)) {
      return bad("the " + std::string(unit) + "s overflow");
    }
    at += unit.size();
    // An optional plural 's', then white space or the end.
    if (at < input.size() && input[at] == 's') ++at;
    if (at < input.size() && !IsJavaWhitespace(input[at])) return bad("invalid unit");
    any_group = true;
  }
  if (!any_group) return bad("it names no amount");
  return interval;
}

arrow::Result<int64_t> IntervalPropertyMillis(std::string_view key,
                                              std::string_view value) {
  auto invalid = [&](const std::string& why) {
    return MakeError(ErrorKind::kInvalidMetadata,
                     "property " + std::string(key) + " " + why +
                         " (delta-spark accepts a calendar interval such as 'interval 7 "
                         "days', without months or years, not negative)");
  };
  auto parsed = ParseCalendarInterval(value);
  if (!parsed.ok()) return invalid("does not parse: " + parsed.status().message());
  if (parsed->months != 0) return invalid("has months or years");
  int64_t micros = 0;
  if (!Multiply(parsed->days, kMicrosPerDay, &micros) ||
      !Add(micros, parsed->microseconds, &micros)) {
    return invalid("overflows a long in microseconds");
  }
  if (micros < 0) return invalid("is negative");
  return micros / kMicrosPerMillisecond;
}

arrow::Result<int64_t> IntervalPropertyMillis(
    const std::map<std::string, std::string>& configuration, const std::string& key,
    int64_t default_ms) {
  auto found = configuration.find(key);
  if (found == configuration.end()) return default_ms;
  return IntervalPropertyMillis(key, found->second);
}

}  // namespace floe::delta
