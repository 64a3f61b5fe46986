// Column metrics of a written Parquet data file, computed by iceberg-java's rules from
// the file's footer and from what the writer tracked itself (float and double NaN counts
// and NaN-free bounds, which Parquet statistics cannot give).
#pragma once

#include <map>
#include <memory>
#include <optional>

#include "arrow/type_fwd.h"
#include "floe/manifest/data_file.h"
#include "floe/spec/schema.h"
#include "floe/write/metrics_config.h"

namespace parquet {
class FileMetaData;
}

namespace floe {

/// Tracks the metrics iceberg-java's Parquet value writers keep for float and double
/// columns (leaves reachable through structs only): they count only the slots where every
/// parent struct is present (a null parent writes nothing for its children), and bound
/// values without NaN. Not thread-safe; one per file.
class FloatMetricsTracker {
 public:
  explicit FloatMetricsTracker(const Schema& schema);

  /// Folds in a batch whose columns are the schema's top-level fields in order.
  void Update(const arrow::RecordBatch& batch);

  struct Stats {
    int64_t value_count = 0;  ///< Values and nulls written under present parents.
    int64_t null_count = 0;
    int64_t nan_count = 0;
    std::optional<double> lower;  ///< By Double.compare: -0.0 < 0.0; NaN excluded.
    std::optional<double> upper;
  };
  const std::map<int, Stats>& stats() const { return stats_; }

 private:
  struct Leaf {
    std::vector<int> path;  ///< Child indices from the top-level column down.
    int field_id;
    bool is_float;
  };
  std::vector<Leaf> leaves_;
  std::map<int, Stats> stats_;
};

/// Fills the metric maps of `file` (column sizes, value/null/NaN counts, bounds) and its
/// split offsets from the Parquet footer. `schema` is the write schema whose ids the file
/// carries.
arrow::Status ComputeMetrics(const parquet::FileMetaData& footer, const Schema& schema,
                             const MetricsConfig& config,
                             const FloatMetricsTracker& floats, DataFile* file);

/// iceberg-java's UnicodeUtil.truncateStringMin/Max and BinaryUtil.truncateBinaryMin/Max:
/// the upper bound is nullopt when no valid bound exists.
std::string TruncateStringLower(const std::string& value, int length);
std::optional<std::string> TruncateStringUpper(const std::string& value, int length);
std::string TruncateBinaryLower(const std::string& value, int length);
std::optional<std::string> TruncateBinaryUpper(const std::string& value, int length);

}  // namespace floe
