// JSON of types and schemas, in the field order iceberg-java's SchemaParser writes.
#include "floe/iceberg/spec/json_internal.h"
#include "floe/iceberg/spec/table_metadata.h"
#include "floe/util/json_number_internal.h"

namespace floe::iceberg::json_internal {
namespace {

constexpr int kMaxTypeDepth = 256;

OrderedJson FieldToJson(const NestedField& field) {
  OrderedJson json;
  json["id"] = field.id;
  json["name"] = field.name;
  json["required"] = field.required;
  json["type"] = TypeToJson(*field.type);
  if (!field.doc.empty()) json["doc"] = field.doc;
  if (field.initial_default)
    json["initial-default"] = OrderedJson::parse(*field.initial_default);
  if (field.write_default)
    json["write-default"] = OrderedJson::parse(*field.write_default);
  return json;
}

arrow::Result<TypePtr> TypeFromJsonAtDepth(const Json& json, int depth);

arrow::Result<std::vector<NestedField>> FieldsFromJson(const Json& fields, int depth) {
  if (!fields.is_array()) {
    return MakeError(ErrorKind::kInvalidMetadata, "struct 'fields' is not an array");
  }
  std::vector<NestedField> result;
  result.reserve(fields.size());
  for (const auto& item : fields) {
    NestedField field;
    ARROW_ASSIGN_OR_RAISE(field.id, GetInt(item, "id", "schema field"));
    ARROW_ASSIGN_OR_RAISE(field.name, GetString(item, "name", "schema field"));
    ARROW_ASSIGN_OR_RAISE(field.required,
                          GetBool(item, "required", "field " + field.name));
    ARROW_ASSIGN_OR_RAISE(const Json* type, Member(item, "type", "field " + field.name));
    ARROW_ASSIGN_OR_RAISE(field.type, TypeFromJsonAtDepth(*type, depth + 1));
    if (auto doc = item.find("doc"); doc != item.end() && doc->is_string()) {
      field.doc = doc->get<std::string>();
    }
    if (auto value = item.find("initial-default"); value != item.end()) {
      field.initial_default = value->dump();
    }
    if (auto value = item.find("write-default"); value != item.end()) {
      field.write_default = value->dump();
    }
    result.push_back(std::move(field));
  }
  return result;
}

arrow::Result<TypePtr> TypeFromJsonAtDepth(const Json& json, int depth) {
  if (depth > kMaxTypeDepth) {
    return MakeError(
        ErrorKind::kInvalidMetadata,
        "type nested deeper than " + std::to_string(kMaxTypeDepth) + " levels");
  }
  if (json.is_string()) return PrimitiveType::FromString(json.get<std::string>());
  ARROW_ASSIGN_OR_RAISE(std::string kind, GetString(json, "type", "nested type"));
  if (kind == "struct") {
    ARROW_ASSIGN_OR_RAISE(const Json* fields, Member(json, "fields", "struct type"));
    ARROW_ASSIGN_OR_RAISE(auto children, FieldsFromJson(*fields, depth));
    return std::static_pointer_cast<const Type>(types::Struct(std::move(children)));
  }
  if (kind == "list") {
    NestedField element;
    element.name = "element";
    ARROW_ASSIGN_OR_RAISE(element.id, GetInt(json, "element-id", "list type"));
    ARROW_ASSIGN_OR_RAISE(element.required,
                          GetBool(json, "element-required", "list type"));
    ARROW_ASSIGN_OR_RAISE(const Json* type, Member(json, "element", "list type"));
    ARROW_ASSIGN_OR_RAISE(element.type, TypeFromJsonAtDepth(*type, depth + 1));
    return std::static_pointer_cast<const Type>(
        std::make_shared<ListType>(std::move(element)));
  }
  if (kind == "map") {
    NestedField key{0, "key", true, nullptr};
    NestedField value{0, "value", false, nullptr};
    ARROW_ASSIGN_OR_RAISE(key.id, GetInt(json, "key-id", "map type"));
    ARROW_ASSIGN_OR_RAISE(value.id, GetInt(json, "value-id", "map type"));
    ARROW_ASSIGN_OR_RAISE(value.required, GetBool(json, "value-required", "map type"));
    ARROW_ASSIGN_OR_RAISE(const Json* key_type, Member(json, "key", "map type"));
    ARROW_ASSIGN_OR_RAISE(const Json* value_type, Member(json, "value", "map type"));
    ARROW_ASSIGN_OR_RAISE(key.type, TypeFromJsonAtDepth(*key_type, depth + 1));
    ARROW_ASSIGN_OR_RAISE(value.type, TypeFromJsonAtDepth(*value_type, depth + 1));
    return std::static_pointer_cast<const Type>(
        std::make_shared<MapType>(std::move(key), std::move(value)));
  }
  return MakeError(ErrorKind::kInvalidMetadata, "unknown nested type '" + kind + "'");
}

}  // namespace

OrderedJson TypeToJson(const Type& type) {
  switch (type.id()) {
    case TypeId::kStruct: {
      OrderedJson json;
      json["type"] = "struct";
      OrderedJson fields = OrderedJson::array();
      for (const auto& field : static_cast<const StructType&>(type).fields()) {
        fields.push_back(FieldToJson(field));
      }
      json["fields"] = std::move(fields);
      return json;
    }
    case TypeId::kList: {
      const auto& element = static_cast<const ListType&>(type).element();
      OrderedJson json;
      json["type"] = "list";
      json["element-id"] = element.id;
      json["element"] = TypeToJson(*element.type);
      json["element-required"] = element.required;
      return json;
    }
    case TypeId::kMap: {
      const auto& map = static_cast<const MapType&>(type);
      OrderedJson json;
      json["type"] = "map";
      json["key-id"] = map.key().id;
      json["key"] = TypeToJson(*map.key().type);
      json["value-id"] = map.value().id;
      json["value"] = TypeToJson(*map.value().type);
      json["value-required"] = map.value().required;
      return json;
    }
    default:
      return type.ToString();
  }
}

arrow::Result<TypePtr> TypeFromJson(const Json& json) {
  return TypeFromJsonAtDepth(json, 0);
}

OrderedJson SchemaToJsonValue(const Schema& schema) {
  OrderedJson json;
  json["type"] = "struct";
  json["schema-id"] = schema.schema_id();
  if (!schema.identifier_field_ids().empty()) {
    json["identifier-field-ids"] = schema.identifier_field_ids();
  }
  OrderedJson fields = OrderedJson::array();
  for (const auto& field : schema.fields()) fields.push_back(FieldToJson(field));
  json["fields"] = std::move(fields);
  return json;
}

arrow::Result<SchemaPtr> SchemaFromJsonValue(const Json& json) {
  int schema_id = 0;
  if (auto found = json.find("schema-id"); json.is_object() && found != json.end()) {
    ARROW_ASSIGN_OR_RAISE(schema_id, GetInt(json, "schema-id", "schema"));
  }
  ARROW_ASSIGN_OR_RAISE(const Json* fields_json, Member(json, "fields", "schema"));
  ARROW_ASSIGN_OR_RAISE(auto fields, FieldsFromJson(*fields_json, 0));
  std::vector<int> identifiers;
  if (auto found = json.find("identifier-field-ids"); found != json.end()) {
    if (!found->is_array()) {
      return MakeError(ErrorKind::kInvalidMetadata,
                       "schema identifier-field-ids is not an array");
    }
    for (const auto& id : *found) {
      const std::optional<int32_t> number = JsonInt32(id);
      if (!number) {
        return MakeError(ErrorKind::kInvalidMetadata,
                         "schema identifier-field-ids holds a non-integer");
      }
      identifiers.push_back(*number);
    }
  }
  return Schema::Make(schema_id, std::move(fields), std::move(identifiers));
}

}  // namespace floe::iceberg::json_internal

namespace floe::iceberg {

std::string SchemaToJson(const Schema& schema) {
  return json_internal::SchemaToJsonValue(schema).dump(
      -1, ' ', false, nlohmann::json::error_handler_t::replace);
}

arrow::Result<SchemaPtr> SchemaFromJson(std::string_view text) {
  ARROW_ASSIGN_OR_RAISE(auto json, json_internal::Parse(text, "schema"));
  return json_internal::SchemaFromJsonValue(json);
}

}  // namespace floe::iceberg
