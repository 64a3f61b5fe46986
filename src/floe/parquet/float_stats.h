// What a Parquet footer cannot say about float and double columns: NaN counts and bounds
// without NaN (Parquet statistics give neither reliably), tracked as a file is written,
// as iceberg-java's Parquet value writers track them.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "arrow/type_fwd.h"

namespace floe {

/// One float or double leaf of a file.
struct FloatLeafStats {
  int64_t value_count = 0;  ///< Values and nulls written under present parents.
  int64_t null_count = 0;
  int64_t nan_count = 0;
  std::optional<double> lower;  ///< By Double.compare: -0.0 < 0.0; NaN excluded.
  std::optional<double> upper;
  /// Whether the first zero written was -0.0 (unset: no zero). Spark's min and max treat
  /// the two zeros as equal and keep the first one they meet.
  std::optional<bool> first_zero_negative;
};

/// Tracks FloatLeafStats for the float and double leaves reachable through structs only
/// (not inside lists or maps), keyed by their "PARQUET:field_id": like iceberg-java's
/// writers it counts only the slots where every parent struct is present (a null parent
/// writes nothing for its children). Leaves without a field id are not tracked, except in
/// a schema where no field has one (a format without field ids, Delta's): there every
/// such leaf is tracked, keyed by its Parquet leaf column index. Not thread-safe; one per
/// file.
class FloatStatsTracker {
 public:
  explicit FloatStatsTracker(const arrow::Schema& schema);

  /// Folds in a batch with the schema's columns.
  void Update(const arrow::RecordBatch& batch);

  const std::map<int, FloatLeafStats>& stats() const { return stats_; }

 private:
  struct Leaf {
    std::vector<int> path;  ///< Child indices from the top-level column down.
    int field_id;
    bool is_float;
  };
  std::vector<Leaf> leaves_;
  std::map<int, FloatLeafStats> stats_;
};

}  // namespace floe
