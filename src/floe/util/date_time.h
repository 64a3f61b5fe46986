// Calendar arithmetic over the whole range Iceberg values can take.
//
// Iceberg dates are days since 1970-01-01 (an int, so years up to 5881580 and back to -5877641)
// and timestamps are micro- or nanoseconds since the epoch (a long, so years up to 294247).
// Library calendars stop short of that (chrono's year range, Arrow's date_part), so floe uses
// these proleptic-Gregorian conversions, exact for every int64 day number that fits.
#pragma once

#include <cstdint>
#include <string>

namespace floe {

/// A proleptic-Gregorian calendar date. `year` may be zero or negative (astronomical numbering).
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

/// Floor division and modulo (round toward negative infinity), as Java's Math.floorDiv/floorMod.
constexpr int64_t FloorDiv(int64_t value, int64_t divisor) {
  int64_t quotient = value / divisor;
  if ((value % divisor != 0) && ((value < 0) != (divisor < 0))) --quotient;
  return quotient;
}
constexpr int64_t FloorMod(int64_t value, int64_t divisor) {
  return value - FloorDiv(value, divisor) * divisor;
}

/// "YYYY-MM-DD" with at least four year digits and a leading '-' for negative years, as Java's
/// String.format("%04d-%02d-%02d") writes it (so year -1 is "-001").
std::string FormatDate(int64_t days);

}  // namespace floe
