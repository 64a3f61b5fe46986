// Puts a write task's rows in the order Spark's iceberg writer requires before it writes
// a sorted table, so files that carry the table's sort order id hold sorted rows.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "arrow/memory_pool.h"
#include "arrow/type_fwd.h"
#include "floe/iceberg/spec/partition_spec.h"
#include "floe/iceberg/spec/sort_order.h"
#include "floe/task/write_format.h"  // RowHolder
#include "floe/types/schema.h"
#include "floe/util/env.h"

namespace floe::iceberg {

/// Sorts a task's rows by the write ordering Spark's iceberg writer asks for
/// (SparkWriteUtil.writeOrdering): the partition fields ascending with nulls first, then
/// the table's sort order, each key the transformed source value. Values compare as Spark
/// sorts them: strings and binary by unsigned bytes, -0.0 equal to 0.0 and NaN above
/// every number in sort-order keys (partition keys keep -0.0 apart, as partitions do),
/// nulls where the field's null order puts them whatever its direction. Ties keep input
/// order.
///
/// Memory stays bounded whatever the input: rows are held until they reach `run_bytes`,
/// then sorted and spilled to a local temporary file (Arrow IPC) as a sorted run; Drain
/// merges the runs, at most kMergeFanIn at once (more runs are first merged in groups
/// into longer runs), holding one batch of at most 1/128 of a run (4096 rows at most)
/// from each and handing on slices of at most a quarter of a run's bytes. Spilled files
/// are deleted when the sorter goes. Not thread-safe (SortedRanges shares sealed sorters
/// between threads).
class RowSorter final : public RowHolder {
 public:
  /// Rows held before a sorted run is spilled when Make is given no run size.
  static constexpr int64_t kDefaultRunBytes = int64_t{256} << 20;
  /// Runs merged (and open) at once at most.
  static constexpr size_t kMergeFanIn = 64;

  /// Null when `order` is unsorted: Spark requires no ordering then. Sort fields whose
  /// source is missing, inside a list or map, or of a type the transform does not take
  /// give InvalidInput. `run_bytes` <= 0 means kDefaultRunBytes. Sorting and merging
  /// allocate from `pool`; runs spill below `env`'s temporary directory.
  static arrow::Result<std::unique_ptr<RowSorter>> Make(
      const SchemaPtr& schema, const PartitionSpecPtr& spec, const SortOrderPtr& order,
      int64_t run_bytes, arrow::MemoryPool* pool = arrow::default_memory_pool(),
      Env* env = Env::Default());
  ~RowSorter() override;
  RowSorter(const RowSorter&) = delete;
  RowSorter& operator=(const RowSorter&) = delete;

  /// Holds `batch` (in the schema's Arrow form); may spill a sorted run.
  arrow::Status Add(std::shared_ptr<arrow::RecordBatch> batch) override;
  /// Hands every row added to `sink` in order, in batches of at most `slice_rows` rows.
  /// Holds nothing afterwards.
  arrow::Status Drain(
      int64_t slice_rows,
      const std::function<arrow::Status(const std::shared_ptr<arrow::RecordBatch>&)>&
          sink) override;

  /// Bytes of the buffers the held batches reference.
  int64_t held_bytes() const { return held_bytes_; }
  /// Sorted runs spilled so far (merged runs not counted).
  size_t spilled_runs() const { return spilled_runs_; }
  /// The most runs one merge has read at once so far.
  size_t widest_merge() const { return widest_merge_; }

 private:
  friend class SortedRanges;
  using BatchSink =
      std::function<arrow::Status(const std::shared_ptr<arrow::RecordBatch>&)>;
  using Keys = std::vector<std::shared_ptr<arrow::Array>>;
  struct Key {
    std::vector<int> path;  // child indices from a top-level column through structs
    TypePtr source_type;
    Transform transform;
    bool descending = false;
    bool nulls_first = true;
    bool zeros_equal = false;  // -0.0 == 0.0 (Spark's sort), else apart (partitions)
  };
  // One sorted run, in batches with extension columns as their storage types: spilled to
  // a file, or (Seal's, when nothing was spilled) held in memory.
  struct Run {
    std::string path;                            // the spill file, empty when in memory
    std::shared_ptr<arrow::RecordBatch> rows;    // an in-memory run's rows, unsorted,
    std::shared_ptr<arrow::Array> order;         // and their sorted order (row indices)
    int64_t memory_batch_rows = 0;               // an in-memory run's rows per batch
    std::vector<int64_t> batch_rows;             // each batch's row count
    std::shared_ptr<arrow::RecordBatch> firsts;  // each batch's first row
  };
  // A row to split at: row `row` of `keys`.
  struct Bound {
    const Keys* keys = nullptr;
    int64_t row = 0;
  };
  struct Source;

