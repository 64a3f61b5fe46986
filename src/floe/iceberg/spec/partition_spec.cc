#include "floe/iceberg/spec/partition_spec.h"

#include <charconv>
#include <set>

#include "floe/iceberg/spec/json_internal.h"
#include "floe/iceberg/spec/table_metadata.h"
#include "floe/util/number_text.h"
#include "floe/util/text.h"
#include "floe/util/utf8_internal.h"

namespace floe::iceberg {

arrow::Result<std::shared_ptr<const PartitionSpec>> PartitionSpec::Make(
    int spec_id, std::vector<PartitionField> fields) {
  std::set<int> ids;
  std::set<std::string> names;
  for (const auto& field : fields) {
    if (!ids.insert(field.field_id).second) {
      return MakeError(ErrorKind::kInvalidMetadata,
                       "partition spec " + std::to_string(spec_id) +
                           " repeats field id " + std::to_string(field.field_id));
    }
    if (!IsValidUtf8(field.name)) {
      return MakeError(ErrorKind::kInvalidMetadata,
                       "partition spec " + std::to_string(spec_id) +
                           " has a field name (id " + std::to_string(field.field_id) +
                           ") that is not valid UTF-8");
    }
    if (field.name.empty() || !names.insert(field.name).second) {
      return MakeError(ErrorKind::kInvalidMetadata,
                       "partition spec " + std::to_string(spec_id) +
                           " has an empty or repeated field name '" + field.name + "'");
    }
  }
  return std::make_shared<PartitionSpec>(spec_id, std::move(fields));
}

std::shared_ptr<const PartitionSpec> PartitionSpec::Unpartitioned() {
  static const auto kUnpartitioned =
      std::make_shared<const PartitionSpec>(0, std::vector<PartitionField>{});
  return kUnpartitioned;
}

bool PartitionSpec::IsUnpartitioned() const {
  for (const auto& field : fields_) {
    if (field.transform.kind() != TransformKind::kVoid) return false;
  }
  return true;
}

std::vector<Value> PartitionSpec::Coerce(const std::vector<Value>& partition,
                                         const std::vector<int>& field_ids) const {
  std::vector<Value> result;
  result.reserve(field_ids.size());
  for (int id : field_ids) {
    Value value;  // null
    for (size_t p = 0; p < fields_.size() && p < partition.size(); ++p) {
      if (fields_[p].field_id == id) value = partition[p];
    }
    result.push_back(std::move(value));
  }
  return result;
}

int PartitionSpec::LastAssignedFieldId() const {
  int last = kPartitionDataIdStart - 1;
  for (const auto& field : fields_) last = std::max(last, field.field_id);
  return last;
}

arrow::Result<std::shared_ptr<const StructType>> PartitionSpec::PartitionType(
    const Schema& schema) const {
  std::vector<NestedField> fields;
  fields.reserve(fields_.size());
  for (const auto& field : fields_) {
    const NestedField* source = schema.FindField(field.source_id);
    TypePtr result_type;
    if (source == nullptr) {
      // A dropped source column: iceberg-java types the partition field as unknown.
      result_type = PrimitiveType::Make(TypeId::kUnknown);
    } else {
      if (!field.transform.CanTransform(*source->type)) {
        return MakeError(ErrorKind::kInvalidMetadata,
                         "partition field '" + field.name + "': transform " +
                             field.transform.ToString() + " cannot apply to " +
                             source->type->ToString());
      }
      result_type = field.transform.ResultType(source->type);
    }
    fields.push_back(types::Optional(field.field_id, field.name, std::move(result_type)));
  }
  return types::Struct(std::move(fields));
}

namespace {

std::string Unquote(std::string_view name) {
  name = TrimSpace(name);
  if (name.size() >= 2 && name.front() == '`' && name.back() == '`') {
    name = name.substr(1, name.size() - 2);
  }
  return std::string(name);
}

}  // namespace

arrow::Result<std::vector<std::string_view>> SplitClause(std::string_view text) {
  std::vector<std::string_view> parts;
  int depth = 0;
  bool quoted = false;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '`') quoted = !quoted;
    if (quoted) continue;
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (depth < 0) break;
    if (c == ',' && depth == 0) {
      parts.push_back(TrimSpace(text.substr(start, i - start)));
      start = i + 1;
    }
  }
  if (depth != 0 || quoted) {
    return MakeError(ErrorKind::kInvalidInput,
                     "unbalanced parentheses or quotes in '" + std::string(text) + "'");
  }
  parts.push_back(TrimSpace(text.substr(start)));
  return parts;
}

