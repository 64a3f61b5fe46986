// A Delta write's side of the format-neutral write tasks: rows split by the table's
// partition columns (which Delta writers leave out of the data files), files laid out in
// Hive-style partition folders escaped as Spark escapes them, and each task's files
// reported as Delta `add` actions with Spark's per-file statistics.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "arrow/type.h"
#include "floe/task/write_format.h"

namespace floe::delta {

/// A partition of a Delta write: its values as the log spells them (null for null and the
/// empty string) and its folder below the table root ("" when unpartitioned).
struct DeltaPartition {
  std::vector<std::pair<std::string, std::optional<std::string>>> values;
  std::string folder;
};

/// Hive's escaping of a partition folder's name or value, as Spark's
/// ExternalCatalogUtils.escapePathName does it: %XX (upper-case hex) for ASCII controls,
/// DEL and " # % ' * / : = ? \ { [ ] ^.
std::string EscapePartitionPathPart(std::string_view text);
/// A relative path as the log holds it in add.path: URI-encoded as Hadoop's
/// Path.toUri() encodes it (space, " # % < > ? [ \ ] ^ ` { | } and controls; non-ASCII
/// left as it is, as delta-spark leaves it).
std::string EncodeLogPath(std::string_view path);
/// The log's text of a partition value (the protocol's serialization), nullopt for null.
arrow::Result<std::optional<std::string>> PartitionValueText(const arrow::Array& column,
                                                             int64_t row);

struct DeltaWriteFormatOptions {
  std::string table_root;
  std::shared_ptr<FileIO> io;
  /// The table's schema (every column, partition columns included).
  std::shared_ptr<arrow::Schema> schema;
  std::vector<std::string> partition_columns;
  std::string operation_id;  ///< A UUID every file name of the write carries.
  ParquetSettings settings;
  int64_t target_file_size = int64_t{128} << 20;
  int64_t buffer_budget = 0;
  /// Columns with min/max/nullCount statistics: the first `indexed_columns` leaves of
  /// the data schema (delta.dataSkippingNumIndexedCols; -1 all), or, when set, exactly
  /// these (delta.dataSkippingStatsColumns), each a path of names (a struct names
  /// every leaf below it).
  int indexed_columns = 32;
  std::optional<std::vector<std::vector<std::string>>> stats_columns;
  /// Milliseconds since the epoch, stamped as each add's modificationTime.
  int64_t modification_time_ms = 0;
  /// Each add's dataChange: false for a compaction's, whose rows were in the table.
  bool data_change = true;
  arrow::MemoryPool* pool = arrow::default_memory_pool();
};

class DeltaWriteFormat final : public WriteFormat {
 public:
  /// InvalidInput when a partition column is not in the schema or has a type Delta
  /// cannot partition by (struct, array, map).
  static arrow::Result<std::shared_ptr<DeltaWriteFormat>> Make(
      DeltaWriteFormatOptions options);

  const std::shared_ptr<const ParquetWriteContext>& parquet() const override {
    return parquet_;
  }
  /// The table's columns: partition columns are split off and kept out of the files.
  const std::shared_ptr<arrow::Schema>& input_schema() const override {
    return input_schema_;
  }
  WriterMode mode() const override {
    return partition_indices_.empty() ? WriterMode::kUnpartitioned : WriterMode::kFanout;
  }
  int64_t target_file_size() const override { return options_.target_file_size; }
  int64_t buffer_budget() const override { return options_.buffer_budget; }
  std::string MemoryAdvice() const override {
    return "raise --memory-limit, or write fewer partitions per task (more tasks)";
  }
  arrow::Result<std::vector<PartitionRows>> Split(
      const std::shared_ptr<arrow::RecordBatch>& batch,
      PartitionShare share) const override;
  arrow::Result<std::vector<std::vector<PartitionRows>>> SplitShares(
      const std::shared_ptr<arrow::RecordBatch>& batch, int count,
      const PartitionOwner& owner) const override;
  std::string FileLocation(const std::any& partition, int partition_id,
                           int64_t attempt_id, int64_t count) const override;
  arrow::Status NotClustered(const std::any& partition) const override;
  arrow::Result<std::unique_ptr<RowHolder>> MakeRowHolder(arrow::MemoryPool* pool,
                                                          Env* env) const override;
  /// One `{"add":{...}}` JSON line per file.
  arrow::Result<std::string> EncodeFiles(
      const std::vector<TaskFile>& files) const override;

  /// The add action of one written file, as JSON text (without the {"add":} wrapper).
  arrow::Result<std::string> AddAction(const TaskFile& file) const;
  /// The `stats` JSON of a written file.
  arrow::Result<std::string> Stats(const WrittenParquetFile& file) const;

 private:
  DeltaWriteFormat() = default;
  arrow::Result<std::vector<std::vector<PartitionRows>>> SplitImpl(
      const std::shared_ptr<arrow::RecordBatch>& batch, int count,
      std::optional<int> only, const PartitionOwner& owner) const;

  DeltaWriteFormatOptions options_;
  std::shared_ptr<const ParquetWriteContext> parquet_;
  std::shared_ptr<arrow::Schema> input_schema_;
  std::vector<int> partition_indices_;          // in the table schema, in partition order
  std::vector<int> data_indices_;               // the columns written into files
  std::vector<bool> leaf_has_stats_;            // per Parquet leaf of the data schema
  std::set<std::string> collection_has_stats_;  // top-level lists and maps: null counts
  bool any_indexed_ = false;  // any column gets statistics (else numRecords alone)
};

}  // namespace floe::delta
