#include "floe/delta/schema.h"

#include <cctype>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "arrow/util/decimal.h"
#include "arrow/util/key_value_metadata.h"
#include "arrow/util/value_parsing.h"
#include "floe/util/date_time.h"
#include "floe/util/error.h"
#include "floe/util/json_depth_internal.h"
#include "floe/util/json_number_internal.h"
#include "floe/util/number_text.h"

namespace floe::delta {
namespace {

using Json = nlohmann::json;

arrow::Status Malformed(std::string_view what) {
  return MakeError(ErrorKind::kInvalidMetadata,
                   "malformed Delta schema: " + std::string(what));
}

arrow::Result<std::shared_ptr<arrow::DataType>> TypeFromJson(const Json& json,
                                                             const std::string& column);

arrow::Result<std::shared_ptr<arrow::Field>> FieldFromJson(const Json& json,
                                                           const std::string& parent) {
  if (!json.is_object() || !json.contains("name") || !json["name"].is_string() ||
      !json.contains("type")) {
    return Malformed("a field without a name or a type" +
                     (parent.empty() ? std::string() : " in " + parent));
  }
  std::string name = json["name"].get<std::string>();
  std::string path = parent.empty() ? name : parent + "." + name;
  ARROW_ASSIGN_OR_RAISE(auto type, TypeFromJson(json["type"], path));
  bool nullable = !json.contains("nullable") || !json["nullable"].is_boolean() ||
                  json["nullable"].get<bool>();
  std::shared_ptr<const arrow::KeyValueMetadata> metadata;
  if (json.contains("metadata") && json["metadata"].is_object() &&
      !json["metadata"].empty()) {
    metadata = arrow::key_value_metadata({std::string(kFieldMetadataKey)},
                                         {json["metadata"].dump()});
  }
  return arrow::field(std::move(name), std::move(type), nullable, std::move(metadata));
}

arrow::Result<std::shared_ptr<arrow::DataType>> PrimitiveFromName(
    const std::string& name, const std::string& column) {
  if (name == "string") return arrow::utf8();
  if (name == "long") return arrow::int64();
  if (name == "integer") return arrow::int32();
  if (name == "short") return arrow::int16();
  if (name == "byte") return arrow::int8();
  if (name == "float") return arrow::float32();
  if (name == "double") return arrow::float64();
  if (name == "boolean") return arrow::boolean();
  if (name == "binary") return arrow::binary();
  if (name == "date") return arrow::date32();
  if (name == "timestamp") return arrow::timestamp(arrow::TimeUnit::MICRO, "UTC");
  if (name == "timestamp_ntz") return arrow::timestamp(arrow::TimeUnit::MICRO);
  if (name.rfind("decimal", 0) == 0) {
    int64_t precision = 10, scale = 0;  // Spark's "decimal" alone is decimal(10,0)
    if (name != "decimal") {
      // "decimal(p,s)", a space allowed after the comma.
      std::string_view rest = std::string_view(name).substr(7);
      const size_t comma = rest.find(',');
      if (!rest.starts_with("(") || !rest.ends_with(")") || comma == std::string::npos) {
        return Malformed("column " + column + " has type " + name);
      }
      std::string_view scale_text = rest.substr(comma + 1, rest.size() - comma - 2);
      if (scale_text.starts_with(" ")) scale_text.remove_prefix(1);
      auto scanned_precision = ParseDigits(rest.substr(1, comma - 1));
      auto scanned_scale = ParseDigits(scale_text);
      if (!scanned_precision || !scanned_scale) {
        return Malformed("column " + column + " has type " + name);
      }
      precision = *scanned_precision;
      scale = *scanned_scale;
    }
    if (precision < 1 || precision > 38 || scale < 0 || scale > precision) {
      return Malformed("column " + column + " has type " + name);
    }
    return arrow::decimal128(static_cast<int32_t>(precision),
                             static_cast<int32_t>(scale));
  }
  return MakeError(ErrorKind::kNotSupported, "column " + column + " has Delta type '" +
                                                 name + "', which floe does not read");
}

arrow::Result<std::shared_ptr<arrow::DataType>> TypeFromJson(const Json& json,
                                                             const std::string& column) {
  if (json.is_string()) return PrimitiveFromName(json.get<std::string>(), column);
  if (!json.is_object() || !json.contains("type") || !json["type"].is_string()) {
    return Malformed("column " + column + " has no type");
  }
  const std::string kind = json["type"].get<std::string>();
  if (kind == "struct") {
    if (!json.contains("fields") || !json["fields"].is_array()) {
      return Malformed("struct " + column + " has no fields");
    }
    arrow::FieldVector fields;
    for (const auto& child : json["fields"]) {
      ARROW_ASSIGN_OR_RAISE(auto field, FieldFromJson(child, column));
      fields.push_back(std::move(field));
    }
    return arrow::struct_(fields);
  }
  if (kind == "array") {
    if (!json.contains("elementType")) {
      return Malformed("array " + column + " has no elementType");
    }
    ARROW_ASSIGN_OR_RAISE(auto element,
                          TypeFromJson(json["elementType"], column + ".element"));
    bool nullable = !json.contains("containsNull") ||
                    !json["containsNull"].is_boolean() ||
                    json["containsNull"].get<bool>();
    return arrow::list(arrow::field("element", std::move(element), nullable));
  }
  if (kind == "map") {
    if (!json.contains("keyType") || !json.contains("valueType")) {
      return Malformed("map " + column + " has no keyType or valueType");
    }
    ARROW_ASSIGN_OR_RAISE(auto key, TypeFromJson(json["keyType"], column + ".key"));
    ARROW_ASSIGN_OR_RAISE(auto value, TypeFromJson(json["valueType"], column + ".value"));
    bool nullable = !json.contains("valueContainsNull") ||
                    !json["valueContainsNull"].is_boolean() ||
                    json["valueContainsNull"].get<bool>();
    return arrow::map(std::move(key), arrow::field("value", std::move(value), nullable));
  }
  return MakeError(ErrorKind::kNotSupported, "column " + column + " has Delta type '" +
                                                 kind + "', which floe does not read");
}

arrow::Status BadValue(std::string_view column, const std::string& text,
                       const arrow::DataType& type) {
  return MakeError(ErrorKind::kInvalidMetadata, "partition value '" + text +
                                                    "' of column " + std::string(column) +
                                                    " is not a " + type.ToString());
}

// Java's Double.toString spellings first ("NaN", "Infinity", "-Infinity"), then a number.
bool ParseFloating(const std::string& text, double* out) {
  if (text == "NaN") {
    *out = std::numeric_limits<double>::quiet_NaN();
    return true;
  }
  if (text == "Infinity" || text == "+Infinity") {
    *out = std::numeric_limits<double>::infinity();
    return true;
  }
  if (text == "-Infinity") {
    *out = -std::numeric_limits<double>::infinity();
    return true;
  }
  return arrow::internal::ParseValue<arrow::DoubleType>(text.data(), text.size(), out);
}

// Reads 1 to `max_digits` digits at `text[*at]`, advancing `*at`.
std::optional<int64_t> ScanNumber(std::string_view text, size_t* at, size_t max_digits) {
  size_t end = *at;
  while (end < text.size() && end - *at < max_digits && text[end] >= '0' &&
         text[end] <= '9') {
    ++end;
  }
  auto value = ParseDigits(text.substr(*at, end - *at));
  if (value) *at = end;
  return value;
}

// Reads "[+-]Y-M-D" at `text[*at]` (a year of up to nine digits, a month and a day of
// one or two, as Spark's casts read them), advancing `*at`: days since the epoch, or
// nullopt when malformed or not a day of the calendar (2024-02-30).
std::optional<int64_t> ScanDate(std::string_view text, size_t* at) {
  size_t position = *at;
  bool negative = false;
  if (position < text.size() && (text[position] == '+' || text[position] == '-')) {
    negative = text[position] == '-';
    ++position;
  }
  auto year = ScanNumber(text, &position, 9);
  if (!year || position >= text.size() || text[position++] != '-') return std::nullopt;
  auto month = ScanNumber(text, &position, 2);
  if (!month || position >= text.size() || text[position++] != '-') return std::nullopt;
  auto day = ScanNumber(text, &position, 2);
  if (!day || *month < 1 || *month > 12 || *day < 1) return std::nullopt;
  const int64_t signed_year = negative ? -*year : *year;
  static constexpr int kDays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (FloorMod(signed_year, 4) == 0 && FloorMod(signed_year, 100) != 0) ||
                    FloorMod(signed_year, 400) == 0;
  if (*day > kDays[*month - 1] || (*month == 2 && *day == 29 && !leap))
    return std::nullopt;
  *at = position;
  return DaysFromCivil(signed_year, static_cast<int>(*month), static_cast<int>(*day));
}

// Microseconds since the epoch from "YYYY-MM-DD[T ]HH:MM:SS[.f{1,9}][Z|+HH:MM|-HH:MM]",
// read as UTC when no zone is given; a date alone is midnight. Every field is range
// checked: a malformed value is refused, never wrapped into another instant.
bool ParseTimestampMicros(const std::string& text, int64_t* out) {
  size_t at = 0;
  auto days = ScanDate(text, &at);
  if (!days) return false;
  int64_t seconds_of_day = 0;
  int64_t micros = 0;
  int64_t offset_seconds = 0;
  if (at < text.size()) {
    if (text[at] != 'T' && text[at] != ' ') return false;
    while (at < text.size() && (text[at] == 'T' || text[at] == ' ')) ++at;
    auto hour = ScanNumber(text, &at, 2);
    if (!hour || at >= text.size() || text[at++] != ':') return false;
    auto minute = ScanNumber(text, &at, 2);
    if (!minute || at >= text.size() || text[at++] != ':') return false;
    auto second = ScanNumber(text, &at, 2);
    if (!second || *hour > 23 || *minute > 59 || *second > 59) return false;
    seconds_of_day = *hour * 3600 + *minute * 60 + *second;
    if (at < text.size() && text[at] == '.') {
      ++at;
      int digits = 0;
      while (at < text.size() && text[at] >= '0' && text[at] <= '9') {
        if (digits < 6) micros = micros * 10 + (text[at] - '0');
        ++digits;
        ++at;
      }
      if (digits == 0 || digits > 9) return false;
      for (int d = digits; d < 6; ++d) micros *= 10;
    }
    if (at < text.size()) {
      if (text[at] == 'Z' && at + 1 == text.size()) {
        ++at;
      } else if (text[at] == '+' || text[at] == '-') {
        const int64_t sign = text[at] == '+' ? 1 : -1;
        ++at;
        auto zone_hours = ScanNumber(text, &at, 2);
        if (!zone_hours || at >= text.size() || text[at++] != ':') return false;
        auto zone_minutes = ScanNumber(text, &at, 2);
        if (!zone_minutes || *zone_hours > 18 || *zone_minutes > 59) return false;
        offset_seconds = sign * (*zone_hours * 3600 + *zone_minutes * 60);
      } else {
        return false;
      }
    }
  }
  if (at != text.size()) return false;
  // Nine-digit years overflow microseconds: refused, not wrapped.
  int64_t seconds = 0;
  if (__builtin_mul_overflow(*days, int64_t{86400}, &seconds) ||
      __builtin_add_overflow(seconds, seconds_of_day - offset_seconds, &seconds) ||
      __builtin_mul_overflow(seconds, int64_t{1000000}, &seconds) ||
      __builtin_add_overflow(seconds, micros, out)) {
    return false;
  }
  return true;
}

}  // namespace

arrow::Result<std::shared_ptr<arrow::Schema>> SchemaFromJson(
    std::string_view schema_string) {
  if (JsonNestsDeeperThan(schema_string)) return Malformed("nested too deeply");
  Json json = Json::parse(schema_string, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) return Malformed("not JSON");
  if (!json.is_object() || json.value("type", "") != "struct" ||
      !json.contains("fields") || !json["fields"].is_array()) {
    return Malformed("the top level is not a struct with fields");
  }
  arrow::FieldVector fields;
  for (const auto& child : json["fields"]) {
    ARROW_ASSIGN_OR_RAISE(auto field, FieldFromJson(child, ""));
    fields.push_back(std::move(field));
  }
  return arrow::schema(std::move(fields));
}

arrow::Result<std::shared_ptr<arrow::Scalar>> ParsePartitionValue(
    const std::optional<std::string>& text, const std::shared_ptr<arrow::DataType>& type,
    std::string_view column) {
  if (!text.has_value() || text->empty()) return arrow::MakeNullScalar(type);
  const std::string& value = *text;
  switch (type->id()) {
    case arrow::Type::STRING:
      return arrow::MakeScalar(value);
    case arrow::Type::BINARY:
      return std::make_shared<arrow::BinaryScalar>(arrow::Buffer::FromString(value));
    case arrow::Type::BOOL: {
      if (value == "true") return arrow::MakeScalar(true);
      if (value == "false") return arrow::MakeScalar(false);
      return BadValue(column, value, *type);
    }
    case arrow::Type::INT8:
    case arrow::Type::INT16:
    case arrow::Type::INT32:
    case arrow::Type::INT64: {
      int64_t parsed = 0;
      if (!arrow::internal::ParseValue<arrow::Int64Type>(value.data(), value.size(),
                                                         &parsed)) {
        return BadValue(column, value, *type);
      }
      auto result = arrow::MakeScalar(type, parsed);
      // MakeScalar narrows silently; a value out of the type's range is refused.
      if (!result.ok()) return BadValue(column, value, *type);
      int bits = static_cast<const arrow::FixedWidthType&>(*type).bit_width();
      if (bits < 64 && (parsed < -(int64_t{1} << (bits - 1)) ||
                        parsed >= (int64_t{1} << (bits - 1)))) {
        return BadValue(column, value, *type);
      }
      return result;
    }
    case arrow::Type::FLOAT:
    case arrow::Type::DOUBLE: {
      double parsed = 0;
      if (!ParseFloating(value, &parsed)) return BadValue(column, value, *type);
      if (type->id() == arrow::Type::FLOAT) {
        return arrow::MakeScalar(static_cast<float>(parsed));
      }
      return arrow::MakeScalar(parsed);
    }
    case arrow::Type::DECIMAL128: {
      const auto& decimal = static_cast<const arrow::Decimal128Type&>(*type);
      arrow::Decimal128 parsed;
      int32_t precision = 0, scale = 0;
      if (!arrow::Decimal128::FromString(value, &parsed, &precision, &scale).ok()) {
        return BadValue(column, value, *type);
      }
      auto rescaled = parsed.Rescale(scale, decimal.scale());
      if (!rescaled.ok() || !rescaled->FitsInPrecision(decimal.precision())) {
        return BadValue(column, value, *type);
      }
      return std::make_shared<arrow::Decimal128Scalar>(*rescaled, type);
    }
    case arrow::Type::DATE32: {
      size_t at = 0;
      auto days = ScanDate(value, &at);
      if (!days || at != value.size() || *days < std::numeric_limits<int32_t>::min() ||
          *days > std::numeric_limits<int32_t>::max()) {
        return BadValue(column, value, *type);
      }
      return std::make_shared<arrow::Date32Scalar>(static_cast<int32_t>(*days));
    }
    case arrow::Type::TIMESTAMP: {
      int64_t micros = 0;
      if (!ParseTimestampMicros(value, &micros)) return BadValue(column, value, *type);
      return std::make_shared<arrow::TimestampScalar>(micros, type);
    }
    default:
      return MakeError(ErrorKind::kNotSupported,
                       "partition column " + std::string(column) + " has type " +
                           type->ToString() + ", which Delta does not partition by");
  }
}

namespace {

using OJson = nlohmann::ordered_json;

arrow::Result<OJson> TypeToJson(const arrow::DataType& type, const std::string& column);

arrow::Result<OJson> FieldToJson(const arrow::Field& field, const std::string& parent) {
  const std::string path = parent.empty() ? field.name() : parent + "." + field.name();
  ARROW_ASSIGN_OR_RAISE(OJson type, TypeToJson(*field.type(), path));
  OJson metadata = OJson::object();
  if (field.metadata()) {
    auto found = field.metadata()->Get(std::string(kFieldMetadataKey));
    if (found.ok()) {
      OJson parsed = OJson::parse(*found, nullptr, /*allow_exceptions=*/false);
      if (parsed.is_object()) metadata = std::move(parsed);
    }
  }
  return OJson{{"name", field.name()},
               {"type", std::move(type)},
               {"nullable", field.nullable()},
               {"metadata", std::move(metadata)}};
}

arrow::Result<OJson> TypeToJson(const arrow::DataType& type, const std::string& column) {
  switch (type.id()) {
    case arrow::Type::STRING:
    case arrow::Type::LARGE_STRING:
    case arrow::Type::STRING_VIEW:
      return OJson("string");
    case arrow::Type::INT64:
      return OJson("long");
    case arrow::Type::INT32:
      return OJson("integer");
    case arrow::Type::INT16:
      return OJson("short");
    case arrow::Type::INT8:
      return OJson("byte");
    case arrow::Type::FLOAT:
      return OJson("float");
    case arrow::Type::DOUBLE:
      return OJson("double");
    case arrow::Type::BOOL:
      return OJson("boolean");
    case arrow::Type::BINARY:
    case arrow::Type::LARGE_BINARY:
    case arrow::Type::BINARY_VIEW:
      return OJson("binary");
    case arrow::Type::DATE32:
      return OJson("date");
    case arrow::Type::TIMESTAMP:
      return OJson(static_cast<const arrow::TimestampType&>(type).timezone().empty()
                       ? "timestamp_ntz"
                       : "timestamp");
    case arrow::Type::DECIMAL128: {
      const auto& decimal = static_cast<const arrow::Decimal128Type&>(type);
      return OJson("decimal(" + std::to_string(decimal.precision()) + "," +
                   std::to_string(decimal.scale()) + ")");
    }
    case arrow::Type::STRUCT: {
      OJson fields = OJson::array();
      for (const auto& child : type.fields()) {
        ARROW_ASSIGN_OR_RAISE(OJson field, FieldToJson(*child, column));
        fields.push_back(std::move(field));
      }
      return OJson{{"type", "struct"}, {"fields", std::move(fields)}};
    }
    case arrow::Type::LIST:
    case arrow::Type::LARGE_LIST:
    case arrow::Type::LIST_VIEW: {
      const auto& element = *type.field(0);
      ARROW_ASSIGN_OR_RAISE(OJson element_type,
                            TypeToJson(*element.type(), column + ".element"));
      return OJson{{"type", "array"},
                   {"elementType", std::move(element_type)},
                   {"containsNull", element.nullable()}};
    }
    case arrow::Type::MAP: {
      const auto& map = static_cast<const arrow::MapType&>(type);
      ARROW_ASSIGN_OR_RAISE(OJson key, TypeToJson(*map.key_type(), column + ".key"));
      ARROW_ASSIGN_OR_RAISE(OJson value, TypeToJson(*map.item_type(), column + ".value"));
      return OJson{{"type", "map"},
                   {"keyType", std::move(key)},
                   {"valueType", std::move(value)},
                   {"valueContainsNull", map.item_field()->nullable()}};
    }
    default:
      return MakeError(ErrorKind::kInvalidInput, "column " + column + " has type " +
                                                     type.ToString() +
                                                     ", which Delta has no type for");
  }
}

}  // namespace

arrow::Result<std::string> SchemaToJson(const arrow::Schema& schema) {
  OJson fields = OJson::array();
  for (const auto& field : schema.fields()) {
    ARROW_ASSIGN_OR_RAISE(OJson json, FieldToJson(*field, ""));
    fields.push_back(std::move(json));
  }
  OJson root{{"type", "struct"}, {"fields", std::move(fields)}};
  return root.dump(-1, ' ', false, OJson::error_handler_t::replace);
}

std::optional<int64_t> ColumnMappingId(const arrow::Field& field) {
  if (!field.metadata()) return std::nullopt;
  auto found = field.metadata()->Get(std::string(kFieldMetadataKey));
  if (!found.ok()) return std::nullopt;
  Json parsed = Json::parse(*found, nullptr, /*allow_exceptions=*/false);
  if (!parsed.is_object()) return std::nullopt;
  auto id = parsed.find("delta.columnMapping.id");
  if (id == parsed.end()) return std::nullopt;
  return JsonInt64(*id);
}

std::string PhysicalName(const arrow::Field& field) {
  if (field.metadata()) {
    auto found = field.metadata()->Get(std::string(kFieldMetadataKey));
    if (found.ok()) {
      Json parsed = Json::parse(*found, nullptr, /*allow_exceptions=*/false);
      if (parsed.is_object()) {
        auto name = parsed.find(std::string(kPhysicalNameKey));
        if (name != parsed.end() && name->is_string() &&
            !name->get<std::string>().empty())
          return name->get<std::string>();
      }
    }
  }
  return field.name();
}

namespace {

std::shared_ptr<arrow::DataType> PhysicalType(
    const std::shared_ptr<arrow::DataType>& type) {
  switch (type->id()) {
    case arrow::Type::STRUCT: {
      arrow::FieldVector children;
      for (const auto& child : type->fields()) children.push_back(PhysicalField(child));
      return arrow::struct_(children);
    }
    case arrow::Type::LIST: {
      const auto& list = static_cast<const arrow::ListType&>(*type);
      return arrow::list(list.value_field()->WithType(PhysicalType(list.value_type())));
    }
    case arrow::Type::MAP: {
      const auto& map = static_cast<const arrow::MapType&>(*type);
      return std::make_shared<arrow::MapType>(
          map.key_field()->WithType(PhysicalType(map.key_type())),
          map.item_field()->WithType(PhysicalType(map.item_type())), map.keys_sorted());
    }
    default:
      return type;
  }
}

}  // namespace

std::shared_ptr<arrow::Field> PhysicalField(const std::shared_ptr<arrow::Field>& field) {
  return field->WithName(PhysicalName(*field))->WithType(PhysicalType(field->type()));
}

}  // namespace floe::delta
