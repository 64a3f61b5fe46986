// A partition or sort transform as the spec names it: identity, bucket[N], truncate[W],
// year, month, day, hour, void, or an unknown transform kept by its text. This is the
// transform's identity and typing; the kernels that compute values live in
// floe/transform.
#pragma once

#include <string>
#include <string_view>

#include "floe/types/type.h"

namespace floe::iceberg {

enum class TransformKind {
  kIdentity,
  kBucket,
  kTruncate,
  kYear,
  kMonth,
  kDay,
  kHour,
  kVoid,
  kUnknown
};

/// A value type.
class Transform {
 public:
  Transform() = default;

  /// Parses a transform name as iceberg-java's Transforms.fromString does (names are
  /// case-insensitive; "bucket[N]"/"truncate[W]" need N, W > 0). Text that names no known
  /// transform gives kUnknown, keeping the text. A non-positive width gives
  /// InvalidMetadata.
  static arrow::Result<Transform> Parse(std::string_view text);

  static Transform Identity() { return Transform(TransformKind::kIdentity, 0); }
  static Transform Bucket(int buckets) {
    return Transform(TransformKind::kBucket, buckets);
  }
  static Transform Truncate(int width) {
    return Transform(TransformKind::kTruncate, width);
  }
  static Transform Year() { return Transform(TransformKind::kYear, 0); }
  static Transform Month() { return Transform(TransformKind::kMonth, 0); }
  static Transform Day() { return Transform(TransformKind::kDay, 0); }
  static Transform Hour() { return Transform(TransformKind::kHour, 0); }
  static Transform Void() { return Transform(TransformKind::kVoid, 0); }

  TransformKind kind() const { return kind_; }
  /// N of bucket[N], W of truncate[W]; 0 otherwise.
  int parameter() const { return parameter_; }

  /// The canonical name iceberg-java writes ("bucket[16]", "day", ...), or the original
  /// text of an unknown transform.
  std::string ToString() const;
  /// The suffix iceberg-java's PartitionSpec builder appends to the source name for a
  /// default partition field name ("" for identity, "_bucket", "_trunc", "_year", ...,
  /// "_null").
  std::string_view DefaultNameSuffix() const;

  /// True when iceberg-java's canTransform accepts `source` for this transform.
  bool CanTransform(const Type& source) const;
  /// The partition value's type for `source`: int for bucket/year/month/hour, date for
  /// day, the source type otherwise.
  TypePtr ResultType(const TypePtr& source) const;
  /// True when the transform keeps the order of values (everything but bucket and
  /// unknown).
  bool PreservesOrder() const;

  bool operator==(const Transform& other) const = default;

 private:
  Transform(TransformKind kind, int parameter) : kind_(kind), parameter_(parameter) {}

  TransformKind kind_ = TransformKind::kIdentity;
  int parameter_ = 0;
  std::string unknown_text_;
};

}  // namespace floe::iceberg
