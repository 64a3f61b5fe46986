// Avro schemas as Iceberg uses them: records whose fields carry "field-id", arrays with
// "element-id", maps with "key-id"/"value-id", logical types, and ["null", T] unions.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "arrow/result.h"

namespace floe::iceberg::avro {

enum class AvroType {
  kNull,
  kBoolean,
  kInt,
  kLong,
  kFloat,
  kDouble,
  kBytes,
  kString,
  kRecord,
  kEnum,
  kArray,
  kMap,
  kUnion,
  kFixed,
};

struct AvroNode;
using AvroNodePtr = std::shared_ptr<const AvroNode>;

/// An extra JSON attribute of a schema or field ("field-id", "logicalType", ...): the key
/// and the value as JSON text.
using AvroProperty = std::pair<std::string, std::string>;

struct AvroField {
  std::string name;
  AvroNodePtr type;
  std::string doc;                          ///< Empty when absent.
  std::optional<std::string> default_json;  ///< The "default" as JSON text.
  std::vector<AvroProperty> properties;     ///< In order, e.g. {"field-id", "100"}.

  /// The "field-id" property, or -1.
  int FieldId() const;
};

/// One node of a schema tree. Immutable once built; shared between the files that use it.
struct AvroNode {
  AvroType type = AvroType::kNull;
  std::string name;                   ///< record, enum and fixed
  std::string doc;                    ///< record
  int size = 0;                       ///< fixed
  std::vector<AvroField> fields;      ///< record
  std::vector<std::string> symbols;   ///< enum
  AvroNodePtr items;                  ///< array
  AvroNodePtr values;                 ///< map
  std::vector<AvroNodePtr> branches;  ///< union
  std::vector<AvroProperty> properties;

  /// The value of a property as JSON text, or nullopt.
  std::optional<std::string> Property(std::string_view key) const;
  /// An integer property ("element-id", "precision", ...), or -1.
  int IntProperty(std::string_view key) const;
  /// The "logicalType" property without quotes, or "".
  std::string LogicalType() const;
  /// For ["null", T] unions: T; for anything else, this node. nullptr for a union of
  /// nulls.
  const AvroNode* NonNull() const;
  /// The smallest number of bytes one value of this schema takes in the binary encoding.
  size_t MinimumEncodedSize() const;
};

/// Parses schema JSON (as found in a file's avro.schema). Named types may be referenced
/// by name after their definition. Nesting deeper than 128 levels or unknown types give
/// InvalidMetadata.
arrow::Result<AvroNodePtr> ParseAvroSchema(std::string_view json);

/// The schema as JSON text, fields written as name, type, doc, default, then properties
/// (the order Avro's Java Schema.toString() uses). A named type is defined at first use
/// and referenced by name afterwards.
std::string AvroSchemaToJson(const AvroNode& schema);

/// Builders for schema trees.
AvroNodePtr MakePrimitive(AvroType type, std::vector<AvroProperty> properties = {});
AvroNodePtr MakeOptional(AvroNodePtr type);  ///< ["null", type]
AvroNodePtr MakeArray(AvroNodePtr items, std::vector<AvroProperty> properties = {});
AvroNodePtr MakeMap(AvroNodePtr values, std::vector<AvroProperty> properties = {});
AvroNodePtr MakeFixed(std::string name, int size,
                      std::vector<AvroProperty> properties = {});
AvroNodePtr MakeRecord(std::string name, std::vector<AvroField> fields);

}  // namespace floe::iceberg::avro
