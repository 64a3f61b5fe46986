// Filters over a Delta table: floe's filter text (expr/parser.h, the syntax every
// `--where` takes) bound to the table's columns by name. A bound filter skips files by
// their partition values and add.stats (data skipping) and selects rows.
#pragma once

#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "arrow/record_batch.h"
#include "arrow/result.h"
#include "floe/delta/log.h"
#include "floe/expr/expression.h"
#include "floe/types/schema.h"

namespace floe::delta {

class DeltaFilter {
 public:
  /// Parses and binds `text` to `table_schema` (the Arrow schema of
  /// metaData.schemaString) of the table at `table_root`. Errors are InvalidInput naming
  /// the table and, as the binder says, the column and literal at fault.
  static arrow::Result<DeltaFilter> Make(std::shared_ptr<arrow::Schema> table_schema,
                                         std::vector<std::string> partition_columns,
                                         std::string_view text,
                                         const std::string& table_root);

  /// The filter as the user wrote it.
  const std::string& text() const { return text_; }
  /// The filter reads only partition columns: a file's rows all match or none does.
  bool OnlyPartitionColumns() const { return only_partition_columns_; }
  /// The top-level columns the filter reads, in the table's order.
  const std::vector<std::string>& columns() const { return columns_; }

  /// False only when no row of `file` can match: decided from its partition values
  /// (exact) and add.stats (minValues, maxValues, nullCount, numRecords). Statistics that
  /// are missing or do not parse mean "might match". Strings cut at 32 characters bound
  /// from below only; timestamps, kept to the millisecond, bound up to the next one.
  bool MightMatch(const AddFile& file) const;
  /// Whether the partition tuple `partition_values` (as an add's partitionValues) might
  /// hold a matching row: every filter column that is not a partition column counts as
  /// unknown. Used to check a concurrent writer's adds against this filter.
  bool MightMatchPartition(
      const std::map<std::string, std::optional<std::string>>& partition_values) const;

  /// The filter over `batch` (columns named as the table's, any subset holding
  /// columns()): true, false or null (unknown) per row.
  arrow::Result<std::shared_ptr<arrow::Array>> Evaluate(
      const arrow::RecordBatch& batch) const;
  /// The rows of `batch` for which the filter is true.
  arrow::Result<std::shared_ptr<arrow::RecordBatch>> Select(
      const std::shared_ptr<arrow::RecordBatch>& batch) const;

 private:
  DeltaFilter() = default;
  bool Matches(
      const AddFile* file,
      const std::map<std::string, std::optional<std::string>>& partition_values) const;

  std::string text_;
  std::string table_;
  std::shared_ptr<arrow::Schema> table_schema_;
  /// table_schema_'s fields with PARQUET:field_id at every struct depth (the ids of
  /// schema_), which is how the row filter finds its columns.
  arrow::FieldVector id_fields_;
  SchemaPtr schema_;
  ExpressionPtr bound_;
  std::vector<std::string> partition_columns_;
  std::vector<std::string> columns_;
  bool only_partition_columns_ = false;
  /// Found once in Make, used for every file: the partition columns (their index in the
  /// schema, field id and physical name), and the leaves the filter reads that add.stats
  /// may describe (their path of physical names).
  struct PartitionColumn {
    size_t index = 0;
    int id = 0;
    std::string physical_name;
  };
  std::vector<PartitionColumn> partition_fields_;
  struct StatsLeaf {
    int id = 0;
    std::vector<std::string> path;
    TypePtr type;
  };
  std::vector<StatsLeaf> stats_leaves_;
};

}  // namespace floe::delta
