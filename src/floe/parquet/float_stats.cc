#include "floe/parquet/float_stats.h"

#include <cmath>
#include <functional>
#include <string>

#include "arrow/array.h"
#include "arrow/record_batch.h"
#include "arrow/type.h"
#include "arrow/util/key_value_metadata.h"
#include "floe/util/field_id.h"
#include "floe/util/java_text.h"

namespace floe {

namespace {

// The Parquet leaf columns below `type` (a list's or map's leaves included).
int LeafCount(const arrow::DataType& type) {
  if (type.num_fields() == 0) return 1;
  int leaves = 0;
  for (const auto& child : type.fields()) leaves += LeafCount(*child->type());
  return leaves;
}

bool AnyFieldId(const arrow::Field& field) {
  if (ArrowFieldId(field) >= 0) return true;
  for (const auto& child : field.type()->fields()) {
    if (AnyFieldId(*child)) return true;
  }
  return false;
}

}  // namespace

FloatStatsTracker::FloatStatsTracker(const arrow::Schema& schema) {
  bool by_leaf = true;
  for (const auto& field : schema.fields()) by_leaf = by_leaf && !AnyFieldId(*field);
  int next_leaf = 0;
  std::function<void(const arrow::Field&, const std::vector<int>&)> visit =
      [&](const arrow::Field& field, const std::vector<int>& path) {
        const auto type = field.type()->id();
        if (type == arrow::Type::FLOAT || type == arrow::Type::DOUBLE) {
          const int leaf = next_leaf++;
          const int id = by_leaf ? leaf : ArrowFieldId(field);
          if (id < 0) return;
          leaves_.push_back({path, id, type == arrow::Type::FLOAT});
          stats_[id] = FloatLeafStats();
        } else if (type == arrow::Type::STRUCT) {
          const auto& children = field.type()->fields();
          for (size_t i = 0; i < children.size(); ++i) {
            auto child_path = path;
            child_path.push_back(static_cast<int>(i));
            visit(*children[i], child_path);
          }
        } else {
          next_leaf += LeafCount(*field.type());  // lists and maps are not tracked
        }
      };
  for (int i = 0; i < schema.num_fields(); ++i) visit(*schema.field(i), {i});
}

void FloatStatsTracker::Update(const arrow::RecordBatch& batch) {
  const int64_t rows = batch.num_rows();
  std::vector<uint8_t> present;
  for (const auto& leaf : leaves_) {
    // Walk down the structs, keeping the rows whose every parent is present.
    present.assign(static_cast<size_t>(rows), 1);
    std::shared_ptr<arrow::Array> array = batch.column(leaf.path[0]);
    for (size_t depth = 1; depth < leaf.path.size(); ++depth) {
      const auto& parent = static_cast<const arrow::StructArray&>(*array);
      if (parent.null_count() > 0) {
        for (int64_t row = 0; row < rows; ++row) {
          if (parent.IsNull(row)) present[static_cast<size_t>(row)] = 0;
        }
      }
      array = parent.field(leaf.path[depth]);  // offset-adjusted to the parent
    }
    FloatLeafStats& stats = stats_[leaf.field_id];
    auto fold = [&](double value) {
      if (std::isnan(value)) {
        ++stats.nan_count;
        return;
      }
      if (value == 0 && !stats.first_zero_negative)
        stats.first_zero_negative = std::signbit(value);
      if (!stats.lower || JavaDoubleCompare(value, *stats.lower) < 0) stats.lower = value;
      if (!stats.upper || JavaDoubleCompare(value, *stats.upper) > 0) stats.upper = value;
    };
    for (int64_t row = 0; row < rows; ++row) {
      if (!present[static_cast<size_t>(row)]) continue;
      ++stats.value_count;
      if (array->IsNull(row)) {
        ++stats.null_count;
      } else if (leaf.is_float) {
        fold(static_cast<const arrow::FloatArray&>(*array).Value(row));
      } else {
        fold(static_cast<const arrow::DoubleArray&>(*array).Value(row));
      }
    }
  }
}

}  // namespace floe