  RowSorter() = default;
  arrow::Result<std::shared_ptr<arrow::Array>> KeyValues(
      const Key& key, const arrow::RecordBatch& rows) const;
  arrow::Result<Keys> AllKeys(const arrow::RecordBatch& rows) const;
  // The keys of a batch in storage types.
  arrow::Result<Keys> StorageKeys(const arrow::RecordBatch& rows) const;
  // Sorts the held rows: the rows as one batch and the order to take them in.
  arrow::Status SortHeld(std::shared_ptr<arrow::RecordBatch>* rows,
                         std::shared_ptr<arrow::Array>* indices);
  arrow::Status SpillRun();
  // Rows per batch of a run of `rows` rows: a merge of kMergeFanIn runs holds half a
  // run's bytes.
  static int64_t RunBatchRows(int64_t rows);
  // Writes a new run file in the spill directory (made on first use) with `write`, which
  // is given where to put the run's batches, in order.
  arrow::Result<Run> WriteRun(
      const std::function<arrow::Status(const BatchSink&)>& write);
  // Makes everything added into runs others can read (SortedRanges): held rows become an
  // in-memory run when nothing was spilled, else a last spilled run; spilled runs are
  // merged in groups until at most `max_runs` are left.
  arrow::Status Seal(size_t max_runs);
  // Merges consecutive groups of runs (in order, so earlier rows still win ties) into
  // longer runs until at most `max_runs` are left.
  arrow::Status ReduceRuns(size_t max_runs);
  // Merges runs_[begin, end) (earlier runs win ties) into `sink`, in batches of at most
  // `slice_rows` rows with extension columns as their storage types, then deletes their
  // files.
  arrow::Status MergeRuns(size_t begin, size_t end, int64_t slice_rows,
                          const BatchSink& sink);
  // Merges the rows of `runs` (earlier runs win ties) that are not before `lower` and
  // before `upper` (either null: no bound) into `sink`, reading each run from batch
  // `start[i]` on (no row before it may be in range), in batches as MergeRuns makes them.
  arrow::Status MergeSources(const std::vector<const Run*>& runs,
                             const std::vector<int>& start, const Bound* lower,
                             const Bound* upper, int64_t slice_rows,
                             const BatchSink& sink);
  // Compares row `i` of keys `a` with row `j` of keys `b` in the write ordering: < 0 when
  // it comes first, 0 when their keys are equal.
  int CompareRows(const Keys& a, int64_t i, const Keys& b, int64_t j) const;
  // The first of rows [from, to) of `keys` (sorted) that is not before `bound`.
  int64_t FirstNotBefore(const Keys& keys, int64_t from, int64_t to,
                         const Bound& bound) const;
  // Whether row `i` of `a` comes before row `j` of `b` (ties: the earlier source first).
  bool Before(const Source& a, int64_t i, const Source& b, int64_t j) const;
  // Slices of at most this many rows stay within a quarter of a run's bytes.
  int64_t SliceCap() const;

  std::shared_ptr<arrow::Schema> schema_;          // the rows' Arrow schema
  std::shared_ptr<arrow::Schema> storage_schema_;  // same, extension types as storage
  std::vector<Key> keys_;
  std::vector<std::shared_ptr<arrow::RecordBatch>> held_;
  int64_t held_bytes_ = 0;
  int64_t run_bytes_ = kDefaultRunBytes;
  arrow::MemoryPool* pool_ = nullptr;
  std::string spill_directory_;  // created on the first spill
  Env* env_ = nullptr;
  std::vector<Run> runs_;  // in input order
  size_t spilled_runs_ = 0;
  size_t run_files_ = 0;  // files made, for their names
  size_t widest_merge_ = 0;
  int64_t row_bytes_ = 1;  // the most bytes per row of a spilled run
};

}  // namespace floe::iceberg
