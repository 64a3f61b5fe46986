// Delta's table schema (metaData.schemaString, Spark's JSON schema) as Arrow, and
// partition values (always strings in the log) as typed Arrow scalars.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "arrow/result.h"
#include "arrow/scalar.h"
#include "arrow/type.h"

namespace floe::delta {

/// The Arrow field metadata key that carries a field's Delta metadata (the field's
/// "metadata" object as JSON text), so column mapping can find its physical name.
inline constexpr std::string_view kFieldMetadataKey = "delta.metadata";
/// Delta's own key for a column's physical name (column mapping name and id modes).
inline constexpr std::string_view kPhysicalNameKey = "delta.columnMapping.physicalName";

/// The Arrow schema of a Delta schema string: string, long, integer, short, byte, float,
/// double, decimal(p,s), boolean, binary, date, timestamp (microseconds, UTC),
/// timestamp_ntz (microseconds, no zone), struct, array and map. Malformed JSON gives
/// InvalidMetadata; a type floe does not read (variant, geometry, ...) gives NotSupported
/// naming the column and the type.
arrow::Result<std::shared_ptr<arrow::Schema>> SchemaFromJson(
    std::string_view schema_string);

/// The name a column has in the data files and in partitionValues: its
/// delta.columnMapping.physicalName under column mapping (name and id modes), else its
/// name.
std::string PhysicalName(const arrow::Field& field);

/// The field's delta.columnMapping.id (column mapping), if it has one.
std::optional<int64_t> ColumnMappingId(const arrow::Field& field);

/// `field` named as in the data files: its own name and every struct child's, through
/// lists and maps at any depth, replaced by their physical names. Without column
/// mapping, `field` itself.
std::shared_ptr<arrow::Field> PhysicalField(const std::shared_ptr<arrow::Field>& field);

/// A partition value as the log holds it, as a scalar of `type`: null (and the empty
/// string, which the protocol reads as null) give a null scalar. Timestamps are accepted
/// as ISO-8601 with a zone ("2024-06-15T19:30:45.000000Z") and as Spark's legacy
/// "YYYY-MM-DD HH:MM:SS[.ffffff]" (read as UTC). A value that does not parse gives
/// InvalidMetadata naming `column` and the value.
arrow::Result<std::shared_ptr<arrow::Scalar>> ParsePartitionValue(
    const std::optional<std::string>& text, const std::shared_ptr<arrow::DataType>& type,
    std::string_view column);

}  // namespace floe::delta

namespace floe::delta {

/// The Delta schema string (Spark's JSON) of an Arrow schema: the inverse of
/// SchemaFromJson (large and view strings, binaries and lists as their plain forms). An
/// Arrow type Delta has no type for (unsigned integers, time, intervals, ...) gives
/// InvalidInput naming the column.
arrow::Result<std::string> SchemaToJson(const arrow::Schema& schema);

}  // namespace floe::delta
