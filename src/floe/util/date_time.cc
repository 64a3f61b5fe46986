#include "floe/util/date_time.h"

#include <cstdio>

namespace floe {

// Howard Hinnant's days_from_civil / civil_from_days, which are exact over int64 day
// numbers (they work in 400-year eras, so no table or library range limit applies).
CivilDate CivilFromDays(int64_t days) {
  int64_t z = days + 719468;
  int64_t era = FloorDiv(z, 146097);
  int64_t day_of_era = z - era * 146097;
  int64_t year_of_era =
      (day_of_era - day_of_era / 1460 + day_of_era / 36524 - day_of_era / 146096) / 365;
  int64_t year = year_of_era + era * 400;
  int64_t day_of_year =
      day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
  int64_t month_index = (5 * day_of_year + 2) / 153;
  int day = static_cast<int>(day_of_year - (153 * month_index + 2) / 5 + 1);
  int month = static_cast<int>(month_index < 10 ? month_index + 3 : month_index - 9);
  return CivilDate{month <= 2 ? year + 1 : year, month, day};
}

int64_t DaysFromCivil(int64_t year, int month, int day) {
  year -= month <= 2 ? 1 : 0;
  int64_t era = FloorDiv(year, 400);
  int64_t year_of_era = year - era * 400;
  int64_t month_index = month > 2 ? month - 3 : month + 9;
  int64_t day_of_year = (153 * month_index + 2) / 5 + day - 1;
  int64_t day_of_era =
      year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
  return era * 146097 + day_of_era - 719468;
}

std::string FormatDate(int64_t days) {
  CivilDate date = CivilFromDays(days);
  char buffer[48];
  std::snprintf(buffer, sizeof(buffer), "%04lld-%02d-%02d",
                static_cast<long long>(date.year), date.month, date.day);
  return buffer;
}

namespace {

// Year as java.time's ISO formatters print it: at least four digits, '-' for negative
// years and
// '+' for years beyond 9999 (SignStyle.EXCEEDS_PAD).
std::string IsoYear(int64_t year) {
  char buffer[32];
  if (year < 0) {
    std::snprintf(buffer, sizeof(buffer), "-%04lld", static_cast<long long>(-year));
  } else if (year > 9999) {
    std::snprintf(buffer, sizeof(buffer), "+%lld", static_cast<long long>(year));
  } else {
    std::snprintf(buffer, sizeof(buffer), "%04lld", static_cast<long long>(year));
  }
  return buffer;
}

}  // namespace

// DateTimeFormatter.ISO_LOCAL_DATE_TIME of an instant in `unit`s since the epoch (UTC).
std::string FormatIsoDateTime(int64_t value, int64_t units_per_second) {
  int64_t units_per_day = units_per_second * 86400;
  int64_t days = FloorDiv(value, units_per_day);
  int64_t within_day = FloorMod(value, units_per_day);
  int64_t seconds = within_day / units_per_second;
  int64_t fraction = within_day % units_per_second;
  CivilDate date = CivilFromDays(days);
  char buffer[96];
  std::snprintf(buffer, sizeof(buffer), "%s-%02d-%02dT%02lld:%02lld:%02lld",
                IsoYear(date.year).c_str(), date.month, date.day,
                static_cast<long long>(seconds / 3600),
                static_cast<long long>(seconds / 60 % 60),
                static_cast<long long>(seconds % 60));
  std::string text = buffer;
  if (fraction != 0) {
    // Nanoseconds, trailing zeros dropped (appendFraction(NANO_OF_SECOND, 0, 9, true)).
    int64_t nanos = fraction * (1000000000 / units_per_second);
    char digits[16];
    std::snprintf(digits, sizeof(digits), "%09lld", static_cast<long long>(nanos));
    std::string fraction_text = digits;
    while (!fraction_text.empty() && fraction_text.back() == '0')
      fraction_text.pop_back();
    text += "." + fraction_text;
  }
  return text;
}

// LocalTime.toString: HH:mm, then :ss when seconds or nanos are non-zero, then the
// fraction in groups of three digits.
std::string FormatLocalTime(int64_t micros) {
  int64_t seconds = micros / 1000000;
  int64_t nanos = (micros % 1000000) * 1000;
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%02lld:%02lld",
                static_cast<long long>(seconds / 3600),
                static_cast<long long>(seconds / 60 % 60));
  std::string text = buffer;
  if (seconds % 60 == 0 && nanos == 0) return text;
  std::snprintf(buffer, sizeof(buffer), ":%02lld", static_cast<long long>(seconds % 60));
  text += buffer;
  if (nanos == 0) return text;
  if (nanos % 1000000 == 0) {
    std::snprintf(buffer, sizeof(buffer), ".%03lld",
                  static_cast<long long>(nanos / 1000000));
  } else if (nanos % 1000 == 0) {
    std::snprintf(buffer, sizeof(buffer), ".%06lld",
                  static_cast<long long>(nanos / 1000));
  } else {
    std::snprintf(buffer, sizeof(buffer), ".%09lld", static_cast<long long>(nanos));
  }
  return text + buffer;
}

}  // namespace floe
