#include "floe/delta/calendar_interval.h"

#include <gtest/gtest.h>

#include "floe/util/error.h"

// The same texts are checked against delta-spark's own parser (DeltaConfigs through
// py4j) in tests/interop/test_delta_spark.py; these pin the cases the issue found.
namespace floe::delta {
namespace {

int64_t Millis(std::string_view text) {
  auto millis = IntervalPropertyMillis("delta.deletedFileRetentionDuration", text);
  EXPECT_TRUE(millis.ok()) << text << ": " << millis.status().ToString();
  return millis.ok() ? *millis : -1;
}

TEST(CalendarIntervalTest, EveryUnitAsDeltaSparkReadsIt) {
  EXPECT_EQ(Millis("interval 1 week"), 604'800'000);
  EXPECT_EQ(Millis("interval 7 days"), 604'800'000);
  EXPECT_EQ(Millis("INTERVAL 30 SECONDS"), 30'000);
  EXPECT_EQ(Millis("2 hours"), 7'200'000);
  EXPECT_EQ(Millis("interval 0 seconds"), 0);
  // The one week delta-spark and deltalake read, which floe once read as 0.
  EXPECT_EQ(Millis("interval 604800000000 microseconds"), 604'800'000);
  EXPECT_EQ(Millis("interval 604800000 milliseconds"), 604'800'000);
  EXPECT_EQ(Millis("interval 10080 minutes"), 604'800'000);
  EXPECT_EQ(Millis("interval 1 day 12 hours"), 129'600'000);
  EXPECT_EQ(Millis("interval 2 days -1 hour"), 169'200'000);
  EXPECT_EQ(Millis("interval 1.5 seconds"), 1'500);
  EXPECT_EQ(Millis("interval .5 second"), 500);
  EXPECT_EQ(Millis("interval 1.999999999 seconds"), 1'999);  // micros truncated, then ms
  EXPECT_EQ(Millis("  interval   3   day  "), 259'200'000);
  EXPECT_EQ(Millis("1 microsecond"), 0);
  EXPECT_EQ(Millis("interval + 4 hours"), 14'400'000);
  EXPECT_EQ(Millis("interval 0001 week"), 604'800'000);
}

TEST(CalendarIntervalTest, RefusesWhatDeltaSparkRefusesAndEveryOverflow) {
  for (const char* text : {
           "",
           "interval",
           "interval ",
           "interval one week",
           "interval 3 fortnights",
           "interval 5 nanoseconds",  // Spark's parser has no nanosecond unit
           "interval 604800000000 nanoseconds",
           "interval 1.5 hours",  // only seconds take a fraction
           "interval 1.0000000001 seconds",
           "interval 5days",
           "interval 5",
           "interval\t5 days",  // delta-spark prefixes "interval " to it, which then
                                // fails
           "intervals 5 days",
           "interval 5 dayss",
           "interval 5 days,",
           "interval 2147483648 days",  // days are an int in Spark
           "interval 213503982335 days",
           "interval 306783379 weeks",
           "interval 9223372036854775808 microseconds",
           "interval 9223372036854775807 hours",
           "interval . seconds",
       }) {
    auto parsed = IntervalPropertyMillis("delta.deletedFileRetentionDuration", text);
    ASSERT_FALSE(parsed.ok()) << "'" << text << "' gave " << *parsed;
    EXPECT_EQ(KindOf(parsed.status()), ErrorKind::kInvalidMetadata) << text;
    EXPECT_NE(parsed.status().message().find("delta.deletedFileRetentionDuration"),
              std::string::npos);
  }
  // Parsed by Spark, refused for a retention as delta-spark refuses it: months, years,
  // a negative total, and days whose microseconds overflow a long (which Scala wraps).
  for (const char* text : {"interval 1 month", "interval 1 year", "interval -1 day",
                           "interval 1 day -25 hours", "interval 2147483647 days"}) {
    EXPECT_TRUE(ParseCalendarInterval(text).ok()) << text;
    EXPECT_FALSE(IntervalPropertyMillis("delta.logRetentionDuration", text).ok()) << text;
  }
  EXPECT_EQ(*ParseCalendarInterval("interval 1 year 2 months 3 weeks 4 days 5 hours"),
            (CalendarInterval{14, 25, 5 * 3'600'000'000LL}));
}

TEST(CalendarIntervalTest, AnUnsetPropertyHasItsDefault) {
  EXPECT_EQ(*IntervalPropertyMillis({}, "delta.deletedFileRetentionDuration", 42), 42);
  EXPECT_EQ(*IntervalPropertyMillis({{"delta.deletedFileRetentionDuration", "1 second"}},
                                    "delta.deletedFileRetentionDuration", 42),
            1000);
}

}  // namespace
}  // namespace floe::delta
