// Iceberg's data types: primitives, struct, list and map, with the field ids nested types
// carry.
//
// Types are immutable and shared as std::shared_ptr<const Type>. Their text form is the
// one Iceberg's table metadata JSON uses ("long", "decimal(9, 2)", "fixed[16]", ...).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "arrow/result.h"

namespace floe {

enum class TypeId {
  kBoolean,
  kInt,
  kLong,
  kFloat,
  kDouble,
  kDecimal,
  kDate,
  kTime,
  kTimestamp,
  kTimestampTz,
  kTimestampNs,
  kTimestampTzNs,
  kString,
  kUuid,
  kFixed,
  kBinary,
  // Format version 3 additions that floe parses and reports but cannot write.
  kUnknown,
  kVariant,
  kGeometry,
  kGeography,
  // Nested types.
  kStruct,
  kList,
  kMap,
};

class Type;
using TypePtr = std::shared_ptr<const Type>;

/// A named, numbered field of a struct, or the element / key / value of a list or map.
struct NestedField {
  int id = 0;
  std::string name;
  bool required = false;
  TypePtr type;
  std::string doc;  ///< Empty when absent.
  /// The field's `initial-default` / `write-default` as JSON text (format v3), if
  /// present.
  std::optional<std::string> initial_default;
  std::optional<std::string> write_default;

  bool operator==(const NestedField& other) const;
};

/// Base of every Iceberg type.
class Type {
 public:
  virtual ~Type() = default;
  Type(const Type&) = delete;
  Type& operator=(const Type&) = delete;

  TypeId id() const { return id_; }
  bool is_primitive() const { return id_ < TypeId::kStruct; }
  bool is_nested() const { return !is_primitive(); }

  /// The type's text as written in metadata JSON (for nested types a readable summary).
  virtual std::string ToString() const = 0;
  /// Structural equality, including field ids, names and requiredness of nested fields.
  virtual bool Equals(const Type& other) const = 0;

 protected:
  explicit Type(TypeId id) : id_(id) {}

 private:
  TypeId id_;
};

/// Every non-nested type. Decimal carries precision and scale, fixed its length, geometry
/// its CRS and geography its CRS and edge algorithm.
class PrimitiveType final : public Type {
 public:
  std::string ToString() const override;
  bool Equals(const Type& other) const override;

  int precision() const { return precision_; }
  int scale() const { return scale_; }
  int length() const { return length_; }
  const std::string& crs() const { return crs_; }
  const std::string& algorithm() const { return algorithm_; }

  /// Parses a primitive type's text: "int", "decimal(10,2)" (with or without a space),
  /// "fixed[4]", "geometry(EPSG:4326)", ... Unknown text gives InvalidMetadata.
  static arrow::Result<TypePtr> FromString(std::string_view text);

  static TypePtr Make(TypeId id);  ///< A parameterless primitive (not decimal, fixed).
  static TypePtr Decimal(int precision, int scale);
  static TypePtr Fixed(int length);
  static TypePtr Geometry(std::string crs);
  static TypePtr Geography(std::string crs, std::string algorithm);

  PrimitiveType(TypeId id, int precision, int scale, int length, std::string crs,
                std::string algorithm);

 private:
  int precision_ = 0;
  int scale_ = 0;
  int length_ = 0;
  std::string crs_;
  std::string algorithm_;
};

/// A struct: an ordered list of fields with unique ids and names.
class StructType final : public Type {
 public:
  explicit StructType(std::vector<NestedField> fields);
  const std::vector<NestedField>& fields() const { return fields_; }
  /// The direct child with this id or name, or nullptr.
  const NestedField* FieldById(int id) const;
  const NestedField* FieldByName(std::string_view name) const;
  std::string ToString() const override;
  bool Equals(const Type& other) const override;

 private:
  std::vector<NestedField> fields_;
};

/// A list; its element is a field named "element" with its own id.
class ListType final : public Type {
 public:
  explicit ListType(NestedField element);
  const NestedField& element() const { return element_; }
  std::string ToString() const override;
  bool Equals(const Type& other) const override;

 private:
  NestedField element_;
};

/// A map; its key (always required) and value are fields named "key" and "value".
class MapType final : public Type {
 public:
  MapType(NestedField key, NestedField value);
  const NestedField& key() const { return key_; }
  const NestedField& value() const { return value_; }
  std::string ToString() const override;
  bool Equals(const Type& other) const override;

 private:
  NestedField key_;
  NestedField value_;
};

/// Short constructors for the common types.
namespace types {
TypePtr Boolean();
TypePtr Int();
TypePtr Long();
TypePtr Float();
TypePtr Double();
TypePtr Date();
TypePtr Time();
TypePtr Timestamp();
TypePtr TimestampTz();
TypePtr TimestampNs();
TypePtr TimestampTzNs();
TypePtr String();
TypePtr Uuid();
TypePtr Binary();
TypePtr Decimal(int precision, int scale);
TypePtr Fixed(int length);
std::shared_ptr<const StructType> Struct(std::vector<NestedField> fields);
TypePtr List(int element_id, TypePtr element, bool element_required);
TypePtr Map(int key_id, TypePtr key, int value_id, TypePtr value, bool value_required);
NestedField Required(int id, std::string name, TypePtr type);
NestedField Optional(int id, std::string name, TypePtr type);
}  // namespace types

/// True for the timestamp types in micro- or nanoseconds, with or without zone.
bool IsTimestamp(TypeId id);
/// True when values of this type can be written by floe (everything but the v3
/// additions).
bool IsWritable(TypeId id);
/// True when `from` can be promoted to `to` by Iceberg's schema evolution rules
/// (int->long, float->double, decimal(P,S)->decimal(P',S) with P'>=P, and equality).
bool CanPromote(const Type& from, const Type& to);

}  // namespace floe
