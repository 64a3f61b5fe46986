// Partition values as text, the way iceberg-java renders them in data file paths
// (Transform.toHumanString and PartitionSpec.partitionToPath).
#pragma once

#include <string>
#include <vector>

#include "floe/iceberg/spec/partition_spec.h"
#include "floe/types/value.h"

namespace floe::iceberg {

/// The human string of a partition value: `result_type` is the partition field's type
/// (the transform's result type). Dates "%04d-%02d-%02d", timestamps ISO-8601 (with
/// "+00:00" for tz types), times as LocalTime.toString, binary and fixed as Base64,
/// floats as Java's Float/Double.toString, decimals as BigDecimal.toString, null as
/// "null"; year/month/hour ordinals as "2017", "2017-11", "2017-12-01-10".
std::string PartitionHumanString(const Transform& transform, const Type& result_type,
                                 const Value& value);

/// `name=value/name=value`, each part URL-encoded (java.net.URLEncoder), in spec order;
/// empty for an unpartitioned spec.
std::string PartitionToPath(const PartitionSpec& spec, const StructType& partition_type,
                            const std::vector<Value>& partition);

/// BigDecimal.toString of an unscaled value and scale (scientific when the adjusted
/// exponent is below -6).
std::string JavaBigDecimalToString(__int128 unscaled, int scale);

}  // namespace floe::iceberg
