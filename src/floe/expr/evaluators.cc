#include "floe/expr/evaluators.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "arrow/array.h"
#include "arrow/array/util.h"
#include "floe/spec/arrow_value.h"
#include "floe/transform/transform_kernels.h"
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

arrow::Result<Value> TransformValue(const Transform& transform, const TypePtr& source,
                                    const Value& value) {
  ARROW_ASSIGN_OR_RAISE(auto scalar, ValueToArrowScalar(value, *source));
  ARROW_ASSIGN_OR_RAISE(auto array, arrow::MakeArrayFromScalar(*scalar, 1));
  ARROW_ASSIGN_OR_RAISE(auto result, ApplyTransform(transform, *source, array));
  TypePtr result_type = transform.ResultType(source);
  return ValueFromArrow(*result, 0, *result_type);
}

namespace {

// Subtracts or adds one unit of a date, time or timestamp value; nullopt at the type's
// edge.
std::optional<Value> Step(const Value& value, int direction) {
  if (const int32_t* v = std::get_if<int32_t>(&value)) {
    int64_t next = int64_t{*v} + direction;
    if (next < INT32_MIN || next > INT32_MAX) return std::nullopt;
    return Value{static_cast<int32_t>(next)};
  }
  if (const int64_t* v = std::get_if<int64_t>(&value)) {
    if ((direction < 0 && *v == INT64_MIN) || (direction > 0 && *v == INT64_MAX))
      return std::nullopt;
    return Value{*v + direction};
  }
  if (const Decimal* v = std::get_if<Decimal>(&value)) {
    return Value{Decimal{v->unscaled + direction}};  // 38 digits: never overflows
  }
  return std::nullopt;
}

bool IsTemporal(TransformKind kind) {
  return kind == TransformKind::kYear || kind == TransformKind::kMonth ||
         kind == TransformKind::kDay || kind == TransformKind::kHour;
}

// Widens a temporal partition value for files that old writers partitioned by truncating
// pre-1970 values toward zero (their value is one above the floor).
bool NeedsPreEpochFix(const Transform& transform, const Value& result) {
  if (!IsTemporal(transform.kind())) return false;
  const int32_t* v = std::get_if<int32_t>(&result);
  return v != nullptr && *v < 0;
}

Value PlusOne(const Value& result) { return Value{std::get<int32_t>(result) + 1}; }

arrow::Result<ExpressionPtr> ProjectPredicate(const Expression& predicate,
                                              const PartitionField& field,
                                              const TypePtr& source_type,
                                              const TypePtr& result_type) {
  const Transform& transform = field.transform;
  const Type& source = *source_type;
  auto make = [&](Operation op, std::vector<Value> values = {}) {
    return MakeBoundPredicate(op, field.field_id, result_type, std::move(values),
                              field.name);
  };
  if (transform.kind() == TransformKind::kVoid ||
      transform.kind() == TransformKind::kUnknown) {
    return AlwaysTrue();
  }
  switch (predicate.op) {
    case Operation::kIsNull:
    case Operation::kNotNull:
      return make(predicate.op);
    case Operation::kIsNaN:
    case Operation::kNotNaN:
      return transform.kind() == TransformKind::kIdentity ? make(predicate.op)
                                                          : AlwaysTrue();
    default:
      break;
  }
  if (transform.kind() == TransformKind::kIdentity)
    return make(predicate.op, predicate.values);

  auto apply = [&](const Value& value) {
    return TransformValue(transform, source_type, value);
  };
  const bool bucket = transform.kind() == TransformKind::kBucket;
  const bool truncate = transform.kind() == TransformKind::kTruncate;
  switch (predicate.op) {
    case Operation::kEq:
    case Operation::kIn: {
      std::vector<Value> results;
      for (const auto& value : predicate.values) {
        ARROW_ASSIGN_OR_RAISE(auto r, apply(value));
        results.push_back(r);
        if (NeedsPreEpochFix(transform, r)) results.push_back(PlusOne(r));
      }
      std::sort(results.begin(), results.end(),
                [](const Value& a, const Value& b) { return CompareValues(a, b) < 0; });
      results.erase(std::unique(results.begin(), results.end(),
                                [](const Value& a, const Value& b) {
                                  return CompareValues(a, b) == 0;
                                }),
                    results.end());
      if (results.size() == 1) return make(Operation::kEq, std::move(results));
      return make(Operation::kIn, std::move(results));
    }
    default:
      break;
  }
  if (bucket) return AlwaysTrue();
  // truncate and the temporal transforms keep order (non-decreasing). Over the
  // integer-like sources (dates, timestamps, int, long, decimal) a strict bound closes
  // first, as iceberg-java's ProjectionUtil.truncate{Integer,Long,Decimal} do; over
  // strings and binary it cannot (truncateArray).
  const bool closes =
      IsTemporal(transform.kind()) ||
      (truncate && (source.id() == TypeId::kInt || source.id() == TypeId::kLong ||
                    source.id() == TypeId::kDecimal));
  switch (predicate.op) {
    case Operation::kLt:
    case Operation::kLtEq: {
      Value bound = predicate.value();
      if (predicate.op == Operation::kLt && closes) {
        // x < v is x <= v - 1 unit.
        auto stepped = Step(bound, -1);
        if (!stepped) return AlwaysFalse();
        bound = *stepped;
      }
      ARROW_ASSIGN_OR_RAISE(auto r, apply(bound));
      if (NeedsPreEpochFix(transform, r)) r = PlusOne(r);
      return make(Operation::kLtEq, {r});
    }
    case Operation::kGt:
    case Operation::kGtEq: {
      Value bound = predicate.value();
      if (predicate.op == Operation::kGt && closes) {
        auto stepped = Step(bound, 1);
        if (!stepped) return AlwaysFalse();
        bound = *stepped;
      }
      ARROW_ASSIGN_OR_RAISE(auto r, apply(bound));
      return make(Operation::kGtEq, {r});
    }
    case Operation::kStartsWith: {
      if (!truncate || source.id() != TypeId::kString) return AlwaysTrue();
      const auto& prefix = std::get<std::string>(predicate.value());
      ARROW_ASSIGN_OR_RAISE(auto r, apply(predicate.value()));
      // A prefix at least as long as the width pins the partition value.
      if (std::get<std::string>(r).size() < prefix.size())
        return make(Operation::kEq, {r});
      return make(Operation::kStartsWith, {r});
    }
    default:
      return AlwaysTrue();
  }
}

// The length of `text` in UTF-16 code units, as Java's String.length() counts it.
size_t Utf16Length(const std::string& text) {
  size_t length = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if ((byte & 0xC0) == 0x80) continue;  // a continuation byte
    length += byte >= 0xF0 ? 2 : 1;       // four bytes: a surrogate pair
  }
  return length;
}

