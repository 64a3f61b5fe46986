#include "floe/iceberg/expr/projection.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "arrow/array.h"
#include "arrow/array/util.h"
#include "floe/iceberg/transform/transform_kernels.h"
#include "floe/types/arrow_value.h"
#include "floe/util/error.h"

namespace floe::iceberg {

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
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
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

}  // namespace floe::iceberg
