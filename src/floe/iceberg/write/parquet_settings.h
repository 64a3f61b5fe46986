// Iceberg's Parquet writer properties (write.parquet.*) translated to ParquetSettings,
// with iceberg-java's defaults where a property is unset.
#pragma once

#include "arrow/result.h"
#include "floe/iceberg/spec/table_properties.h"
#include "floe/parquet/settings.h"

namespace floe::iceberg {

/// Reads write.parquet.* from the effective properties. A value iceberg-java's writer
/// would reject (not a positive 32-bit integer, an unknown codec, a level outside the
/// codec's range) gives InvalidInput naming the property, never its value. The gate and
/// the writer both call this function, so they interpret the properties the same way.
arrow::Result<ParquetSettings> ParquetSettingsFromProperties(
    const PropertyMap& properties);

}  // namespace floe::iceberg
