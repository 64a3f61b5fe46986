// Partition specs: how a table's rows map to partition tuples.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "arrow/result.h"
#include "floe/iceberg/spec/transform.h"
#include "floe/types/schema.h"
#include "floe/types/value.h"

namespace floe::iceberg {

/// Partition field ids start here (iceberg-java's PARTITION_DATA_ID_START).
constexpr int kPartitionDataIdStart = 1000;

struct PartitionField {
  int source_id = 0;
  int field_id = 0;
  std::string name;
  Transform transform;
  bool operator==(const PartitionField&) const = default;
};

/// Immutable; share as std::shared_ptr<const PartitionSpec>.
class PartitionSpec {
 public:
  /// Checks that field ids and names are unique; InvalidMetadata otherwise. Binding to a
  /// schema is checked separately (PartitionType) because old specs may name dropped
  /// columns.
  static arrow::Result<std::shared_ptr<const PartitionSpec>> Make(
      int spec_id, std::vector<PartitionField> fields);
  /// The unpartitioned spec with id 0.
  static std::shared_ptr<const PartitionSpec> Unpartitioned();

  int spec_id() const { return spec_id_; }
  const std::vector<PartitionField>& fields() const { return fields_; }

  /// True when no field has a non-void transform (iceberg-java's !isPartitioned()).
  bool IsUnpartitioned() const;
  /// The largest partition field id, or 999 when there are no fields.
  int LastAssignedFieldId() const;
  /// The partition tuple's type against `schema`: one optional field per partition field,
  /// with the partition field's id and name and its transform's result type. A source id
  /// missing from the schema gives the unknown type (as iceberg-java does for dropped
  /// columns); a transform that cannot apply to its source type gives InvalidMetadata.
  arrow::Result<std::shared_ptr<const StructType>> PartitionType(
      const Schema& schema) const;
  /// A tuple of this spec (`partition`, in spec order) in another partition type, given
  /// by its field ids: each id's value, null where this spec has no such field
  /// (iceberg-java's PartitionUtil.coercePartition).
  std::vector<Value> Coerce(const std::vector<Value>& partition,
                            const std::vector<int>& field_ids) const;
  /// Same fields (ids, names, transforms, sources); spec id not compared.
  bool SameFields(const PartitionSpec& other) const { return fields_ == other.fields_; }

  PartitionSpec(int spec_id, std::vector<PartitionField> fields)
      : spec_id_(spec_id), fields_(std::move(fields)) {}

 private:
  int spec_id_;
  std::vector<PartitionField> fields_;
};

using PartitionSpecPtr = std::shared_ptr<const PartitionSpec>;

/// Splits a clause on the commas outside parentheses and backquotes, trimming each part.
/// Unbalanced parentheses or quotes give InvalidInput.
arrow::Result<std::vector<std::string_view>> SplitClause(std::string_view text);

/// One term of a partition or sort clause: "region", "`odd name`", "day(ts)",
/// "bucket(16, id)", "truncate(4, name)", bound to a column of `schema` (full dotted
/// name) whose type allows the transform. Errors give InvalidInput naming `option` and
/// the term.
struct TransformTerm {
  int source_id = 0;
  Transform transform;
  std::string column;
};
arrow::Result<TransformTerm> ParseTransformTerm(std::string_view term,
                                                const Schema& schema,
                                                std::string_view option);

/// Parses a partition clause such as "region, day(ts), bucket(16, id), truncate(4, name)"
/// into a spec bound to `schema`, with field ids from 1000 and iceberg-java's default
/// field names
/// ("ts_day", "id_bucket", ...). Columns are named by full dotted name. Errors (unknown
/// column, a transform the column's type does not allow, malformed text) give
/// InvalidInput naming the offending term.
arrow::Result<PartitionSpecPtr> ParsePartitionBy(std::string_view text,
                                                 const Schema& schema, int spec_id = 0);

}  // namespace floe::iceberg
