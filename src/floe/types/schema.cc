#include "floe/types/schema.h"

#include "floe/util/utf8_internal.h"

#include <functional>
#include <set>

#include "floe/util/error.h"

namespace floe {

Schema::Schema(int schema_id, std::shared_ptr<const StructType> fields,
               std::vector<int> identifiers)
    : schema_id_(schema_id),
      struct_(std::move(fields)),
      identifier_field_ids_(std::move(identifiers)) {
  Index();
}

arrow::Result<std::shared_ptr<const Schema>> Schema::Make(
    int schema_id, std::vector<NestedField> fields,
    std::vector<int> identifier_field_ids) {
  auto schema = std::make_shared<Schema>(schema_id, types::Struct(std::move(fields)),
                                         std::move(identifier_field_ids));
  std::set<int> seen;
  std::function<arrow::Status(const NestedField&)> check =
      [&](const NestedField& field) -> arrow::Status {
    if (field.type == nullptr) {
      return MakeError(ErrorKind::kInvalidMetadata,
                       "field " + field.name + " has no type");
    }
    // Names and docs are written into JSON metadata: they must be text.
    if (!IsValidUtf8(field.name) || !IsValidUtf8(field.doc)) {
      return MakeError(ErrorKind::kInvalidMetadata, "the name or doc of field id " +
                                                        std::to_string(field.id) +
                                                        " is not valid UTF-8");
    }
    if (field.id < 0 || !seen.insert(field.id).second) {
      return MakeError(ErrorKind::kInvalidMetadata,
                       "field id " + std::to_string(field.id) + " of field '" +
                           field.name + "' is negative or not unique in schema " +
                           std::to_string(schema_id));
    }
    switch (field.type->id()) {
      case TypeId::kStruct: {
        std::set<std::string> names;
        for (const auto& child : static_cast<const StructType&>(*field.type).fields()) {
          if (!names.insert(child.name).second) {
            return MakeError(
                ErrorKind::kInvalidMetadata,
                "struct '" + field.name + "' repeats field name '" + child.name + "'");
          }
          ARROW_RETURN_NOT_OK(check(child));
        }
        break;
      }
      case TypeId::kList:
        ARROW_RETURN_NOT_OK(check(static_cast<const ListType&>(*field.type).element()));
        break;
      case TypeId::kMap:
        ARROW_RETURN_NOT_OK(check(static_cast<const MapType&>(*field.type).key()));
        ARROW_RETURN_NOT_OK(check(static_cast<const MapType&>(*field.type).value()));
        break;
      default:
        break;
    }
    return arrow::Status::OK();
  };
  std::set<std::string> top_names;
  for (const auto& field : schema->fields()) {
    if (!top_names.insert(field.name).second) {
      return MakeError(ErrorKind::kInvalidMetadata,
                       "schema " + std::to_string(schema_id) + " repeats column name '" +
                           field.name + "'");
    }
    ARROW_RETURN_NOT_OK(check(field));
  }
  for (int id : schema->identifier_field_ids()) {
    const NestedField* field = schema->FindField(id);
    if (field == nullptr || !field->required || !field->type->is_primitive()) {
      return MakeError(ErrorKind::kInvalidMetadata,
                       "identifier field id " + std::to_string(id) +
                           " is not a required primitive field of schema " +
                           std::to_string(schema_id));
    }
  }
  return schema;
}

void Schema::Index() {
  // Full names first; short names (iceberg-java's IndexByName) only where they do not
  // collide.
  std::map<std::string, int, std::less<>> short_names;
  std::function<void(const NestedField&, const std::string&, const std::string&, int)>
      visit = [&](const NestedField& field, const std::string& prefix,
                  const std::string& short_prefix, int parent) {
        std::string full = prefix.empty() ? field.name : prefix + "." + field.name;
        std::string short_name =
            short_prefix.empty() ? field.name : short_prefix + "." + field.name;
        by_id_[field.id] = &field;
        id_to_name_[field.id] = full;
        name_to_id_[full] = field.id;
        if (short_name != full) short_names.emplace(short_name, field.id);
        if (parent >= 0) parent_of_[field.id] = parent;
        all_field_ids_.push_back(field.id);
        highest_field_id_ = std::max(highest_field_id_, field.id);
        if (field.type == nullptr) return;
        switch (field.type->id()) {
          case TypeId::kStruct:
            for (const auto& child :
                 static_cast<const StructType&>(*field.type).fields()) {
              visit(child, full, short_name, field.id);
            }
            break;
          case TypeId::kList: {
            const auto& element = static_cast<const ListType&>(*field.type).element();
            // A struct element's fields are also reachable without "element".
            if (element.type && element.type->id() == TypeId::kStruct) {
              by_id_[element.id] = &element;
              id_to_name_[element.id] = full + ".element";
              name_to_id_[full + ".element"] = element.id;
              parent_of_[element.id] = field.id;
              all_field_ids_.push_back(element.id);
              highest_field_id_ = std::max(highest_field_id_, element.id);
              for (const auto& child :
                   static_cast<const StructType&>(*element.type).fields()) {
                visit(child, full + ".element", short_name, element.id);
              }
            } else {
              visit(element, full, short_name, field.id);
            }
            break;
          }
          case TypeId::kMap: {
            const auto& map = static_cast<const MapType&>(*field.type);
            visit(map.key(), full, short_name, field.id);
            const auto& value = map.value();
            if (value.type && value.type->id() == TypeId::kStruct) {
              by_id_[value.id] = &value;
              id_to_name_[value.id] = full + ".value";
              name_to_id_[full + ".value"] = value.id;
              parent_of_[value.id] = field.id;
              all_field_ids_.push_back(value.id);
              highest_field_id_ = std::max(highest_field_id_, value.id);
              for (const auto& child :
                   static_cast<const StructType&>(*value.type).fields()) {
                visit(child, full + ".value", short_name, value.id);
              }
            } else {
              visit(value, full, short_name, field.id);
            }
            break;
          }
          default:
            break;
        }
      };
  for (const auto& field : struct_->fields()) visit(field, "", "", -1);
  for (const auto& [name, id] : short_names) name_to_id_.emplace(name, id);
}

const NestedField* Schema::FindField(int field_id) const {
  auto found = by_id_.find(field_id);
  return found == by_id_.end() ? nullptr : found->second;
}

std::optional<std::string> Schema::FindColumnName(int field_id) const {
  auto found = id_to_name_.find(field_id);
  if (found == id_to_name_.end()) return std::nullopt;
  return found->second;
}

std::optional<int> Schema::FindFieldId(std::string_view name) const {
  auto found = name_to_id_.find(name);
  if (found == name_to_id_.end()) return std::nullopt;
  return found->second;
}

std::optional<int> Schema::FindParentId(int field_id) const {
  auto found = parent_of_.find(field_id);
  if (found == parent_of_.end()) return std::nullopt;
  return found->second;
}

bool Schema::SameStructure(const Schema& other) const {
  return struct_->Equals(*other.struct_) &&
         identifier_field_ids_ == other.identifier_field_ids_;
}

std::string Schema::ToString() const { return struct_->ToString(); }

std::vector<NestedField> AssignFreshIds(const std::vector<NestedField>& fields,
                                        int* last_column_id) {
  // iceberg-java assigns ids to all fields of a struct before descending into any of
  // them.
  std::function<TypePtr(const TypePtr&)> reassign_type;
  auto reassign_struct = [&](const std::vector<NestedField>& children) {
    std::vector<NestedField> result = children;
    for (auto& child : result) child.id = ++*last_column_id;
    for (auto& child : result) child.type = reassign_type(child.type);
    return result;
  };
  reassign_type = [&](const TypePtr& type) -> TypePtr {
    switch (type->id()) {
      case TypeId::kStruct:
        return types::Struct(
            reassign_struct(static_cast<const StructType&>(*type).fields()));
      case TypeId::kList: {
        NestedField element = static_cast<const ListType&>(*type).element();
        element.id = ++*last_column_id;
        element.type = reassign_type(element.type);
        return std::make_shared<ListType>(std::move(element));
      }
      case TypeId::kMap: {
        NestedField key = static_cast<const MapType&>(*type).key();
        NestedField value = static_cast<const MapType&>(*type).value();
        key.id = ++*last_column_id;
        value.id = ++*last_column_id;
        key.type = reassign_type(key.type);
        value.type = reassign_type(value.type);
        return std::make_shared<MapType>(std::move(key), std::move(value));
      }
      default:
        return type;
    }
  };
  return reassign_struct(fields);
}

}  // namespace floe

