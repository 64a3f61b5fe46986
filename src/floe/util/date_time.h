// Calendar arithmetic over the whole range Iceberg values can take.
//
// Iceberg dates are days since 1970-01-01 (an int, so years up to 5881580 and back to
// -5877641) and timestamps are micro- or nanoseconds since the epoch (a long, so years up
// to 294247). Library calendars stop short of that (chrono's year range, Arrow's
// date_part), so floe uses these proleptic-Gregorian conversions, exact for every int64
// day number that fits.
#pragma once

#include <cstdint>
#include <string>

namespace floe {

/// A proleptic-Gregorian calendar date. `year` may be zero or negative (astronomical
/// numbering).
struct CivilDate {
  int64_t year;
  int month;  ///< 1..12
  int day;    ///< 1..31
  bool operator==(const CivilDate&) const = default;
};

/// The calendar date of `days` since 1970-01-01.
CivilDate CivilFromDays(int64_t days);

/// Days since 1970-01-01 of a calendar date. The date is not validated.
int64_t DaysFromCivil(int64_t year, int month, int day);

/// Floor division and modulo (round toward negative infinity), as Java's
/// Math.floorDiv/floorMod.
constexpr int64_t FloorDiv(int64_t value, int64_t divisor) {
  int64_t quotient = value / divisor;
  if ((value % divisor != 0) && ((value < 0) != (divisor < 0))) --quotient;
  return quotient;
}
constexpr int64_t FloorMod(int64_t value, int64_t divisor) {
  return value - FloorDiv(value, divisor) * divisor;
}

/// "YYYY-MM-DD" with at least four year digits and a leading '-' for negative years, as
/// Java's String.format("%04d-%02d-%02d") writes it (so year -1 is "-001").
std::string FormatDate(int64_t days);

/// DateTimeFormatter.ISO_LOCAL_DATE_TIME of an instant given in units since the epoch
/// (UTC): "2017-11-16T22:31:08", fraction digits only when non-zero and without trailing
/// zeros, years beyond 9999 with '+' and negative years with '-'. `units_per_second` is
/// 1e6 or 1e9.
std::string FormatIsoDateTime(int64_t value, int64_t units_per_second);

/// java.time.LocalTime.toString of microseconds since midnight: "HH:mm", then ":ss" when
/// seconds or the fraction are non-zero, then the fraction in groups of three digits.
std::string FormatLocalTime(int64_t micros);

}  // namespace floe
