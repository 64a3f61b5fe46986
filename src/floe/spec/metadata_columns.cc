#include "floe/spec/metadata_columns.h"

#include <vector>

namespace floe {
namespace {

const std::vector<NestedField>& MetadataColumns() {
  static const std::vector<NestedField> columns = [] {
    auto field = [](int id, const char* name, TypeId type, bool required) {
      NestedField column;
      column.id = id;
      column.name = name;
      column.required = required;
      column.type = PrimitiveType::Make(type);
      return column;
    };
    // Required and optional as iceberg-java declares them: every row has a file, a
    // position and a spec; lineage is null for rows of files added before format v3.
    return std::vector<NestedField>{
        field(kFileColumnId, "_file", TypeId::kString, true),
        field(kPosColumnId, "_pos", TypeId::kLong, true),
        field(kSpecIdColumnId, "_spec_id", TypeId::kInt, true),
        field(kRowIdColumnId, "_row_id", TypeId::kLong, false),
        field(kLastUpdatedColumnId, "_last_updated_sequence_number", TypeId::kLong,
              false),
    };
  }();
  return columns;
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

const NestedField* FindMetadataColumn(int field_id) {
  for (const auto& column : MetadataColumns()) {
    if (column.id == field_id) return &column;
  }
  return nullptr;
}

}  // namespace floe