namespace floe {
namespace {

std::optional<NestedField> Prune(const NestedField& field, const std::set<int>& ids) {
  if (ids.count(field.id)) return field;
  const Type& type = *field.type;
  switch (type.id()) {
    case TypeId::kStruct: {
      std::vector<NestedField> kept;
      for (const auto& child : static_cast<const StructType&>(type).fields()) {
        if (auto pruned = Prune(child, ids)) kept.push_back(std::move(*pruned));
      }
      if (kept.empty()) return std::nullopt;
      NestedField result = field;
      result.type = std::make_shared<StructType>(std::move(kept));
      return result;
    }
    case TypeId::kList: {
      auto element = Prune(static_cast<const ListType&>(type).element(), ids);
      if (!element) return std::nullopt;
      NestedField result = field;
      result.type = std::make_shared<ListType>(std::move(*element));
      return result;
    }
    case TypeId::kMap: {
      const auto& map = static_cast<const MapType&>(type);
      auto key = Prune(map.key(), ids);
      auto value = Prune(map.value(), ids);
      if (!key && !value) return std::nullopt;
      NestedField result = field;
      result.type = std::make_shared<MapType>(map.key(), value ? *value : map.value());
      return result;
    }
    default:
      return std::nullopt;
  }
}

}  // namespace

SchemaPtr SelectFields(const Schema& schema, const std::set<int>& ids) {
  std::vector<NestedField> kept;
  for (const auto& field : schema.fields()) {
    if (auto pruned = Prune(field, ids)) kept.push_back(std::move(*pruned));
  }
  std::vector<int> identifiers;
  for (int id : schema.identifier_field_ids()) {
    if (ids.count(id)) identifiers.push_back(id);
  }
  auto made = Schema::Make(schema.schema_id(), std::move(kept), std::move(identifiers));
  // Pruning a valid schema keeps it valid.
  return made.ok() ? *made : nullptr;
}

arrow::Result<std::vector<int>> StructPathTo(const Schema& schema, int source_id,
                                             const std::string& what) {
  if (schema.FindField(source_id) == nullptr) {
    return MakeError(ErrorKind::kInvalidInput,
                     what + " has no source column in the schema");
  }
  // The ids from the top-level column down to the source.
  std::vector<int> chain;
  for (std::optional<int> current = source_id; current;
       current = schema.FindParentId(*current)) {
    chain.push_back(*current);
  }
  std::vector<int> path;
  const std::vector<NestedField>* level = &schema.fields();
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    int index = -1;
    if (level != nullptr) {
      for (size_t i = 0; i < level->size(); ++i) {
        if ((*level)[i].id == *it) index = static_cast<int>(i);
      }
    }
    if (index < 0) {
      return MakeError(ErrorKind::kInvalidInput,
                       what + " has a source inside a list or map");
    }
    path.push_back(index);
    const auto& type = (*level)[static_cast<size_t>(index)].type;
    level = type->id() == TypeId::kStruct
                ? &static_cast<const StructType&>(*type).fields()
                : nullptr;
  }
  return path;
}

}  // namespace floe
