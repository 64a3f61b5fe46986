// An Iceberg schema: a struct of fields identified by id, with a schema id and the
// optional identifier (row key) fields.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "arrow/result.h"
#include "floe/types/type.h"

namespace floe {

/// Immutable; share as std::shared_ptr<const Schema>. Thread-safe after construction.
class Schema {
 public:
  /// Validates that field ids are unique and positive and that identifier fields exist
  /// and are required primitives; InvalidMetadata otherwise.
  static arrow::Result<std::shared_ptr<const Schema>> Make(
      int schema_id, std::vector<NestedField> fields,
      std::vector<int> identifier_field_ids = {});

  int schema_id() const { return schema_id_; }
  const std::vector<NestedField>& fields() const { return struct_->fields(); }
  const std::shared_ptr<const StructType>& as_struct() const { return struct_; }
  const std::vector<int>& identifier_field_ids() const { return identifier_field_ids_; }

  /// The field with this id at any depth, or nullptr.
  const NestedField* FindField(int field_id) const;
  /// The full dotted name of a field id ("a.b", "l.element", "m.value"), or nullopt.
  std::optional<std::string> FindColumnName(int field_id) const;
  /// The id of a field by full dotted name, or by the short form iceberg-java also
  /// accepts (omitting "element" before a struct element and "value" before a struct map
  /// value).
  std::optional<int> FindFieldId(std::string_view name) const;
  /// The id of a field's parent (struct, list or map), or nullopt for top-level fields.
  std::optional<int> FindParentId(int field_id) const;
  /// The largest field id at any depth (0 for an empty schema).
  int HighestFieldId() const { return highest_field_id_; }
  /// Every field id at any depth, in depth-first declaration order.
  const std::vector<int>& AllFieldIds() const { return all_field_ids_; }

  /// Same fields, ids and identifier fields (schema id not compared).
  bool SameStructure(const Schema& other) const;
  std::string ToString() const;

  /// Use Make(); public for std::make_shared.
  Schema(int schema_id, std::shared_ptr<const StructType> fields,
         std::vector<int> identifiers);

 private:
  void Index();

  int schema_id_;
  std::shared_ptr<const StructType> struct_;
  std::vector<int> identifier_field_ids_;
  std::map<int, const NestedField*> by_id_;
  std::map<int, std::string> id_to_name_;
  std::map<int, int> parent_of_;
  std::map<std::string, int, std::less<>> name_to_id_;
  std::vector<int> all_field_ids_;
  int highest_field_id_ = 0;
};

using SchemaPtr = std::shared_ptr<const Schema>;

/// iceberg-java's TypeUtil.select: the schema pruned to the fields `ids` name, at any
/// depth. A selected field keeps its whole type; an unselected struct, list or map with a
/// selected descendant is kept with only the paths to those descendants (a map always
/// keeps its key). Same schema id and identifier fields that survive.
SchemaPtr SelectFields(const Schema& schema, const std::set<int>& ids);

/// A copy of `fields` with every field id (at any depth) assigned afresh from 1, in the
/// breadth-first order iceberg-java's TypeUtil.assignFreshIds uses for a new table: a
/// struct's own fields first, then their children.
std::vector<NestedField> AssignFreshIds(const std::vector<NestedField>& fields,
                                        int* last_column_id);

/// The child indices from a top-level column of `schema` down to field `source_id`,
/// through structs only (a partition or sort field's source). A missing source or one
/// inside a list or map gives InvalidInput starting with `what` (e.g. "partition field
/// 'x_day'").
arrow::Result<std::vector<int>> StructPathTo(const Schema& schema, int source_id,
                                             const std::string& what);

}  // namespace floe
