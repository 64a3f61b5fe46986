// Spark's range distribution of an unpartitioned sorted table: the write's tasks split
// the rows by sort key, so each task's files hold one key range.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "arrow/memory_pool.h"
#include "arrow/type_fwd.h"
#include "floe/iceberg/write/row_sorter.h"
#include "floe/util/env.h"
#include "floe/util/mutex.h"

namespace floe::iceberg {

/// The rows of a write's tasks, split into one key range per task in the write ordering
/// (see RowSorter), as Spark's range distribution splits an unpartitioned sorted table's
/// rows before its tasks write them: every row of range i comes before every row of range
/// i + 1, rows with equal keys share a range, and the ranges hold about equal rows.
///
/// Each task adds its input rows to its own part's sorter (sorting and spilling runs in
/// parallel), then calls Drain, which waits until every part has called it, picks the
/// split keys from the first row of every batch of every run, and merges the part's key
/// range out of every part's runs. Spill files go with this object.
///
/// Thread-safe as used: sorter(part) and Drain(part) from one thread per part. A part
/// that fails or stops before its Drain must be followed by Cancel, or the other parts
/// wait for it.
class SortedRanges : public std::enable_shared_from_this<SortedRanges> {
 public:
  /// `parts` >= 1; the table must be sorted (InvalidInput otherwise). With
  /// `min_range_rows` > 0, the rows are split into no more ranges than leave each that
  /// many rows (the later parts' ranges are empty). See RowSorter::Make for the rest.
  static arrow::Result<std::shared_ptr<SortedRanges>> Make(
      const SchemaPtr& schema, const PartitionSpecPtr& spec, const SortOrderPtr& order,
      int64_t run_bytes, int parts,
      arrow::MemoryPool* pool = arrow::default_memory_pool(), Env* env = Env::Default(),
      int64_t min_range_rows = 0);
  SortedRanges(const SortedRanges&) = delete;
  SortedRanges& operator=(const SortedRanges&) = delete;

  int parts() const { return static_cast<int>(sorters_.size()); }
  /// Where part `part`'s task adds its rows.
  RowSorter& sorter(int part) { return *sorters_[part]; }
  /// Hands part `part`'s key range to `sink` in order, in batches of at most
  /// `slice_rows` rows, once every part has called Drain; Cancelled when Cancel comes
  /// first.
  arrow::Status Drain(
      int part, int64_t slice_rows,
      const std::function<arrow::Status(const std::shared_ptr<arrow::RecordBatch>&)>&
          sink);
  /// Parts waiting in Drain, or arriving later, give up.
  void Cancel();
  /// Part `part` as a task's RowHolder (WriteTask::HoldRowsIn): Add goes to sorter(part),
  /// Drain to Drain(part). Keeps this object alive.
  std::shared_ptr<RowHolder> Part(int part);

 private:
  SortedRanges() = default;
  // Picks the split keys (bounds_) from every run's batches' first rows.
  arrow::Status Split() FLOE_REQUIRES(mutex_);

  std::vector<std::unique_ptr<RowSorter>> sorters_;
  int64_t min_range_rows_ = 0;
  Mutex mutex_;
  CondVar changed_;  // split_ or cancelled_ set
  int sealed_ FLOE_GUARDED_BY(mutex_) = 0;
  bool cancelled_ FLOE_GUARDED_BY(mutex_) = false;
  bool split_ FLOE_GUARDED_BY(mutex_) = false;
  arrow::Status split_status_ FLOE_GUARDED_BY(mutex_);
  // Written by Split under mutex_, then only read (by every part, without the lock).
  // Every part's runs once sealed, with the keys of each run's batches' first rows.
  std::vector<const RowSorter::Run*> runs_;
  std::vector<RowSorter::Keys> first_keys_;
  // Row `row` of first_keys_[run].
  struct SplitKey {
    size_t run = 0;
    int64_t row = 0;
  };
  // bounds_[i]: the key range i starts at, none past every row (so range i is empty);
  // range i ends where range i + 1 starts, the last one past every row. bounds_[0] is
  // not used: the first range starts before every row.
  std::vector<std::optional<SplitKey>> bounds_;
};

}  // namespace floe::iceberg
