// Fits input batches (from files or callers, matched by column name) to a table's Arrow
// write schema, for every table format: columns reordered, nested fields matched by name
// at every depth, missing optional columns filled with nulls, values cast safely. A value
// that does not fit its column fails, as does a null in a required column or a decimal
// wider than its precision; nothing becomes a silent NULL.
#pragma once

#include <memory>
#include <string>

#include "arrow/result.h"
#include "arrow/type_fwd.h"

namespace floe {

/// Immutable after Make; Conform is thread-safe.
class BatchConformer {
 public:
  /// Checks, once, that the input schema can be written to `target` (the table's Arrow
  /// schema, its field metadata kept on every conformed batch): every input column (and
  /// nested field) exists in the table by name, every required table column is present,
  /// and every type can be cast. `what` names the table in errors ("table db.t"), with
  /// the column.
  static arrow::Result<std::unique_ptr<BatchConformer>> Make(
      const arrow::Schema& input, std::shared_ptr<arrow::Schema> target,
      std::string what);

  /// The batch in the table's Arrow form, with target() as its schema. A batch of
  /// another schema than the input's, a value out of its column's range, or a null in a
  /// required column gives InvalidInput naming the column.
  arrow::Result<std::shared_ptr<arrow::RecordBatch>> Conform(
      const arrow::RecordBatch& batch) const;

  const std::shared_ptr<arrow::Schema>& target() const { return target_; }

 private:
  BatchConformer() = default;

  std::shared_ptr<arrow::Schema> target_;
  std::shared_ptr<arrow::Schema> input_;
  std::string what_;
};

/// One batch, whatever its schema, checked as Make checks an input schema and conformed
/// as Conform does: for streams whose batches differ in schema (a write's new rows beside
/// rows copied from the table's files).
arrow::Result<std::shared_ptr<arrow::RecordBatch>> ConformBatch(
    const arrow::RecordBatch& batch, const std::shared_ptr<arrow::Schema>& target,
    const std::string& what);

}  // namespace floe
