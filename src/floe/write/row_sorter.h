// Puts a write task's rows in the order Spark's iceberg writer requires before it writes
// a sorted table, so files that carry the table's sort order id hold sorted rows.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "arrow/memory_pool.h"
#include "arrow/type_fwd.h"
#include "floe/spec/partition_spec.h"
#include "floe/spec/schema.h"
#include "floe/spec/sort_order.h"

namespace floe {

/// Buffers a task's rows and hands them on sorted by the write ordering Spark's iceberg
/// writer asks for (SparkWriteUtil.writeOrdering): the partition fields ascending with
/// nulls first, then the table's sort order, each key the transformed source value.
/// Values compare as Spark sorts them: strings and binary by unsigned bytes, -0.0 equal
/// to 0.0 and NaN above every number in sort-order keys (partition keys keep -0.0 apart,
/// as partitions do), nulls where the field's null order puts them whatever its
/// direction. Ties keep input order. Rows are held in memory until Drain. Not
/// thread-safe.
class RowSorter {
 public:
  /// Null when `order` is unsorted: Spark requires no ordering then. Sort fields whose
  /// source is missing, inside a list or map, or of a type the transform does not take
  /// give InvalidInput. `budget_bytes` > 0 caps the input held (Add fails past it).
  static arrow::Result<std::unique_ptr<RowSorter>> Make(const SchemaPtr& schema,
                                                        const PartitionSpecPtr& spec,
                                                        const SortOrderPtr& order,
                                                        int64_t budget_bytes);

  /// Holds `batch` (in the schema's Arrow form) until Drain.
  arrow::Status Add(std::shared_ptr<arrow::RecordBatch> batch);
  /// Sorts everything added and hands it to `sink` in order, in batches of at most
  /// `slice_rows` rows allocated from `pool`. Holds nothing afterwards.
  arrow::Status Drain(
      int64_t slice_rows, arrow::MemoryPool* pool,
      const std::function<arrow::Status(const std::shared_ptr<arrow::RecordBatch>&)>&
          sink);

  /// Bytes of the buffers the held batches reference.
  int64_t held_bytes() const { return held_bytes_; }
  /// How many sort keys each row gets (partition fields, then sort fields).
  size_t key_count() const { return keys_.size(); }

 private:
  struct Key {
    std::vector<int> path;  // child indices from a top-level column through structs
    TypePtr source_type;
    Transform transform;
    bool descending = false;
    bool nulls_first = true;
    bool zeros_equal = false;  // -0.0 == 0.0 (Spark's sort), else apart (partitions)
  };

  RowSorter() = default;
  arrow::Result<std::shared_ptr<arrow::Array>> KeyValues(
      const Key& key, const arrow::RecordBatch& rows) const;

  std::vector<Key> keys_;
  std::vector<std::shared_ptr<arrow::RecordBatch>> held_;
  int64_t held_bytes_ = 0;
  int64_t budget_bytes_ = 0;
};

}  // namespace floe
