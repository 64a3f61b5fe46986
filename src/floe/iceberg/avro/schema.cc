#include "floe/iceberg/avro/schema.h"

#include <charconv>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "floe/util/error.h"
#include "floe/util/json_depth_internal.h"
#include "floe/util/number_text.h"

namespace floe::iceberg::avro {
namespace {

using Json = nlohmann::ordered_json;
constexpr int kMaxDepth = 128;

arrow::Status Invalid(const std::string& message) {
  return MakeError(ErrorKind::kInvalidMetadata, "Avro schema: " + message);
}

struct NamedPrimitive {
  const char* name;
  AvroType type;
};
constexpr NamedPrimitive kPrimitives[] = {
    {"null", AvroType::kNull},   {"boolean", AvroType::kBoolean},
    {"int", AvroType::kInt},     {"long", AvroType::kLong},
    {"float", AvroType::kFloat}, {"double", AvroType::kDouble},
    {"bytes", AvroType::kBytes}, {"string", AvroType::kString},
};

const char* PrimitiveName(AvroType type) {
  for (const auto& primitive : kPrimitives) {
    if (primitive.type == type) return primitive.name;
  }
  return nullptr;
}

bool IsReservedKey(const std::string& key) {
  static const std::set<std::string> kReserved = {
      "type",    "name", "namespace", "fields",  "items",   "values",
      "symbols", "size", "doc",       "default", "aliases", "order"};
  return kReserved.count(key) > 0;
}

std::vector<AvroProperty> CollectProperties(const Json& json) {
  std::vector<AvroProperty> properties;
  for (const auto& [key, value] : json.items()) {
    if (!IsReservedKey(key)) properties.emplace_back(key, value.dump());
  }
  return properties;
}

class Parser {
 public:
  arrow::Result<AvroNodePtr> Parse(const Json& json, int depth) {
    if (depth > kMaxDepth) return Invalid("nested deeper than 128 levels");
    if (json.is_string()) {
      std::string name = json.get<std::string>();
      for (const auto& primitive : kPrimitives) {
        if (name == primitive.name) return MakePrimitive(primitive.type);
      }
      auto found = named_.find(name);
      if (found == named_.end()) {
        // Names may be qualified; Iceberg's are not, so also try the last component.
        auto dot = name.rfind('.');
        if (dot != std::string::npos) found = named_.find(name.substr(dot + 1));
      }
      if (found == named_.end()) return Invalid("unknown type name '" + name + "'");
      return found->second;
    }
    if (json.is_array()) {
      auto node = std::make_shared<AvroNode>();
      node->type = AvroType::kUnion;
      for (const auto& branch : json) {
        ARROW_ASSIGN_OR_RAISE(auto parsed, Parse(branch, depth + 1));
        node->branches.push_back(std::move(parsed));
      }
      if (node->branches.empty()) return Invalid("empty union");
      return AvroNodePtr(std::move(node));
    }
    if (!json.is_object()) return Invalid("a schema must be a string, array or object");
    auto type_it = json.find("type");
    if (type_it == json.end()) return Invalid("object without 'type'");
    if (!type_it->is_string()) {
      // {"type": {...}} wraps another schema.
      return Parse(*type_it, depth + 1);
    }
    std::string type = type_it->get<std::string>();
    auto node = std::make_shared<AvroNode>();
    node->properties = CollectProperties(json);
    for (const auto& primitive : kPrimitives) {
      if (type == primitive.name) {
        node->type = primitive.type;
        return AvroNodePtr(std::move(node));
      }
    }
    if (type == "record" || type == "error") {
      node->type = AvroType::kRecord;
      ARROW_ASSIGN_OR_RAISE(node->name, Name(json));
      if (auto doc = json.find("doc"); doc != json.end() && doc->is_string()) {
        node->doc = doc->get<std::string>();
      }
      // Register before the fields so recursive references resolve (not used by Iceberg).
      named_[node->name] = node;
      auto fields = json.find("fields");
      if (fields == json.end() || !fields->is_array()) {
        return Invalid("record '" + node->name + "' has no fields array");
      }
      std::set<std::string> names;
      for (const auto& field_json : *fields) {
        if (!field_json.is_object()) return Invalid("record field is not an object");
        AvroField field;
        auto name = field_json.find("name");
        if (name == field_json.end() || !name->is_string()) {
          return Invalid("record '" + node->name + "' has a field without a name");
        }
        field.name = name->get<std::string>();
        if (!names.insert(field.name).second) {
          return Invalid("record '" + node->name + "' repeats field '" + field.name +
                         "'");
        }
        auto field_type = field_json.find("type");
        if (field_type == field_json.end()) {
          return Invalid("field '" + field.name + "' has no type");
        }
        ARROW_ASSIGN_OR_RAISE(field.type, Parse(*field_type, depth + 1));
        if (auto doc = field_json.find("doc");
            doc != field_json.end() && doc->is_string()) {
          field.doc = doc->get<std::string>();
        }
        if (auto value = field_json.find("default"); value != field_json.end()) {
          field.default_json = value->dump();
        }
        field.properties = CollectProperties(field_json);
        node->fields.push_back(std::move(field));
      }
      return AvroNodePtr(std::move(node));
    }
    if (type == "enum") {
      node->type = AvroType::kEnum;
      ARROW_ASSIGN_OR_RAISE(node->name, Name(json));
      auto symbols = json.find("symbols");
      if (symbols == json.end() || !symbols->is_array())
        return Invalid("enum without symbols");
      for (const auto& symbol : *symbols) {
        if (!symbol.is_string()) return Invalid("enum symbol is not a string");
        node->symbols.push_back(symbol.get<std::string>());
      }
      named_[node->name] = node;
      return AvroNodePtr(std::move(node));
    }
    if (type == "array") {
      node->type = AvroType::kArray;
      auto items = json.find("items");
      if (items == json.end()) return Invalid("array without items");
      ARROW_ASSIGN_OR_RAISE(node->items, Parse(*items, depth + 1));
      return AvroNodePtr(std::move(node));
    }
    if (type == "map") {
      node->type = AvroType::kMap;
      auto values = json.find("values");
      if (values == json.end()) return Invalid("map without values");
      ARROW_ASSIGN_OR_RAISE(node->values, Parse(*values, depth + 1));
      return AvroNodePtr(std::move(node));
    }
    if (type == "fixed") {
      node->type = AvroType::kFixed;
      ARROW_ASSIGN_OR_RAISE(node->name, Name(json));
      auto size = json.find("size");
      if (size == json.end() || !size->is_number_integer() || size->get<int64_t>() < 0 ||
          size->get<int64_t>() > (1 << 20)) {
        return Invalid("fixed '" + node->name + "' has no valid size");
      }
      node->size = size->get<int>();
      named_[node->name] = node;
      return AvroNodePtr(std::move(node));
    }
    // A reference to a named type written as {"type": "name"}.
    return Parse(Json(type), depth + 1);
  }

