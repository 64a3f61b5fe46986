// Delta's interval-valued table properties (delta.deletedFileRetentionDuration,
// delta.logRetentionDuration, delta.setTransactionRetentionDuration, ...), read exactly
// as delta-spark reads them: DeltaConfigs.parseCalendarInterval over Spark's
// IntervalUtils.stringToInterval, then DeltaConfigs.getMilliSeconds.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "arrow/result.h"

namespace floe::delta {

/// Spark's CalendarInterval: months, days and microseconds, each kept apart.
struct CalendarInterval {
  int32_t months = 0;
  int32_t days = 0;
  int64_t microseconds = 0;
  bool operator==(const CalendarInterval&) const = default;
};

/// Parses `text` as delta-spark's parseCalendarInterval does: trimmed, any case, an
/// optional "interval" prefix, then one or more "[+|-]number unit" groups separated by
/// white space, with units year, month, week, day, hour, minute, second, millisecond and
/// microsecond (each optionally plural; only seconds take a fraction, to nanosecond
/// digits, kept to microseconds). Spark has no nanosecond unit, so neither does this.
/// Every sum and product is checked: a number or total past Spark's int (months, days)
/// or long (microseconds) is refused, as Spark refuses it. InvalidInput naming the text
/// and what is wrong otherwise. Thread-safe.
arrow::Result<CalendarInterval> ParseCalendarInterval(std::string_view text);

/// An interval property in milliseconds, as delta-spark's getMilliSeconds computes it
/// (days * 86,400,000,000 + microseconds, then divided by 1,000), for a value delta-spark
/// accepts for such a property (isValidIntervalConfigValue: no months or years, not
/// negative). InvalidMetadata naming `key` and the reason when the value does not parse,
/// has months, is negative, or its microseconds overflow a long (where Scala's
/// arithmetic would silently wrap).
arrow::Result<int64_t> IntervalPropertyMillis(std::string_view key,
                                              std::string_view value);

/// The interval property `key` of a table's `configuration` in milliseconds, or
/// `default_ms` when it is unset (see IntervalPropertyMillis for the errors).
arrow::Result<int64_t> IntervalPropertyMillis(
    const std::map<std::string, std::string>& configuration, const std::string& key,
    int64_t default_ms);

}  // namespace floe::delta