arrow::Result<TransformTerm> ParseTransformTerm(std::string_view term,
                                                const Schema& schema,
                                                std::string_view option) {
  auto bad = [&](const std::string& why) {
    return MakeError(ErrorKind::kInvalidInput,
                     std::string(option) + " term '" + std::string(term) + "': " + why);
  };
  term = TrimSpace(term);
  if (term.empty()) return bad("empty term");
  TransformTerm parsed;
  parsed.transform = Transform::Identity();
  size_t open = term.find('(');
  if (open == std::string_view::npos || term.front() == '`') {
    parsed.column = Unquote(term);
  } else {
    if (term.back() != ')') return bad("expected 'transform(column)'");
    std::string name = AsciiLower(TrimSpace(term.substr(0, open)));
    ARROW_ASSIGN_OR_RAISE(auto arguments,
                          SplitClause(term.substr(open + 1, term.size() - open - 2)));
    if (name == "bucket" || name == "truncate") {
      if (arguments.size() != 2) return bad(name + " takes (width, column)");
      const int32_t width = ParseJavaInt(arguments[0]).value_or(0);
      if (width <= 0) {
        return bad("width must be a positive integer");
      }
      parsed.transform =
          name == "bucket" ? Transform::Bucket(width) : Transform::Truncate(width);
      parsed.column = Unquote(arguments[1]);
    } else {
      if (arguments.size() != 1) return bad(name + " takes one column");
      // Spark spells the time transforms in the plural; accept both.
      if (name == "years") name = "year";
      if (name == "months") name = "month";
      if (name == "days") name = "day";
      if (name == "hours") name = "hour";
      ARROW_ASSIGN_OR_RAISE(parsed.transform, Transform::Parse(name));
      if (parsed.transform.kind() == TransformKind::kUnknown ||
          parsed.transform.parameter() != 0) {
        return bad("unknown transform '" + name + "'");
      }
      parsed.column = Unquote(arguments[0]);
    }
  }
  auto source_id = schema.FindFieldId(parsed.column);
  if (!source_id) return bad("no column '" + parsed.column + "' in the table schema");
  const NestedField* source = schema.FindField(*source_id);
  if (!parsed.transform.CanTransform(*source->type)) {
    return bad("transform " + parsed.transform.ToString() + " cannot apply to column '" +
               parsed.column + "' of type " + source->type->ToString());
  }
  parsed.source_id = *source_id;
  return parsed;
}

arrow::Result<PartitionSpecPtr> ParsePartitionBy(std::string_view text,
                                                 const Schema& schema, int spec_id) {
  std::vector<PartitionField> fields;
  int next_id = kPartitionDataIdStart;
  if (TrimSpace(text).empty()) return PartitionSpec::Make(spec_id, {});
  auto split = SplitClause(text);
  if (!split.ok()) return WithContext(split.status(), "--partition-by");
  for (std::string_view term : *split) {
    ARROW_ASSIGN_OR_RAISE(auto parsed,
                          ParseTransformTerm(term, schema, "--partition-by"));
    fields.push_back(
        PartitionField{parsed.source_id, next_id++,
                       parsed.column + std::string(parsed.transform.DefaultNameSuffix()),
                       parsed.transform});
  }
  return PartitionSpec::Make(spec_id, std::move(fields));
}

namespace json_internal {

OrderedJson PartitionFieldsToJsonValue(const PartitionSpec& spec) {
  OrderedJson fields = OrderedJson::array();
  for (const auto& field : spec.fields()) {
    OrderedJson json;
    json["name"] = field.name;
    json["transform"] = field.transform.ToString();
    json["source-id"] = field.source_id;
    json["field-id"] = field.field_id;
    fields.push_back(std::move(json));
  }
  return fields;
}

OrderedJson PartitionSpecToJsonValue(const PartitionSpec& spec) {
  OrderedJson json;
  json["spec-id"] = spec.spec_id();
  json["fields"] = PartitionFieldsToJsonValue(spec);
  return json;
}

arrow::Result<PartitionSpecPtr> PartitionFieldsFromJsonValue(const Json& fields,
                                                             int spec_id) {
  if (!fields.is_array()) {
    return MakeError(ErrorKind::kInvalidMetadata,
                     "partition spec fields is not an array");
  }
  std::vector<PartitionField> result;
  // v1 specs may omit field ids; they are then assigned from 1000 in order.
  int next_id = kPartitionDataIdStart;
  for (const auto& item : fields) {
    PartitionField field;
    ARROW_ASSIGN_OR_RAISE(field.name, GetString(item, "name", "partition field"));
    ARROW_ASSIGN_OR_RAISE(std::string transform,
                          GetString(item, "transform", "partition field " + field.name));
    ARROW_ASSIGN_OR_RAISE(field.transform, Transform::Parse(transform));
    ARROW_ASSIGN_OR_RAISE(field.source_id,
                          GetInt(item, "source-id", "partition field " + field.name));
    if (item.contains("field-id")) {
      ARROW_ASSIGN_OR_RAISE(field.field_id,
                            GetInt(item, "field-id", "partition field " + field.name));
    } else {
      field.field_id = next_id;
    }
    next_id = std::max(next_id, field.field_id) + 1;
    result.push_back(std::move(field));
  }
  return PartitionSpec::Make(spec_id, std::move(result));
}

arrow::Result<PartitionSpecPtr> PartitionSpecFromJsonValue(const Json& json) {
  ARROW_ASSIGN_OR_RAISE(int spec_id, GetInt(json, "spec-id", "partition spec"));
  ARROW_ASSIGN_OR_RAISE(const Json* fields, Member(json, "fields", "partition spec"));
  return PartitionFieldsFromJsonValue(*fields, spec_id);
}

}  // namespace json_internal

std::string PartitionSpecToJson(const PartitionSpec& spec) {
  return json_internal::PartitionSpecToJsonValue(spec).dump();
}

std::string PartitionFieldsToJson(const PartitionSpec& spec) {
  return json_internal::PartitionFieldsToJsonValue(spec).dump();
}

arrow::Result<PartitionSpecPtr> PartitionSpecFromJson(std::string_view text) {
  ARROW_ASSIGN_OR_RAISE(auto json, json_internal::Parse(text, "partition spec"));
  return json_internal::PartitionSpecFromJsonValue(json);
}

}  // namespace floe::iceberg