 private:
  arrow::Result<std::string> Name(const Json& json) {
    auto name = json.find("name");
    if (name == json.end() || !name->is_string())
      return Invalid("named type without a name");
    return name->get<std::string>();
  }

  std::map<std::string, AvroNodePtr> named_;
};

void AppendProperties(Json* json, const std::vector<AvroProperty>& properties) {
  for (const auto& [key, value] : properties) (*json)[key] = Json::parse(value);
}

Json ToJsonValue(const AvroNode& node, std::set<std::string>* defined) {
  switch (node.type) {
    case AvroType::kRecord: {
      if (!defined->insert(node.name).second) return node.name;
      Json json;
      json["type"] = "record";
      json["name"] = node.name;
      if (!node.doc.empty()) json["doc"] = node.doc;
      Json fields = Json::array();
      for (const auto& field : node.fields) {
        Json item;
        item["name"] = field.name;
        item["type"] = ToJsonValue(*field.type, defined);
        if (!field.doc.empty()) item["doc"] = field.doc;
        if (field.default_json) item["default"] = Json::parse(*field.default_json);
        AppendProperties(&item, field.properties);
        fields.push_back(std::move(item));
      }
      json["fields"] = std::move(fields);
      AppendProperties(&json, node.properties);
      return json;
    }
    case AvroType::kEnum: {
      if (!defined->insert(node.name).second) return node.name;
      Json json;
      json["type"] = "enum";
      json["name"] = node.name;
      json["symbols"] = node.symbols;
      AppendProperties(&json, node.properties);
      return json;
    }
    case AvroType::kFixed: {
      if (!defined->insert(node.name).second) return node.name;
      Json json;
      json["type"] = "fixed";
      json["name"] = node.name;
      json["size"] = node.size;
      AppendProperties(&json, node.properties);
      return json;
    }
    case AvroType::kArray: {
      Json json;
      json["type"] = "array";
      json["items"] = ToJsonValue(*node.items, defined);
      AppendProperties(&json, node.properties);
      return json;
    }
    case AvroType::kMap: {
      Json json;
      json["type"] = "map";
      json["values"] = ToJsonValue(*node.values, defined);
      AppendProperties(&json, node.properties);
      return json;
    }
    case AvroType::kUnion: {
      Json json = Json::array();
      for (const auto& branch : node.branches)
        json.push_back(ToJsonValue(*branch, defined));
      return json;
    }
    default: {
      if (node.properties.empty()) return PrimitiveName(node.type);
      Json json;
      json["type"] = PrimitiveName(node.type);
      AppendProperties(&json, node.properties);
      return json;
    }
  }
}

}  // namespace

int AvroField::FieldId() const {
  for (const auto& [key, value] : properties) {
    if (key == "field-id") {
      if (auto id = ParseJavaInt(value)) return *id;
    }
  }
  return -1;
}

std::optional<std::string> AvroNode::Property(std::string_view key) const {
  for (const auto& [name, value] : properties) {
    if (name == key) return value;
  }
  return std::nullopt;
}

int AvroNode::IntProperty(std::string_view key) const {
  auto value = Property(key);
  if (!value) return -1;
  return ParseJavaInt(*value).value_or(-1);
}

std::string AvroNode::LogicalType() const {
  auto value = Property("logicalType");
  if (!value || value->size() < 2 || value->front() != '"') return "";
  return value->substr(1, value->size() - 2);
}

const AvroNode* AvroNode::NonNull() const {
  if (type != AvroType::kUnion) return this;
  for (const auto& branch : branches) {
    if (branch->type != AvroType::kNull) return branch.get();
  }
  return nullptr;
}

size_t AvroNode::MinimumEncodedSize() const {
  switch (type) {
    case AvroType::kNull:
      return 0;
    case AvroType::kFloat:
      return 4;
    case AvroType::kDouble:
      return 8;
    case AvroType::kFixed:
      return static_cast<size_t>(size);
    case AvroType::kRecord: {
      size_t total = 0;
      for (const auto& field : fields) total += field.type->MinimumEncodedSize();
      return total;
    }
    default:
      return 1;  // a varint, a length, a block count or a union index
  }
}

arrow::Result<AvroNodePtr> ParseAvroSchema(std::string_view text) {
  if (JsonNestsDeeperThan(text)) {
    return Invalid("nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
  }
  Json json = Json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) return Invalid("not valid JSON");
  Parser parser;
  return parser.Parse(json, 0);
}

std::string AvroSchemaToJson(const AvroNode& schema) {
  std::set<std::string> defined;
  return ToJsonValue(schema, &defined).dump();
}

AvroNodePtr MakePrimitive(AvroType type, std::vector<AvroProperty> properties) {
  auto node = std::make_shared<AvroNode>();
  node->type = type;
  node->properties = std::move(properties);
  return node;
}

AvroNodePtr MakeOptional(AvroNodePtr type) {
  auto node = std::make_shared<AvroNode>();
  node->type = AvroType::kUnion;
  node->branches = {MakePrimitive(AvroType::kNull), std::move(type)};
  return node;
}

AvroNodePtr MakeArray(AvroNodePtr items, std::vector<AvroProperty> properties) {
  auto node = std::make_shared<AvroNode>();
  node->type = AvroType::kArray;
  node->items = std::move(items);
  node->properties = std::move(properties);
  return node;
}

AvroNodePtr MakeMap(AvroNodePtr values, std::vector<AvroProperty> properties) {
  auto node = std::make_shared<AvroNode>();
  node->type = AvroType::kMap;
  node->values = std::move(values);
  node->properties = std::move(properties);
  return node;
}

AvroNodePtr MakeFixed(std::string name, int size, std::vector<AvroProperty> properties) {
  auto node = std::make_shared<AvroNode>();
  node->type = AvroType::kFixed;
  node->name = std::move(name);
  node->size = size;
  node->properties = std::move(properties);
  return node;
}

AvroNodePtr MakeRecord(std::string name, std::vector<AvroField> fields) {
  auto node = std::make_shared<AvroNode>();
  node->type = AvroType::kRecord;
  node->name = std::move(name);
  node->fields = std::move(fields);
  return node;
}

}  // namespace floe::iceberg::avro
