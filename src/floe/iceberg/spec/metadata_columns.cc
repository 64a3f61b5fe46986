#include "floe/iceberg/spec/metadata_columns.h"

#include <algorithm>
#include <map>
#include <vector>

#include "floe/util/error.h"

namespace floe::iceberg {
namespace {

const std::vector<NestedField>& MetadataColumns() {
  static const std::vector<NestedField> kColumns = [] {
    auto field = [](int id, const char* name, TypeId type, bool required) {
      NestedField column;
      column.id = id;
      column.name = name;
      column.required = required;
      column.type = PrimitiveType::Make(type);
      return column;
    };
    NestedField partition;
    partition.id = kPartitionColumnId;
    partition.name = "_partition";
    partition.type = types::Struct({});
    // Required and optional as iceberg-java declares them: every row has a file, a
    // position and a spec; lineage is null for rows of files added before format v3.
    return std::vector<NestedField>{
        field(kFileColumnId, "_file", TypeId::kString, true),
        field(kPosColumnId, "_pos", TypeId::kLong, true),
        field(kIsDeletedColumnId, "_deleted", TypeId::kBoolean, true),
        field(kSpecIdColumnId, "_spec_id", TypeId::kInt, true),
        partition,
        field(kRowIdColumnId, "_row_id", TypeId::kLong, false),
        field(kLastUpdatedColumnId, "_last_updated_sequence_number", TypeId::kLong,
              false),
    };
  }();
  return kColumns;
}

}  // namespace

const NestedField* FindMetadataColumn(std::string_view name) {
  for (const auto& column : MetadataColumns()) {
    if (column.name == name) return &column;
  }
  return nullptr;
}

arrow::Result<SchemaPtr> WithRowLineage(const Schema& schema) {
  std::vector<NestedField> fields = schema.fields();
  fields.push_back(*FindMetadataColumn(kRowIdColumnId));
  fields.push_back(*FindMetadataColumn(kLastUpdatedColumnId));
  return Schema::Make(schema.schema_id(), std::move(fields),
                      schema.identifier_field_ids());
}

arrow::Result<std::shared_ptr<const StructType>> TablePartitionType(
    const TableMetadata& metadata) {
  SchemaPtr schema = metadata.CurrentSchema();
  std::vector<PartitionSpecPtr> specs = metadata.specs;
  // Newest spec first: its names win.
  std::sort(specs.begin(), specs.end(),
            [](const PartitionSpecPtr& a, const PartitionSpecPtr& b) {
              return a->spec_id() > b->spec_id();
            });
  struct Chosen {
    PartitionField field;
    NestedField type_field;
    std::string name;
  };
  std::map<int, Chosen> chosen;  // by partition field id, so sorted by it
  for (const auto& spec : specs) {
    for (const auto& field : spec->fields()) {
      if (field.transform.kind() == TransformKind::kUnknown) {
        return MakeError(ErrorKind::kInvalidMetadata,
                         "cannot build the table's partition type (_partition): spec " +
                             std::to_string(spec->spec_id()) +
                             " has the unknown transform " + field.transform.ToString());
      }
    }
    ARROW_ASSIGN_OR_RAISE(auto type, spec->PartitionType(*schema));
    for (const auto& field : spec->fields()) {
      // Fields whose source column was dropped from the current schema are left out.
      if (!schema->FindField(field.source_id)) continue;
      const NestedField* type_field = type->FieldById(field.field_id);
      if (!type_field) continue;
      auto it = chosen.find(field.field_id);
      if (it == chosen.end()) {
        chosen.emplace(field.field_id, Chosen{field, *type_field, type_field->name});
        continue;
      }
      const PartitionField& existing = it->second.field;
      const bool is_void = field.transform.kind() == TransformKind::kVoid;
      const bool existing_void = existing.transform.kind() == TransformKind::kVoid;
      if (field.source_id != existing.source_id ||
          !(field.transform == existing.transform || is_void || existing_void)) {
        return MakeError(ErrorKind::kInvalidMetadata,
                         "conflicting partition fields with id " +
                             std::to_string(field.field_id) + ": '" + field.name + "' (" +
                             field.transform.ToString() + ") and '" + existing.name +
                             "' (" + existing.transform.ToString() + ")");
      }
      // A field a format-v1 table dropped is void in newer specs: type it as the spec
      // where it still partitioned.
      if (existing_void && !is_void) {
        it->second.field = field;
        it->second.type_field = *type_field;
      }
    }
  }
  std::vector<NestedField> fields;
  for (auto& [id, value] : chosen) {
    NestedField field = value.type_field;
    field.name = value.name;
    field.required = false;
    fields.push_back(std::move(field));
  }
  return types::Struct(std::move(fields));
}

const NestedField* FindMetadataColumn(int field_id) {
  for (const auto& column : MetadataColumns()) {
    if (column.id == field_id) return &column;
  }
  return nullptr;
}

}  // namespace floe::iceberg
