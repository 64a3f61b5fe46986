// The year, month, day and hour transforms exactly as iceberg-java's DateTimeUtil
// computes them, over the whole value range (including its pre-epoch ".999999" quirk and
// its int wrap-around for micro-second hours beyond the int range).
#pragma once

#include <cstdint>

#include "arrow/result.h"

namespace floe::iceberg {

enum class TimeGranularity { kYear, kMonth, kDay, kHour };

/// year, month or day of a date (days since 1970-01-01); always floor division.
int32_t TransformDays(int32_t days, TimeGranularity granularity);

/// year, month, day or hour of a timestamp in micro- (`units_per_second` = 1e6) or
/// nanoseconds (1e9). Micro-second results wrap like Java's (int) cast; a nanosecond
/// result that does not fit an int gives Invalid, as Math.toIntExact throws.
arrow::Result<int32_t> TransformTimestamp(int64_t value, int64_t units_per_second,
                                          TimeGranularity granularity);

}  // namespace floe::iceberg
