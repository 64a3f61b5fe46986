#include "floe/iceberg/write/metrics.h"

#include <gtest/gtest.h>

#include "floe/iceberg/spec/schema_ddl.h"
#include "floe/testing/temp_directory.h"

namespace floe::iceberg {
namespace {

// Expected bounds follow iceberg-java's UnicodeUtil and BinaryUtil (see the reference).
TEST(MetricsTest, TruncatesStringBoundsByCodePoint) {
  EXPECT_EQ(TruncateStringLower("abcdef", 3), "abc");
  EXPECT_EQ(TruncateStringLower("ab", 3), "ab");
  EXPECT_EQ(TruncateStringUpper("abcdef", 3), "abd");
  EXPECT_EQ(TruncateStringUpper("abc", 3),
            "abc");  // not longer than the limit: unchanged
  // Multi-byte code points count once.
  EXPECT_EQ(TruncateStringLower("üüüü", 2), "üü");
  EXPECT_EQ(TruncateStringUpper("üüüü", 2), "üý");
  // U+D7FF increments past the surrogates to U+E000.
  EXPECT_EQ(TruncateStringUpper("a\xED\x9F\xBFzz", 2), "a\xEE\x80\x80");
  // U+10FFFF overflows: the previous code point is incremented instead.
  EXPECT_EQ(TruncateStringUpper("a\xF4\x8F\xBF\xBFzz", 2), "b");
  // Every position overflows: no upper bound.
  EXPECT_FALSE(TruncateStringUpper("\xF4\x8F\xBF\xBF\xF4\x8F\xBF\xBFz", 2).has_value());
}

TEST(MetricsTest, TruncatesBinaryBounds) {
  EXPECT_EQ(TruncateBinaryLower(std::string("\x01\x02\x03", 3), 2),
            std::string("\x01\x02", 2));
  EXPECT_EQ(TruncateBinaryUpper(std::string("\x01\x02\x03", 3), 2),
            std::string("\x01\x03", 2));
  EXPECT_EQ(TruncateBinaryUpper(std::string("\x01\xff\x03", 3), 2),
            std::string("\x02", 1));
  EXPECT_FALSE(TruncateBinaryUpper(std::string("\xff\xff\x03", 3), 2).has_value());
  EXPECT_EQ(TruncateBinaryUpper(std::string("\xff\xff", 2), 2),
            std::string("\xff\xff", 2));
}

TEST(MetricsTest, ParsesModesLikeMetricsModesFromString) {
  EXPECT_EQ(MetricsMode::Parse("None"), MetricsMode::None());
  EXPECT_EQ(MetricsMode::Parse("COUNTS"), MetricsMode::Counts());
  EXPECT_EQ(MetricsMode::Parse("full"), MetricsMode::Full());
  EXPECT_EQ(MetricsMode::Parse("truncate(8)"), MetricsMode::Truncate(8));
  EXPECT_EQ(MetricsMode::Parse("Truncate(8)"), MetricsMode::Truncate(8));
  EXPECT_FALSE(MetricsMode::Parse("truncate(0)").has_value());
  EXPECT_FALSE(MetricsMode::Parse("truncate( 8)").has_value());
  EXPECT_FALSE(MetricsMode::Parse("bogus").has_value());
}

TEST(MetricsTest, ConfigAppliesDefaultsOverridesAndTheInferredCap) {
  FLOE_ASSIGN_OR_FAIL(auto schema,
                      ParseSchemaText("a int, b string, s struct<c: double>"));
  auto defaults = MetricsConfig::Make(*schema, {}, *SortOrder::Unsorted());
  EXPECT_EQ(defaults.ModeOf(1), MetricsMode::Truncate(16));
  const int c = *schema->FindFieldId("s.c");
  auto configured = MetricsConfig::Make(*schema,
                                        {{"write.metadata.metrics.default", "counts"},
                                         {"write.metadata.metrics.column.s.c", "full"},
                                         {"write.metadata.metrics.column.b", "nonsense"}},
                                        *SortOrder::Unsorted());
  EXPECT_EQ(configured.ModeOf(1), MetricsMode::Counts());
  EXPECT_EQ(configured.ModeOf(c), MetricsMode::Full());
  EXPECT_EQ(configured.ModeOf(2),
            MetricsMode::Counts());  // invalid falls back to the default
  // More columns than the cap: only the first `cap` primitives (a struct's own first) get
  // metrics.
  auto capped = MetricsConfig::Make(
      *schema, {{"write.metadata.metrics.max-inferred-column-defaults", "2"}},
      *SortOrder::Unsorted());
  EXPECT_EQ(capped.ModeOf(1), MetricsMode::Truncate(16));
  EXPECT_EQ(capped.ModeOf(2), MetricsMode::Truncate(16));
  EXPECT_EQ(capped.ModeOf(c), MetricsMode::None());
  // Sort columns are promoted when the default is none or counts.
  SortOrder order;
  order.order_id = 1;
  order.fields.push_back(SortField{Transform::Identity(), c});
  order.fields.push_back(
      SortField{Transform::Bucket(4), 2});  // bucket does not keep order
  auto sorted =
      MetricsConfig::Make(*schema, {{"write.metadata.metrics.default", "none"}}, order);
  EXPECT_EQ(sorted.ModeOf(c), MetricsMode::Truncate(16));
  EXPECT_EQ(sorted.ModeOf(1), MetricsMode::None());
  EXPECT_EQ(sorted.ModeOf(2), MetricsMode::None());
}

}  // namespace
}  // namespace floe::iceberg
