// Name mappings (the table property schema.name-mapping.default): how to find the field
// ids of data files written without them, by column name.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "arrow/result.h"

namespace floe::iceberg {

/// One mapped field: the names a file may give it, its field id (absent: the names map to
/// no field), and the mappings of its children (struct fields, a list's `element`, a
/// map's `key` and `value`).
struct MappedField {
  std::optional<int> field_id;
  std::vector<std::string> names;
  std::vector<MappedField> fields;
};

using NameMapping = std::vector<MappedField>;

/// Parses the spec's JSON form: [{"field-id": 1, "names": ["id"]}, {"field-id": 2,
/// "names": ["s"], "fields": [...]}]. Malformed JSON or entries give InvalidMetadata
/// naming schema.name-mapping.default.
arrow::Result<std::shared_ptr<const NameMapping>> ParseNameMapping(std::string_view json);

/// The table's mapping (its schema.name-mapping.default property), or null when unset.
arrow::Result<std::shared_ptr<const NameMapping>> TableNameMapping(
    const std::map<std::string, std::string>& properties);

/// The mapping in `fields` that lists `name`, or null.
const MappedField* FindMappedField(const std::vector<MappedField>& fields,
                                   std::string_view name);

}  // namespace floe::iceberg
