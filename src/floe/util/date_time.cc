#include "floe/util/date_time.h"

#include <cstdio>

namespace floe {

// Howard Hinnant's days_from_civil / civil_from_days, which are exact over int64 day numbers
// (they work in 400-year eras, so no table or library range limit applies).
CivilDate CivilFromDays(int64_t days) {
  int64_t z = days + 719468;
  int64_t era = FloorDiv(z, 146097);
  int64_t day_of_era = z - era * 146097;
  int64_t year_of_era =
      (day_of_era - day_of_era / 1460 + day_of_era / 36524 - day_of_era / 146096) / 365;
  int64_t year = year_of_era + era * 400;
  int64_t day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
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
  int64_t day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
  return era * 146097 + day_of_era - 719468;
}

std::string FormatDate(int64_t days) {
  CivilDate date = CivilFromDays(days);
  char buffer[48];
  std::snprintf(buffer, sizeof(buffer), "%04lld-%02d-%02d", static_cast<long long>(date.year),
                date.month, date.day);
  return buffer;
}

}  // namespace floe
