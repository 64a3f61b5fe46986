// The field id a Parquet column carries, as Arrow's Parquet reader and writer hold it:
// the "PARQUET:field_id" key of an Arrow field's metadata. Shared by the formats that
// match columns by id (Iceberg always; Delta under column mapping "id") and by the
// Parquet layer, which knows neither.
#pragma once

#include "arrow/type_fwd.h"

namespace floe {

/// The metadata key Arrow's Parquet bridge maps to the Parquet field_id.
inline constexpr char kParquetFieldIdKey[] = "PARQUET:field_id";

/// The field id of an Arrow field from its metadata, or -1 when absent or malformed (not
/// a whole non-negative decimal number).
int ArrowFieldId(const arrow::Field& field);

}  // namespace floe