// iceberg-java's ProjectionUtil.fixStrictTimeProjection: files that writers before 0.10.1
// partitioned by truncating pre-1970 values toward zero hold partition values one above
// the floor, so a lower bound at or below zero, and an excluded negative value, widen.
ExpressionPtr FixStrictTimeProjection(const ExpressionPtr& projected) {
  if (projected == nullptr) return nullptr;
  auto plus_one = [](const Value& value) { return Value{std::get<int32_t>(value) + 1}; };
  auto negative = [](const Value& value) {
    const int32_t* v = std::get_if<int32_t>(&value);
    return v != nullptr && *v < 0;
  };
  auto remake = [&](Operation op, std::vector<Value> values) {
    return MakeBoundPredicate(op, projected->field_id, projected->type, std::move(values),
                              projected->column);
  };
  switch (projected->op) {
    case Operation::kGt:
    case Operation::kGtEq: {
      const int32_t* v = std::get_if<int32_t>(&projected->value());
      if (v != nullptr && *v <= 0) return remake(projected->op, {Value{*v + 1}});
      return projected;
    }
    case Operation::kNotEq:
      if (negative(projected->value())) {
        return remake(Operation::kNotIn,
                      {projected->value(), plus_one(projected->value())});
      }
      return projected;
    case Operation::kNotIn: {
      std::vector<Value> values = projected->values;
      for (const auto& value : projected->values) {
        if (negative(value)) values.push_back(plus_one(value));
      }
      return remake(Operation::kNotIn, std::move(values));
    }
    default:
      return projected;  // kLt: the correct bound is strict for the old values too
  }
}

