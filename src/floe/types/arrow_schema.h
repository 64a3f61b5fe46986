// Conversion between Iceberg schemas and Arrow schemas whose fields carry their Iceberg
// field id as the `PARQUET:field_id` metadata key (what Arrow's Parquet reader and writer
// use).
//
// This is the one spec header that names Arrow's data types: the conversion is between
// the two.
#pragma once

#include <memory>

#include "arrow/type_fwd.h"
#include "floe/types/schema.h"
#include "floe/util/field_id.h"  // ArrowFieldId, kParquetFieldIdKey

namespace floe {

/// The Arrow type an Iceberg type is read and written as: int32/int64/float/double,
/// decimal128, date32, time64[us], timestamp[us|ns] (with "UTC" for the tz types), utf8,
/// binary, fixed_size_binary(L), the arrow.uuid extension type for uuid, struct, list
/// (element field "element") and map ("key"/"value"). v3 types that floe cannot write
/// give NotSupported.
arrow::Result<std::shared_ptr<arrow::DataType>> ToArrowType(const Type& type);
arrow::Result<std::shared_ptr<arrow::Field>> ToArrowField(const NestedField& field);
/// Every field, at every depth, carries its field id.
arrow::Result<std::shared_ptr<arrow::Schema>> ToArrowSchema(const Schema& schema);

/// The Iceberg schema of an Arrow schema whose every field (at every depth) carries a
/// field id. A missing id or an Arrow type with no Iceberg equivalent gives InvalidInput
/// naming the field.
arrow::Result<SchemaPtr> FromArrowSchema(const arrow::Schema& schema, int schema_id = 0);

/// The Iceberg fields of an Arrow schema, ignoring any field ids and assigning fresh ones
/// (used to create a table from a file's schema). Arrow types widen as Iceberg needs:
/// int8/16 to int, uint8/16 to int, uint32 to long, large strings and views to string.
arrow::Result<SchemaPtr> FromArrowSchemaAssigningIds(const arrow::Schema& schema);

/// `data` seen as `type`, a type of the same layout at every depth (the same types with
/// other field names or metadata, or an extension type for its storage type and back).
/// No buffer is copied.
std::shared_ptr<arrow::ArrayData> Retype(const std::shared_ptr<arrow::ArrayData>& data,
                                         const std::shared_ptr<arrow::DataType>& type);
/// `batch` with each column retyped to `schema`'s field (see above).
std::shared_ptr<arrow::RecordBatch> Retype(const arrow::RecordBatch& batch,
                                           const std::shared_ptr<arrow::Schema>& schema);

}  // namespace floe
