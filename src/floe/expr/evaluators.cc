#include "floe/expr/evaluators.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "arrow/array.h"
#include "floe/types/arrow_value.h"
#include "floe/util/error.h"

namespace floe {
namespace {

constexpr size_t kInLimit = 200;

bool IsNaNValue(const Value& value) {
  if (const float* f = std::get_if<float>(&value)) return std::isnan(*f);
  if (const double* d = std::get_if<double>(&value)) return std::isnan(*d);
  return false;
}

bool IsZero(const Value& value) {
  if (const float* f = std::get_if<float>(&value)) return *f == 0.0f;
  if (const double* d = std::get_if<double>(&value)) return *d == 0.0;
  return false;
}

// Bounds are ordered like iceberg-java (-0.0 < 0.0) but rows compare by IEEE 754 (-0.0 ==
// 0.0): comparing a bound with a literal treats the two zeros as equal, which is what
// makes a bound decision agree with the rows it bounds.
int Compare(const Value& bound, const Value& literal) {
  if (IsZero(bound) && IsZero(literal)) return 0;
  return CompareValues(bound, literal);
}

bool StartsWith(const std::string& text, const std::string& prefix) {
  return text.compare(0, prefix.size(), prefix) == 0;
}

bool EqualMightMatch(const ColumnSummary& summary, const Value& literal) {
  if (summary.lower && Compare(*summary.lower, literal) > 0) return false;
  if (summary.upper && Compare(*summary.upper, literal) < 0) return false;
  return true;
}

}  // namespace

bool MightMatch(const Expression& filter, const SummaryLookup& lookup) {
  switch (filter.op) {
    case Operation::kTrue:
      return true;
    case Operation::kFalse:
      return false;
    case Operation::kAnd:
      return MightMatch(*filter.left, lookup) && MightMatch(*filter.right, lookup);
    case Operation::kOr:
      return MightMatch(*filter.left, lookup) || MightMatch(*filter.right, lookup);
    case Operation::kNot:
      return true;  // bound filters have no NOT; never prune on one
    default:
      break;
  }
  const ColumnSummary* summary = lookup(filter.field_id);
  if (summary == nullptr) return true;
  const ColumnSummary& s = *summary;
  switch (filter.op) {
    case Operation::kIsNull:
      return s.has_null != false;
    case Operation::kNotNull:
      return s.all_null != true;
    case Operation::kIsNaN:
      return s.has_nan != false && s.all_null != true;
    case Operation::kNotNaN:
      return s.all_nan != true;
    default:
      break;
  }
  // Every other predicate needs a non-null value; all but != and NOT IN a non-NaN one.
  if (s.all_null == true) return false;
  const bool negative = filter.op == Operation::kNotEq ||
                        filter.op == Operation::kNotIn ||
                        filter.op == Operation::kNotStartsWith;
  if (s.all_nan == true && !negative) return false;
  switch (filter.op) {
    case Operation::kLt:
      return !s.lower || Compare(*s.lower, filter.value()) < 0;
    case Operation::kLtEq:
      return !s.lower || Compare(*s.lower, filter.value()) <= 0;
    case Operation::kGt:
      return !s.upper || Compare(*s.upper, filter.value()) > 0;
    case Operation::kGtEq:
      return !s.upper || Compare(*s.upper, filter.value()) >= 0;
    case Operation::kEq:
      return EqualMightMatch(s, filter.value());
    case Operation::kIn: {
      if (filter.values.size() > kInLimit) return true;
      for (const auto& value : filter.values) {
        if (EqualMightMatch(s, value)) return true;
      }
      return false;
    }
    case Operation::kNotEq:
      // Only a summary of one value can show that every row equals the literal.
      return !(s.exact && s.lower && s.has_nan != true &&
               Compare(*s.lower, filter.value()) == 0);
    case Operation::kNotIn: {
      if (!s.exact || !s.lower || s.has_nan == true) return true;
      for (const auto& value : filter.values) {
        if (Compare(*s.lower, value) == 0) return false;
      }
      return true;
    }
    case Operation::kStartsWith: {
      const auto* prefix = std::get_if<std::string>(&filter.value());
      if (prefix == nullptr) return true;
      // Bounds cut to the prefix's length bracket every value's prefix (byte order is
      // code point order in UTF-8).
      if (s.lower) {
        if (const auto* lower = std::get_if<std::string>(&*s.lower)) {
          if (lower->compare(0, prefix->size(), *prefix) > 0) return false;
        }
      }
      if (s.upper) {
        if (const auto* upper = std::get_if<std::string>(&*s.upper)) {
          if (upper->compare(0, prefix->size(), *prefix) < 0) return false;
        }
      }
      return true;
    }
    case Operation::kNotStartsWith: {
      const auto* prefix = std::get_if<std::string>(&filter.value());
      if (prefix == nullptr || !s.exact || !s.lower) return true;
      const auto* value = std::get_if<std::string>(&*s.lower);
      return value == nullptr || !StartsWith(*value, *prefix);
    }
    default:
      return true;
  }
}

namespace {

// The bound's order against the literal, or none when they are of different types (a
// bound written before a type promotion): nothing is proved from such a bound.
std::optional<int> StrictCompare(const std::optional<Value>& bound,
                                 const Value& literal) {
  if (!bound || bound->index() != literal.index() || IsNaNValue(literal)) {
    return std::nullopt;
  }
  return Compare(*bound, literal);
}

}  // namespace

bool MustMatch(const Expression& filter, const SummaryLookup& lookup) {
  switch (filter.op) {
    case Operation::kTrue:
      return true;
    case Operation::kFalse:
      return false;
    case Operation::kAnd:
      return MustMatch(*filter.left, lookup) && MustMatch(*filter.right, lookup);
    case Operation::kOr:
      return MustMatch(*filter.left, lookup) || MustMatch(*filter.right, lookup);
    case Operation::kNot:
      return false;  // bound filters have no NOT; prove nothing from one
    default:
      break;
  }
  const ColumnSummary* summary = lookup(filter.field_id);
  if (summary == nullptr) return false;
  const ColumnSummary& s = *summary;
  switch (filter.op) {
    case Operation::kIsNull:
      return s.all_null == true;
    case Operation::kNotNull:
      return s.has_null == false;
    case Operation::kIsNaN:
      return s.all_nan == true && s.has_null == false;
    case Operation::kNotNaN:
      return s.has_nan == false && s.has_null == false;
    default:
      break;
  }
  // Every other predicate is unknown (not satisfied) on a null row.
  if (s.has_null != false) return false;
  switch (filter.op) {
    case Operation::kLt:
    case Operation::kLtEq: {
      if (s.has_nan != false) return false;  // NaN satisfies no order
      auto order = StrictCompare(s.upper, filter.value());
      return order && (filter.op == Operation::kLt ? *order < 0 : *order <= 0);
    }
    case Operation::kGt:
    case Operation::kGtEq: {
      if (s.has_nan != false) return false;
      auto order = StrictCompare(s.lower, filter.value());
      return order && (filter.op == Operation::kGt ? *order > 0 : *order >= 0);
    }
    case Operation::kEq: {
      if (s.has_nan != false) return false;
      auto low = StrictCompare(s.lower, filter.value());
      auto high = StrictCompare(s.upper, filter.value());
      return low && high && *low == 0 && *high == 0;
    }
    case Operation::kIn: {
      if (s.has_nan != false || filter.values.size() > kInLimit || !s.lower || !s.upper)
        return false;
      auto same = StrictCompare(s.upper, *s.lower);
      if (!same || *same != 0) return false;
      for (const auto& value : filter.values) {
        auto order = StrictCompare(s.lower, value);
        if (order && *order == 0) return true;
      }
      return false;
    }
    case Operation::kNotEq: {
      // NaN differs from every number; the other rows lie within the bounds.
      if (s.all_nan == true) return true;
      auto low = StrictCompare(s.lower, filter.value());
      auto high = StrictCompare(s.upper, filter.value());
      return (low && *low > 0) || (high && *high < 0);
    }
    case Operation::kNotIn: {
      if (s.all_nan == true) return true;
      if (filter.values.size() > kInLimit) return false;
      for (const auto& value : filter.values) {
        auto low = StrictCompare(s.lower, value);
        auto high = StrictCompare(s.upper, value);
        if (!((low && *low > 0) || (high && *high < 0))) return false;
      }
      return true;
    }
    case Operation::kStartsWith: {
      const auto* prefix = std::get_if<std::string>(&filter.value());
      if (prefix == nullptr || !s.lower || !s.upper) return false;
      const auto* lower = std::get_if<std::string>(&*s.lower);
      const auto* upper = std::get_if<std::string>(&*s.upper);
      // The strings starting with a prefix are one interval of the byte order: bounds
      // both in it keep every value in it.
      return lower != nullptr && upper != nullptr && StartsWith(*lower, *prefix) &&
             StartsWith(*upper, *prefix);
    }
    case Operation::kNotStartsWith: {
      // Proved only on a partition's one value (the metrics evaluator proves nothing).
      const auto* prefix = std::get_if<std::string>(&filter.value());
      if (!s.exact || prefix == nullptr || !s.lower) return false;
      const auto* value = std::get_if<std::string>(&*s.lower);
      return value != nullptr && !StartsWith(*value, *prefix);
    }
    default:
      return false;
  }
}

ColumnSummary SummaryFromValue(const Value& value, const Type& type) {
  ColumnSummary summary;
  summary.exact = true;
  const bool null = IsNull(value);
  const bool nan = IsNaNValue(value);
  summary.has_null = null;
  summary.all_null = null;
  summary.has_nan = nan;
  summary.all_nan = nan;
  if (!null && !nan) {
    summary.lower = value;
    summary.upper = value;
  }
  (void)type;
  return summary;
}

}  // namespace floe
