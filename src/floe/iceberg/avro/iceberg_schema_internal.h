// Iceberg types in Avro, the way iceberg-java's TypeToSchema writes them, and Iceberg
// values to and from Avro data.
#pragma once

#include <string>

#include "floe/iceberg/avro/datum.h"
#include "floe/iceberg/avro/schema.h"
#include "floe/types/type.h"
#include "floe/types/value.h"

namespace floe::iceberg::avro {

/// The Avro schema of an Iceberg struct: a record named `record_name` whose nested
/// structs are records named "r<field id>", optional fields ["null", T] with default
/// null, every field with its "field-id" (and "iceberg-field-name" when the name had to
/// be sanitised), lists with "element-id", string-keyed maps as Avro maps with
/// "key-id"/"value-id", other maps as arrays of "k<key id>_v<value id>" records with
/// logicalType "map", and iceberg-java's logical types.
AvroNodePtr ToAvroSchema(const StructType& type, const std::string& record_name);

/// An Iceberg primitive value as the Avro datum its schema expects (decimals as fixed
/// bytes of the type's minimal width, uuid as 16 fixed bytes).
Datum ValueToDatum(const Value& value, const Type& type);
/// The inverse; a datum of the wrong shape gives InvalidMetadata.
arrow::Result<Value> DatumToValue(const Datum& datum, const Type& type);

/// The smallest number of bytes a decimal of this precision needs (iceberg-java's
/// TypeUtil.decimalRequiredBytes).
int DecimalRequiredBytes(int precision);

}  // namespace floe::iceberg::avro
