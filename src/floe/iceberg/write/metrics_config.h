// Which column metrics a data file records, by iceberg-java's MetricsConfig rules.
#pragma once

#include <map>
#include <string>

#include "floe/iceberg/spec/sort_order.h"
#include "floe/iceberg/spec/table_properties.h"
#include "floe/types/schema.h"

namespace floe::iceberg {

/// A column's metrics mode: none, counts, truncate(length) or full.
struct MetricsMode {
  enum class Kind { kNone, kCounts, kTruncate, kFull };
  Kind kind = Kind::kTruncate;
  int length = 16;  ///< For kTruncate.

  static MetricsMode None() { return {Kind::kNone, 0}; }
  static MetricsMode Counts() { return {Kind::kCounts, 0}; }
  static MetricsMode Truncate(int length) { return {Kind::kTruncate, length}; }
  static MetricsMode Full() { return {Kind::kFull, 0}; }
  /// MetricsModes.fromString: none/counts/full in any case, truncate(N) with N > 0.
  /// nullopt for anything else.
  static std::optional<MetricsMode> Parse(std::string_view text);
  std::string ToString() const;
  bool operator==(const MetricsMode&) const = default;
};

/// The mode of every column of a schema. Immutable; built once per write.
class MetricsConfig {
 public:
  /// Applies, in iceberg-java's order: write.metadata.metrics.default (invalid values
  /// fall back to truncate(16)); when that is unset and the schema has more columns than
  /// write.metadata.metrics.max-inferred-column-defaults (100), none for all but the
  /// first 100 primitive columns in breadth-first order; sort-order columns promoted to
  /// truncate(16) when the default is none or counts; then
  /// write.metadata.metrics.column.* per column (by full name).
  static MetricsConfig Make(const Schema& schema, const PropertyMap& properties,
                            const SortOrder& sort_order);

  /// The mode of a field id (the default for ids without their own mode).
  MetricsMode ModeOf(int field_id) const;
  const MetricsMode& default_mode() const { return default_mode_; }

 private:
  MetricsMode default_mode_;
  std::map<int, MetricsMode> column_modes_;
};

}  // namespace floe::iceberg
