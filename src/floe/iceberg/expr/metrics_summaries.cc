#include "floe/iceberg/expr/metrics_summaries_internal.h"

#include <cmath>
#include <cstdint>
#include <map>

#include "floe/types/value.h"

namespace floe::iceberg {
namespace {

bool IsNaNValue(const Value& value) {
  if (const float* f = std::get_if<float>(&value)) return std::isnan(*f);
  if (const double* d = std::get_if<double>(&value)) return std::isnan(*d);
  return false;
}

std::optional<Value> DecodeBound(const std::map<int, Bytes>& bounds, int field_id,
                                 const Type& type) {
  auto found = bounds.find(field_id);
  if (found == bounds.end()) return std::nullopt;
  auto value = FromBinary(found->second.data(), found->second.size(), type);
  if (!value.ok() || IsNull(*value) || IsNaNValue(*value)) return std::nullopt;
  return *value;
}

std::optional<int64_t> Count(const std::map<int, int64_t>& counts, int field_id) {
  auto found = counts.find(field_id);
  if (found == counts.end()) return std::nullopt;
  return found->second;
}

bool IsFloating(const Type& type) {
  return type.id() == TypeId::kFloat || type.id() == TypeId::kDouble;
}

}  // namespace

ColumnSummary SummaryFromMetrics(const DataFile& file, int field_id, const Type& type) {
  ColumnSummary summary;
  summary.lower = DecodeBound(file.lower_bounds, field_id, type);
  summary.upper = DecodeBound(file.upper_bounds, field_id, type);
  auto values = Count(file.value_counts, field_id);
  auto nulls = Count(file.null_value_counts, field_id);
  auto nans = Count(file.nan_value_counts, field_id);
  if (nulls) summary.has_null = *nulls > 0;
  if (values && nulls) summary.all_null = *nulls == *values;
  if (nans) {
    summary.has_nan = *nans > 0;
    if (values) summary.all_nan = *nans == *values;
  } else if (!IsFloating(type)) {
    summary.has_nan = false;
    summary.all_nan = false;
  }
  return summary;
}

ColumnSummary SummaryFromPartitionSummary(const PartitionFieldSummary& field,
                                          const Type& type) {
  ColumnSummary summary;
  if (field.lower_bound) {
    auto value = FromBinary(field.lower_bound->data(), field.lower_bound->size(), type);
    if (value.ok() && !IsNull(*value) && !IsNaNValue(*value)) summary.lower = *value;
  }
  if (field.upper_bound) {
    auto value = FromBinary(field.upper_bound->data(), field.upper_bound->size(), type);
    if (value.ok() && !IsNull(*value) && !IsNaNValue(*value)) summary.upper = *value;
  }
  summary.has_null = field.contains_null;
  std::optional<bool> has_nan = field.contains_nan;
  if (!IsFloating(type)) has_nan = false;
  summary.has_nan = has_nan;
  // No bound means no non-null, non-NaN value at all (a bound that did not decode is not
  // that).
  const bool no_bound = !field.lower_bound && !field.upper_bound;
  if (no_bound && has_nan == false) summary.all_null = field.contains_null;
  if (no_bound && has_nan == true && !field.contains_null) summary.all_nan = true;
  return summary;
}

}  // namespace floe::iceberg
