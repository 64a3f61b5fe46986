#include "floe/iceberg/spec/name_mapping.h"

#include <nlohmann/json.hpp>

#include "floe/util/error.h"
#include "floe/util/json_depth_internal.h"
#include "floe/util/json_number_internal.h"

namespace floe::iceberg {
namespace {

arrow::Status Malformed(const std::string& why) {
  return MakeError(
      ErrorKind::kInvalidMetadata,
      "property schema.name-mapping.default is not a valid name mapping: " + why);
}

arrow::Result<std::vector<MappedField>> ParseFields(const nlohmann::json& json) {
  if (!json.is_array()) return Malformed("expected a JSON array of fields");
  std::vector<MappedField> fields;
  for (const auto& item : json) {
    if (!item.is_object()) return Malformed("a field is not a JSON object");
    MappedField field;
    if (auto id = item.find("field-id"); id != item.end() && !id->is_null()) {
      const std::optional<int32_t> number = JsonInt32(*id);
      if (!number) return Malformed("a field-id is not an integer");
      field.field_id = *number;
    }
    auto names = item.find("names");
    if (names == item.end() || !names->is_array())
      return Malformed("a field has no names array");
    for (const auto& name : *names) {
      if (!name.is_string()) return Malformed("a name is not a string");
      field.names.push_back(name.get<std::string>());
    }
    if (auto children = item.find("fields");
        children != item.end() && !children->is_null()) {
      ARROW_ASSIGN_OR_RAISE(field.fields, ParseFields(*children));
    }
    fields.push_back(std::move(field));
  }
  return fields;
}

}  // namespace

arrow::Result<std::shared_ptr<const NameMapping>> ParseNameMapping(
    std::string_view json) {
  if (JsonNestsDeeperThan(json)) return Malformed("nested too deeply");
  auto parsed = nlohmann::json::parse(json.begin(), json.end(), nullptr, false);
  if (parsed.is_discarded()) return Malformed("not JSON");
  ARROW_ASSIGN_OR_RAISE(auto fields, ParseFields(parsed));
  return std::make_shared<const NameMapping>(std::move(fields));
}

arrow::Result<std::shared_ptr<const NameMapping>> TableNameMapping(
    const std::map<std::string, std::string>& properties) {
  auto found = properties.find("schema.name-mapping.default");
  if (found == properties.end()) return std::shared_ptr<const NameMapping>();
  return ParseNameMapping(found->second);
}

const MappedField* FindMappedField(const std::vector<MappedField>& fields,
                                   std::string_view name) {
  for (const auto& field : fields) {
    for (const auto& candidate : field.names) {
      if (candidate == name) return &field;
    }
  }
  return nullptr;
}

}  // namespace floe::iceberg