// iceberg-java's Transform.projectStrict for one partition field: a predicate over the
// field's value that only partitions whose every row satisfies `predicate` satisfy, or
// nullptr when the transform has none (equality through a lossy transform, an order
// through a bucket, ...).
arrow::Result<ExpressionPtr> ProjectStrictPredicate(const Expression& predicate,
                                                    const PartitionField& field,
                                                    const TypePtr& source_type,
                                                    const TypePtr& result_type) {
  const Transform& transform = field.transform;
  const TransformKind kind = transform.kind();
  auto make = [&](Operation op, std::vector<Value> values = {}) -> ExpressionPtr {
    return MakeBoundPredicate(op, field.field_id, result_type, std::move(values),
                              field.name);
  };
  if (kind == TransformKind::kVoid || kind == TransformKind::kUnknown) return nullptr;
  if (kind == TransformKind::kIdentity) return make(predicate.op, predicate.values);
  switch (predicate.op) {
    case Operation::kIsNull:
    case Operation::kNotNull:
    case Operation::kIsNaN:
    case Operation::kNotNaN:
      return make(predicate.op);
    default:
      break;
  }
  auto apply = [&](const Value& value) {
    return TransformValue(transform, source_type, value);
  };
  const TypeId source = source_type->id();
  // Dates' day transform is exact: no pre-1970 fix (iceberg-java's Dates.projectStrict).
  const bool fix =
      IsTemporal(kind) && !(kind == TransformKind::kDay && source == TypeId::kDate);
  auto fixed = [&](const ExpressionPtr& projected) {
    return fix ? FixStrictTimeProjection(projected) : projected;
  };
  if (predicate.op == Operation::kNotIn) {
    std::vector<Value> results;
    for (const auto& value : predicate.values) {
      ARROW_ASSIGN_OR_RAISE(auto r, apply(value));
      results.push_back(std::move(r));
    }
    return fixed(make(Operation::kNotIn, std::move(results)));
  }
  if (kind == TransformKind::kBucket) {
    if (predicate.op != Operation::kNotEq) return nullptr;
    ARROW_ASSIGN_OR_RAISE(auto r, apply(predicate.value()));
    return make(Operation::kNotEq, {r});
  }
  if (predicate.values.size() != 1) return nullptr;
  const Value& literal = predicate.value();
  const bool text =
      source == TypeId::kString || source == TypeId::kBinary || source == TypeId::kFixed;
  if (text) {
    if (source == TypeId::kString && (predicate.op == Operation::kStartsWith ||
                                      predicate.op == Operation::kNotStartsWith)) {
      const bool starts = predicate.op == Operation::kStartsWith;
      const auto& prefix = std::get<std::string>(literal);
      const size_t length = Utf16Length(prefix);
      const auto width = static_cast<size_t>(transform.parameter());
      if (length < width) return make(predicate.op, {literal});
      if (length == width)
        return make(starts ? Operation::kEq : Operation::kNotEq, {literal});
      if (starts) return nullptr;
      ARROW_ASSIGN_OR_RAISE(auto r, apply(literal));
      return make(Operation::kNotStartsWith, {r});
    }
    // ProjectionUtil.truncateArrayStrict
    Operation op;
    switch (predicate.op) {
      case Operation::kLt:
      case Operation::kLtEq:
        op = Operation::kLt;
        break;
      case Operation::kGt:
      case Operation::kGtEq:
        op = Operation::kGt;
        break;
      case Operation::kNotEq:
        op = Operation::kNotEq;
        break;
      default:
        return nullptr;
    }
    ARROW_ASSIGN_OR_RAISE(auto r, apply(literal));
    return make(op, {r});
  }
  // ProjectionUtil.truncate{Integer,Long,Decimal}Strict: the integer-like sources
  // (int, long, decimal, and dates and timestamps through the temporal transforms).
  Operation op;
  std::optional<Value> bound = literal;
  switch (predicate.op) {
    case Operation::kLt:
      op = Operation::kLt;
      break;
    case Operation::kLtEq:
      op = Operation::kLt;
      bound = Step(literal, 1);
      break;
    case Operation::kGt:
      op = Operation::kGt;
      break;
    case Operation::kGtEq:
      op = Operation::kGt;
      bound = Step(literal, -1);
      break;
    case Operation::kNotEq:
      op = Operation::kNotEq;
      break;
    default:
      return nullptr;  // no predicate on the partition proves equality
  }
  if (!bound) return nullptr;  // at the type's edge
  ARROW_ASSIGN_OR_RAISE(auto r, apply(*bound));
  return fixed(make(op, {r}));
}

