// Column metrics of a written Parquet data file, computed by iceberg-java's rules from
// the file's footer and from what the writer tracked itself (float and double NaN counts
// and NaN-free bounds, which Parquet statistics cannot give: parquet/float_stats.h).
#pragma once

#include <map>
#include <memory>
#include <optional>

#include "arrow/type_fwd.h"
#include "floe/iceberg/manifest/data_file.h"
#include "floe/iceberg/write/metrics_config.h"
#include "floe/parquet/float_stats.h"
#include "floe/types/schema.h"

namespace parquet {
class FileMetaData;
}

namespace floe::iceberg {

/// Fills the metric maps of `file` (column sizes, value/null/NaN counts, bounds) and its
/// split offsets from the Parquet footer. `schema` is the write schema whose ids the file
/// carries.
arrow::Status ComputeMetrics(const parquet::FileMetaData& footer, const Schema& schema,
                             const MetricsConfig& config,
                             const std::map<int, FloatLeafStats>& floats, DataFile* file);

/// iceberg-java's UnicodeUtil.truncateStringMin/Max and BinaryUtil.truncateBinaryMin/Max:
/// the upper bound is nullopt when no valid bound exists.
std::string TruncateStringLower(const std::string& value, int length);
std::optional<std::string> TruncateStringUpper(const std::string& value, int length);
std::string TruncateBinaryLower(const std::string& value, int length);
std::optional<std::string> TruncateBinaryUpper(const std::string& value, int length);

}  // namespace floe::iceberg
