#include "floe/iceberg/avro/iceberg_schema_internal.h"

#include <cstdio>

#include "floe/util/error.h"
#include "floe/util/java_text.h"

namespace floe::iceberg::avro {
namespace {

std::string Quote(const std::string& text) { return "\"" + text + "\""; }

AvroNodePtr PrimitiveSchema(const Type& type) {
  switch (type.id()) {
    case TypeId::kUnknown:
      return MakePrimitive(AvroType::kNull);
    case TypeId::kBoolean:
      return MakePrimitive(AvroType::kBoolean);
    case TypeId::kInt:
      return MakePrimitive(AvroType::kInt);
    case TypeId::kLong:
      return MakePrimitive(AvroType::kLong);
    case TypeId::kFloat:
      return MakePrimitive(AvroType::kFloat);
    case TypeId::kDouble:
      return MakePrimitive(AvroType::kDouble);
    case TypeId::kDate:
      return MakePrimitive(AvroType::kInt, {{"logicalType", Quote("date")}});
    case TypeId::kTime:
      return MakePrimitive(AvroType::kLong, {{"logicalType", Quote("time-micros")}});
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
      return MakePrimitive(
          AvroType::kLong,
          {{"logicalType", Quote("timestamp-micros")},
           {"adjust-to-utc", type.id() == TypeId::kTimestampTz ? "true" : "false"}});
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs:
      return MakePrimitive(
          AvroType::kLong,
          {{"logicalType", Quote("timestamp-nanos")},
           {"adjust-to-utc", type.id() == TypeId::kTimestampTzNs ? "true" : "false"}});
    case TypeId::kString:
      return MakePrimitive(AvroType::kString);
    case TypeId::kUuid:
      return MakeFixed("uuid_fixed", 16, {{"logicalType", Quote("uuid")}});
    case TypeId::kFixed: {
      int length = static_cast<const PrimitiveType&>(type).length();
      return MakeFixed("fixed_" + std::to_string(length), length);
    }
    case TypeId::kBinary:
      return MakePrimitive(AvroType::kBytes);
    case TypeId::kDecimal: {
      const auto& decimal = static_cast<const PrimitiveType&>(type);
      return MakeFixed("decimal_" + std::to_string(decimal.precision()) + "_" +
                           std::to_string(decimal.scale()),
                       DecimalRequiredBytes(decimal.precision()),
                       {{"logicalType", Quote("decimal")},
                        {"precision", std::to_string(decimal.precision())},
                        {"scale", std::to_string(decimal.scale())}});
    }
    default:
      // variant/geometry/geography never reach manifests' partition or metrics schemas.
      return MakePrimitive(AvroType::kBytes);
  }
}

AvroNodePtr TypeSchema(const Type& type, int field_id);

AvroNodePtr Optionally(AvroNodePtr schema, bool optional) {
  return optional ? MakeOptional(std::move(schema)) : schema;
}

AvroNodePtr StructSchema(const StructType& type, const std::string& record_name) {
  std::vector<AvroField> fields;
  for (const auto& field : type.fields()) {
    AvroField avro_field;
    bool valid = IsValidAvroName(field.name);
    avro_field.name = valid ? field.name : MakeCompatibleName(field.name);
    avro_field.type = Optionally(TypeSchema(*field.type, field.id), !field.required);
    avro_field.doc = field.doc;
    if (!field.required) avro_field.default_json = "null";
    if (!valid)
      avro_field.properties.emplace_back("iceberg-field-name", Quote(field.name));
    avro_field.properties.emplace_back("field-id", std::to_string(field.id));
    fields.push_back(std::move(avro_field));
  }
  return MakeRecord(record_name, std::move(fields));
}

AvroNodePtr TypeSchema(const Type& type, int field_id) {
  switch (type.id()) {
    case TypeId::kStruct:
      return StructSchema(static_cast<const StructType&>(type),
                          "r" + std::to_string(field_id));
    case TypeId::kList: {
      const auto& element = static_cast<const ListType&>(type).element();
      return MakeArray(
          Optionally(TypeSchema(*element.type, element.id), !element.required),
          {{"element-id", std::to_string(element.id)}});
    }
    case TypeId::kMap: {
      const auto& map = static_cast<const MapType&>(type);
      AvroNodePtr value = Optionally(TypeSchema(*map.value().type, map.value().id),
                                     !map.value().required);
      if (map.key().type->id() == TypeId::kString) {
        return MakeMap(std::move(value), {{"key-id", std::to_string(map.key().id)},
                                          {"value-id", std::to_string(map.value().id)}});
      }
      AvroField key{"key",
                    TypeSchema(*map.key().type, map.key().id),
                    "",
                    std::nullopt,
                    {{"field-id", std::to_string(map.key().id)}}};
      AvroField value_field{
          "value",
          value,
          "",
          map.value().required ? std::nullopt : std::optional<std::string>("null"),
          {{"field-id", std::to_string(map.value().id)}}};
      auto record = MakeRecord(
          "k" + std::to_string(map.key().id) + "_v" + std::to_string(map.value().id),
          {std::move(key), std::move(value_field)});
      return MakeArray(std::move(record), {{"logicalType", Quote("map")}});
    }
    default:
      return PrimitiveSchema(type);
  }
}

arrow::Status WrongShape(const Type& type) {
  return MakeError(ErrorKind::kInvalidMetadata,
                   "Avro value does not match Iceberg type " + type.ToString());
}

}  // namespace

int DecimalRequiredBytes(int precision) {
  // The smallest n with 2^(8n-1) > 10^precision.
  static constexpr int kBytes[] = {0,  1,  1,  2,  2,  3,  3,  4,  4,  4,  5,  5,  6,
                                   6,  6,  7,  7,  8,  8,  9,  9,  9,  10, 10, 11, 11,
                                   11, 12, 12, 13, 13, 13, 14, 14, 15, 15, 16, 16, 16};
  if (precision < 1 || precision > 38) return 16;
  return kBytes[precision];
}

AvroNodePtr ToAvroSchema(const StructType& type, const std::string& record_name) {
  return StructSchema(type, record_name);
}

Datum ValueToDatum(const Value& value, const Type& type) {
  if (IsNull(value)) return Datum();
  switch (type.id()) {
    case TypeId::kBoolean:
      return Datum(std::get<bool>(value));
    case TypeId::kInt:
    case TypeId::kDate:
      return Datum(std::get<int32_t>(value));
    case TypeId::kLong:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs:
      return Datum(std::get<int64_t>(value));
    case TypeId::kFloat:
      return Datum(std::get<float>(value));
    case TypeId::kDouble:
      return Datum(std::get<double>(value));
    case TypeId::kString:
      return Datum(std::get<std::string>(value));
    case TypeId::kUuid:
    case TypeId::kFixed:
    case TypeId::kBinary: {
      const auto& bytes = std::get<Bytes>(value);
      return Datum(std::string(bytes.begin(), bytes.end()));
    }
    case TypeId::kDecimal: {
      // Fixed of the minimal width: sign-extend the unscaled value to that many bytes.
      int width =
          DecimalRequiredBytes(static_cast<const PrimitiveType&>(type).precision());
      __int128 unscaled = std::get<Decimal>(value).unscaled;
      std::string bytes(static_cast<size_t>(width), '\0');
      for (int i = 0; i < width; ++i) {
        bytes[static_cast<size_t>(width - 1 - i)] = static_cast<char>(
            static_cast<unsigned __int128>(unscaled) >> (8 * std::min(i, 15)));
        if (i >= 16)
          bytes[static_cast<size_t>(width - 1 - i)] = unscaled < 0 ? '\xFF' : '\0';
      }
      return Datum(std::move(bytes));
    }
    default:
      return Datum();
  }
}

arrow::Result<Value> DatumToValue(const Datum& datum, const Type& type) {
  if (datum.is_null()) return Value();
  const auto& v = datum.value;
  switch (type.id()) {
    case TypeId::kBoolean:
      if (!std::holds_alternative<bool>(v)) return WrongShape(type);
      return Value(std::get<bool>(v));
    case TypeId::kInt:
    case TypeId::kDate:
      if (!std::holds_alternative<int32_t>(v)) return WrongShape(type);
      return Value(std::get<int32_t>(v));
    case TypeId::kLong:
    case TypeId::kTime:
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz:
    case TypeId::kTimestampNs:
    case TypeId::kTimestampTzNs:
      if (std::holds_alternative<int32_t>(v)) return Value(int64_t{std::get<int32_t>(v)});
      if (!std::holds_alternative<int64_t>(v)) return WrongShape(type);
      return Value(std::get<int64_t>(v));
    case TypeId::kFloat:
      if (!std::holds_alternative<float>(v)) return WrongShape(type);
      return Value(std::get<float>(v));
    case TypeId::kDouble:
      if (std::holds_alternative<float>(v)) return Value(double{std::get<float>(v)});
      if (!std::holds_alternative<double>(v)) return WrongShape(type);
      return Value(std::get<double>(v));
    case TypeId::kString:
      if (!std::holds_alternative<std::string>(v)) return WrongShape(type);
      return Value(std::get<std::string>(v));
    case TypeId::kUuid:
    case TypeId::kFixed:
    case TypeId::kBinary: {
      if (!std::holds_alternative<std::string>(v)) return WrongShape(type);
      const auto& bytes = std::get<std::string>(v);
      return Value(Bytes(bytes.begin(), bytes.end()));
    }
    case TypeId::kDecimal: {
      if (!std::holds_alternative<std::string>(v)) return WrongShape(type);
      const auto& bytes = std::get<std::string>(v);
      // Wider-than-16-byte encodings can only carry sign extension.
      size_t skip = bytes.size() > 16 ? bytes.size() - 16 : 0;
      ARROW_ASSIGN_OR_RAISE(
          auto unscaled,
          DecimalFromBytes(reinterpret_cast<const uint8_t*>(bytes.data()) + skip,
                           bytes.size() - skip));
      return Value(Decimal{unscaled});
    }
    default:
      return WrongShape(type);
  }
}

}  // namespace floe::iceberg::avro