enum class Projection { kInclusive, kStrict };

// iceberg-java's Projections.inclusive or .strict over a bound `filter` (without NOT):
// the tree kept, each predicate replaced by its fields' projections. Inclusive ANDs them
// (a predicate no field projects is TRUE: it prunes nothing); strict ORs them (none is
// FALSE: it proves nothing). A literal the kernels cannot transform counts as none.
ExpressionPtr ProjectTree(const ExpressionPtr& filter, const PartitionSpec& spec,
                          const Schema& schema, const std::vector<TypePtr>& result_types,
                          Projection mode) {
  const bool strict = mode == Projection::kStrict;
  switch (filter->op) {
    case Operation::kTrue:
    case Operation::kFalse:
      return filter;
    case Operation::kAnd:
      return MakeAnd(ProjectTree(filter->left, spec, schema, result_types, mode),
                     ProjectTree(filter->right, spec, schema, result_types, mode));
    case Operation::kOr:
      return MakeOr(ProjectTree(filter->left, spec, schema, result_types, mode),
                    ProjectTree(filter->right, spec, schema, result_types, mode));
    case Operation::kNot:
      return strict ? AlwaysFalse() : AlwaysTrue();
    default:
      break;
  }
  ExpressionPtr projected = strict ? AlwaysFalse() : AlwaysTrue();
  const NestedField* source = schema.FindField(filter->field_id);
  if (source == nullptr) return projected;
  for (size_t i = 0; i < spec.fields().size(); ++i) {
    const auto& field = spec.fields()[i];
    if (field.source_id != filter->field_id || !result_types[i]) continue;
    auto one = strict
                   ? ProjectStrictPredicate(*filter, field, source->type, result_types[i])
                   : ProjectPredicate(*filter, field, source->type, result_types[i]);
    if (!one.ok() || *one == nullptr) continue;
    projected = strict ? MakeOr(projected, *one) : MakeAnd(projected, *one);
  }
  return projected;
}

std::vector<TypePtr> PartitionResultTypes(const PartitionSpec& spec,
                                          const Schema& schema) {
  std::vector<TypePtr> result_types;
  for (const auto& field : spec.fields()) {
    const NestedField* source = schema.FindField(field.source_id);
    result_types.push_back(source && field.transform.CanTransform(*source->type)
                               ? field.transform.ResultType(source->type)
                               : nullptr);
  }
  return result_types;
}

}  // namespace

ExpressionPtr ProjectStrict(const ExpressionPtr& filter, const PartitionSpec& spec,
                            const Schema& schema) {
  return ProjectTree(RewriteNot(filter), spec, schema, PartitionResultTypes(spec, schema),
                     Projection::kStrict);
}

arrow::Result<ExpressionPtr> ProjectInclusive(const ExpressionPtr& filter,
                                              const PartitionSpec& spec,
                                              const Schema& schema) {
  return ProjectTree(filter, spec, schema, PartitionResultTypes(spec, schema),
                     Projection::kInclusive);
}

}  // namespace floe
