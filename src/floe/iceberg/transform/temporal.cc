#include "floe/iceberg/transform/temporal_internal.h"

#include <limits>

#include "floe/util/date_time.h"

namespace floe::iceberg {
namespace {

constexpr int64_t kSecondsPerDay = 86400;

int64_t MonthsFromEpoch(const CivilDate& date) {
  return (date.year - 1970) * 12 + (date.month - 1);
}

// ChronoUnit.<granularity>.between(1970-01-01T00:00Z, t) where t is `seconds` and
// `fraction` (in units of 1/units_per_second) since the epoch: complete units, truncated
// toward zero.
__int128 Between(__int128 total_units, int64_t units_per_second,
                 TimeGranularity granularity) {
  const __int128 per_day = static_cast<__int128>(units_per_second) * kSecondsPerDay;
  switch (granularity) {
    case TimeGranularity::kHour:
      return total_units / (static_cast<__int128>(units_per_second) * 3600);
    case TimeGranularity::kDay:
      return total_units / per_day;
    case TimeGranularity::kMonth:
    case TimeGranularity::kYear: {
      // LocalDateTime.until: compare dates, moving the end date one day towards the start
      // when its time of day would leave the last day incomplete; then
      // LocalDate.monthsUntil.
      __int128 day = total_units / per_day;
      __int128 time_of_day = total_units % per_day;
      if (time_of_day < 0) {
        day -= 1;
        time_of_day += per_day;
      }
      if (day < 0 && time_of_day > 0) day += 1;
      CivilDate date = CivilFromDays(static_cast<int64_t>(day));
      // (packed end - packed start) / 32 with packed = proleptic month * 32 + day of
      // month.
      __int128 months =
          (static_cast<__int128>(MonthsFromEpoch(date)) * 32 + (date.day - 1)) / 32;
      return granularity == TimeGranularity::kMonth ? months : months / 12;
    }
  }
  return 0;
}

}  // namespace

int32_t TransformDays(int32_t days, TimeGranularity granularity) {
  CivilDate date = CivilFromDays(days);
  switch (granularity) {
    case TimeGranularity::kYear:
      return static_cast<int32_t>(date.year - 1970);
    case TimeGranularity::kMonth:
      return static_cast<int32_t>(MonthsFromEpoch(date));
    case TimeGranularity::kDay:
    case TimeGranularity::kHour:
      return days;
  }
  return days;
}

arrow::Result<int32_t> TransformTimestamp(int64_t value, int64_t units_per_second,
                                          TimeGranularity granularity) {
  __int128 between;
  if (value >= 0) {
    between = Between(value, units_per_second, granularity);
  } else {
    // iceberg-java adds one unit to the fraction but keeps the floored second, so a value
    // whose fraction is all nines lands one second early; the result is then decremented.
    __int128 seconds = FloorDiv(value, units_per_second);
    __int128 fraction = FloorMod(value + 1, units_per_second);  // value < 0: no overflow
    between =
        Between(seconds * units_per_second + fraction, units_per_second, granularity) - 1;
  }
  if (units_per_second == 1000000) {
    // (int) cast of the long, then "- 1" in int arithmetic: both wrap in Java.
    return static_cast<int32_t>(
        static_cast<uint32_t>(static_cast<uint64_t>(static_cast<int64_t>(between))));
  }
  if (between < std::numeric_limits<int32_t>::min() ||
      between > std::numeric_limits<int32_t>::max()) {
    return arrow::Status::Invalid("timestamp_ns transform result does not fit an int");
  }
  return static_cast<int32_t>(between);
}

}  // namespace floe::iceberg
