#include "floe/types/type.h"

#include <charconv>
#include <unordered_map>

#include "floe/util/error.h"
#include "floe/util/number_text.h"
#include "floe/util/text.h"

namespace floe {
namespace {

struct PrimitiveName {
  TypeId id;
  const char* name;
};

constexpr PrimitiveName kPrimitiveNames[] = {
    {TypeId::kBoolean, "boolean"},
    {TypeId::kInt, "int"},
    {TypeId::kLong, "long"},
    {TypeId::kFloat, "float"},
    {TypeId::kDouble, "double"},
    {TypeId::kDate, "date"},
    {TypeId::kTime, "time"},
    {TypeId::kTimestamp, "timestamp"},
    {TypeId::kTimestampTz, "timestamptz"},
    {TypeId::kTimestampNs, "timestamp_ns"},
    {TypeId::kTimestampTzNs, "timestamptz_ns"},
    {TypeId::kString, "string"},
    {TypeId::kUuid, "uuid"},
    {TypeId::kBinary, "binary"},
    {TypeId::kUnknown, "unknown"},
    {TypeId::kVariant, "variant"},
};

bool ParseInt(std::string_view text, int* out) {
  const std::optional<int32_t> value = ParseJavaInt(TrimSpace(text));
  if (value) *out = *value;
  return value.has_value();
}

// Strips "prefix(" ... ")" and returns the inside, or nullopt when `text` is not of that
// form.
std::optional<std::string_view> Arguments(std::string_view text, std::string_view prefix,
                                          char open, char close) {
  if (text.size() < prefix.size() + 2 || text.substr(0, prefix.size()) != prefix) {
    return std::nullopt;
  }
  std::string_view rest = TrimSpace(text.substr(prefix.size()));
  if (rest.size() < 2 || rest.front() != open || rest.back() != close)
    return std::nullopt;
  return rest.substr(1, rest.size() - 2);
}

}  // namespace

bool NestedField::operator==(const NestedField& other) const {
  return id == other.id && name == other.name && required == other.required &&
         doc == other.doc && initial_default == other.initial_default &&
         write_default == other.write_default &&
         (type == other.type || (type && other.type && type->Equals(*other.type)));
}

PrimitiveType::PrimitiveType(TypeId id, int precision, int scale, int length,
                             std::string crs, std::string algorithm)
    : Type(id),
      precision_(precision),
      scale_(scale),
      length_(length),
      crs_(std::move(crs)),
      algorithm_(std::move(algorithm)) {}

TypePtr PrimitiveType::Make(TypeId id) {
  // Parameterless primitives are shared singletons; one per id.
  static const auto* const kSingletons = [] {
    auto* map = new std::unordered_map<int, TypePtr>();
    for (const auto& entry : kPrimitiveNames) {
      (*map)[static_cast<int>(entry.id)] =
          std::make_shared<PrimitiveType>(entry.id, 0, 0, 0, "", "");
    }
    return map;
  }();
  auto found = kSingletons->find(static_cast<int>(id));
  if (found != kSingletons->end()) return found->second;
  return std::make_shared<PrimitiveType>(id, 0, 0, 0, "", "");
}

TypePtr PrimitiveType::Decimal(int precision, int scale) {
  return std::make_shared<PrimitiveType>(TypeId::kDecimal, precision, scale, 0, "", "");
}

TypePtr PrimitiveType::Fixed(int length) {
  return std::make_shared<PrimitiveType>(TypeId::kFixed, 0, 0, length, "", "");
}

TypePtr PrimitiveType::Geometry(std::string crs) {
  return std::make_shared<PrimitiveType>(TypeId::kGeometry, 0, 0, 0, std::move(crs), "");
}

TypePtr PrimitiveType::Geography(std::string crs, std::string algorithm) {
  return std::make_shared<PrimitiveType>(TypeId::kGeography, 0, 0, 0, std::move(crs),
                                         std::move(algorithm));
}

std::string PrimitiveType::ToString() const {
  switch (id()) {
    case TypeId::kDecimal:
      return "decimal(" + std::to_string(precision_) + ", " + std::to_string(scale_) +
             ")";
    case TypeId::kFixed:
      return "fixed[" + std::to_string(length_) + "]";
    case TypeId::kGeometry:
      return crs_.empty() ? "geometry" : "geometry(" + crs_ + ")";
    case TypeId::kGeography:
      if (crs_.empty() && algorithm_.empty()) return "geography";
      if (algorithm_.empty()) return "geography(" + crs_ + ")";
      return "geography(" + crs_ + ", " + algorithm_ + ")";
    default:
      break;
  }
  for (const auto& entry : kPrimitiveNames) {
    if (entry.id == id()) return entry.name;
  }
  return "?";
}

bool PrimitiveType::Equals(const Type& other) const {
  if (other.id() != id()) return false;
  const auto& primitive = static_cast<const PrimitiveType&>(other);
  return precision_ == primitive.precision_ && scale_ == primitive.scale_ &&
         length_ == primitive.length_ && crs_ == primitive.crs_ &&
         algorithm_ == primitive.algorithm_;
}

arrow::Result<TypePtr> PrimitiveType::FromString(std::string_view raw) {
  std::string_view text = TrimSpace(raw);
  for (const auto& entry : kPrimitiveNames) {
    if (text == entry.name) return Make(entry.id);
  }
  if (auto inside = Arguments(text, "decimal", '(', ')')) {
    size_t comma = inside->find(',');
    int precision = 0;
    int scale = 0;
    if (comma != std::string_view::npos &&
        ParseInt(inside->substr(0, comma), &precision) &&
        ParseInt(inside->substr(comma + 1), &scale) && precision > 0 && precision <= 38 &&
        scale >= 0 && scale <= precision) {
      return Decimal(precision, scale);
    }
  }
  if (auto inside = Arguments(text, "fixed", '[', ']')) {
    int length = 0;
    if (ParseInt(*inside, &length) && length > 0) return Fixed(length);
  }
  if (text == "geometry") return Geometry("");
  if (auto inside = Arguments(text, "geometry", '(', ')')) {
    return Geometry(std::string(TrimSpace(*inside)));
  }
  if (text == "geography") return Geography("", "");
  if (auto inside = Arguments(text, "geography", '(', ')')) {
    size_t comma = inside->find(',');
    if (comma == std::string_view::npos)
      return Geography(std::string(TrimSpace(*inside)), "");
    return Geography(std::string(TrimSpace(inside->substr(0, comma))),
                     std::string(TrimSpace(inside->substr(comma + 1))));
  }
  return MakeError(ErrorKind::kInvalidMetadata,
                   "unknown Iceberg type '" + std::string(raw) + "'");
}

StructType::StructType(std::vector<NestedField> fields)
    : Type(TypeId::kStruct), fields_(std::move(fields)) {}

const NestedField* StructType::FieldById(int id) const {
  for (const auto& field : fields_) {
    if (field.id == id) return &field;
  }
  return nullptr;
}

const NestedField* StructType::FieldByName(std::string_view name) const {
  for (const auto& field : fields_) {
    if (field.name == name) return &field;
  }
  return nullptr;
}

std::string StructType::ToString() const {
  std::string text = "struct<";
  for (size_t i = 0; i < fields_.size(); ++i) {
    if (i > 0) text += ", ";
    text += std::to_string(fields_[i].id) + ": " + fields_[i].name + ": " +
            (fields_[i].required ? "required " : "optional ") +
            fields_[i].type->ToString();
  }
  return text + ">";
}

bool StructType::Equals(const Type& other) const {
  return other.id() == TypeId::kStruct &&
         static_cast<const StructType&>(other).fields_ == fields_;
}

ListType::ListType(NestedField element)
    : Type(TypeId::kList), element_(std::move(element)) {}

std::string ListType::ToString() const {
  return "list<" + element_.type->ToString() + ">";
}

bool ListType::Equals(const Type& other) const {
  return other.id() == TypeId::kList &&
         static_cast<const ListType&>(other).element_ == element_;
}

MapType::MapType(NestedField key, NestedField value)
    : Type(TypeId::kMap), key_(std::move(key)), value_(std::move(value)) {}

std::string MapType::ToString() const {
  return "map<" + key_.type->ToString() + ", " + value_.type->ToString() + ">";
}

bool MapType::Equals(const Type& other) const {
  if (other.id() != TypeId::kMap) return false;
  const auto& map = static_cast<const MapType&>(other);
  return map.key_ == key_ && map.value_ == value_;
}

namespace types {
TypePtr Boolean() { return PrimitiveType::Make(TypeId::kBoolean); }
TypePtr Int() { return PrimitiveType::Make(TypeId::kInt); }
TypePtr Long() { return PrimitiveType::Make(TypeId::kLong); }
TypePtr Float() { return PrimitiveType::Make(TypeId::kFloat); }
TypePtr Double() { return PrimitiveType::Make(TypeId::kDouble); }
TypePtr Date() { return PrimitiveType::Make(TypeId::kDate); }
TypePtr Time() { return PrimitiveType::Make(TypeId::kTime); }
TypePtr Timestamp() { return PrimitiveType::Make(TypeId::kTimestamp); }
TypePtr TimestampTz() { return PrimitiveType::Make(TypeId::kTimestampTz); }
TypePtr TimestampNs() { return PrimitiveType::Make(TypeId::kTimestampNs); }
TypePtr TimestampTzNs() { return PrimitiveType::Make(TypeId::kTimestampTzNs); }
TypePtr String() { return PrimitiveType::Make(TypeId::kString); }
TypePtr Uuid() { return PrimitiveType::Make(TypeId::kUuid); }
TypePtr Binary() { return PrimitiveType::Make(TypeId::kBinary); }
TypePtr Decimal(int precision, int scale) {
  return PrimitiveType::Decimal(precision, scale);
}
TypePtr Fixed(int length) { return PrimitiveType::Fixed(length); }
std::shared_ptr<const StructType> Struct(std::vector<NestedField> fields) {
  return std::make_shared<StructType>(std::move(fields));
}
TypePtr List(int element_id, TypePtr element, bool element_required) {
  return std::make_shared<ListType>(
      NestedField{element_id, "element", element_required, std::move(element)});
}
TypePtr Map(int key_id, TypePtr key, int value_id, TypePtr value, bool value_required) {
  return std::make_shared<MapType>(
      NestedField{key_id, "key", true, std::move(key)},
      NestedField{value_id, "value", value_required, std::move(value)});
}
NestedField Required(int id, std::string name, TypePtr type) {
  return NestedField{id, std::move(name), true, std::move(type)};
}
NestedField Optional(int id, std::string name, TypePtr type) {
  return NestedField{id, std::move(name), false, std::move(type)};
}
}  // namespace types

bool IsTimestamp(TypeId id) {
  return id == TypeId::kTimestamp || id == TypeId::kTimestampTz ||
         id == TypeId::kTimestampNs || id == TypeId::kTimestampTzNs;
}

bool IsWritable(TypeId id) {
  return id != TypeId::kUnknown && id != TypeId::kVariant && id != TypeId::kGeometry &&
         id != TypeId::kGeography;
}

bool CanPromote(const Type& from, const Type& to) {
  if (from.Equals(to)) return true;
  if (from.id() == TypeId::kInt && to.id() == TypeId::kLong) return true;
  if (from.id() == TypeId::kFloat && to.id() == TypeId::kDouble) return true;
  if (from.id() == TypeId::kDecimal && to.id() == TypeId::kDecimal) {
    const auto& source = static_cast<const PrimitiveType&>(from);
    const auto& target = static_cast<const PrimitiveType&>(to);
    return source.scale() == target.scale() && target.precision() >= source.precision();
  }
  return false;
}

}  // namespace floe
