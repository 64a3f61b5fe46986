// Fits input batches (from files or callers, matched by column name) to a table's write
// schema: columns reordered, missing optional columns filled with nulls, values cast
// safely. A value that does not fit its column fails; nothing becomes a silent NULL.
#pragma once

#include <memory>
#include <string>

#include "arrow/type_fwd.h"
#include "floe/types/schema.h"

namespace floe::iceberg {

/// Immutable after Make; Conform is thread-safe.
class BatchConformer {
 public:
  /// Checks, once, that the input schema can be written to the table: every input column
  /// (and nested field) exists in the table by name, every required table column is
  /// present, and every type can be cast. Errors name `table_name` and the column.
  static arrow::Result<std::unique_ptr<BatchConformer>> Make(const arrow::Schema& input,
                                                             SchemaPtr table_schema,
                                                             std::string table_name);

  /// The batch in the table's Arrow form (field ids attached). A value out of its
  /// column's range, or a null in a required column, gives InvalidInput naming the
  /// column.
  arrow::Result<std::shared_ptr<arrow::RecordBatch>> Conform(
      const arrow::RecordBatch& batch) const;

  const std::shared_ptr<arrow::Schema>& target() const { return target_; }

 private:
  BatchConformer() = default;

  SchemaPtr table_schema_;
  std::shared_ptr<arrow::Schema> target_;
  std::shared_ptr<arrow::Schema> input_;
  std::string table_name_;
};

}  // namespace floe::iceberg
