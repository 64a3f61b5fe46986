#include "floe/write/row_sorter.h"

#include <bit>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "arrow/array.h"
#include "arrow/builder.h"
#include "arrow/compute/api.h"
#include "arrow/compute/initialize.h"
#include "arrow/extension_type.h"
#include "arrow/record_batch.h"
#include "arrow/table.h"
#include "arrow/util/byte_size.h"
#include "floe/transform/transform_kernels.h"
#include "floe/util/error.h"
#include "floe/write/partitioner.h"

namespace floe {
namespace {

// Spark orders floating-point sort keys by value with every NaN above +Infinity
// (SQLOrderingUtil), and its sort prefixes make -0.0 equal to 0.0. Arrow would put NaN
// next to the nulls, so the values become integers that order the same way: the IEEE
// bits, negatives flipped, NaN canonical. `zeros_equal` false keeps -0.0 below 0.0, so
// partition keys stay apart as their partitions are.
template <typename FloatArray, typename Bits, typename IntBuilder>
arrow::Result<std::shared_ptr<arrow::Array>> OrderedBits(const arrow::Array& input,
                                                         bool zeros_equal,
                                                         arrow::MemoryPool* pool) {
  const auto& values = static_cast<const FloatArray&>(input);
  IntBuilder builder(pool);
  ARROW_RETURN_NOT_OK(builder.Reserve(values.length()));
  for (int64_t i = 0; i < values.length(); ++i) {
    if (values.IsNull(i)) {
      builder.UnsafeAppendNull();
      continue;
    }
    auto value = values.Value(i);
    using Float = decltype(value);
    if (std::isnan(value)) value = std::numeric_limits<Float>::quiet_NaN();
    if (zeros_equal && value == 0) value = 0;
    auto bits = std::bit_cast<Bits>(value);
    constexpr Bits kMagnitude = std::numeric_limits<Bits>::max();
    if (bits < 0) bits ^= kMagnitude;
    builder.UnsafeAppend(bits);
  }
  return builder.Finish();
}

}  // namespace

arrow::Result<std::unique_ptr<RowSorter>> RowSorter::Make(const SchemaPtr& schema,
                                                          const PartitionSpecPtr& spec,
                                                          const SortOrderPtr& order,
                                                          int64_t budget_bytes) {
  if (order == nullptr || order->IsUnsorted()) return nullptr;
  // Sorting is one of the kernels Arrow registers on request (callers other than the CLI
  // may not have asked).
  ARROW_RETURN_NOT_OK(arrow::compute::Initialize());
  std::unique_ptr<RowSorter> sorter(new RowSorter());
  sorter->budget_bytes_ = budget_bytes;
  auto add = [&](int source_id, const Transform& transform, bool descending,
                 bool nulls_first, bool zeros_equal,
                 const std::string& what) -> arrow::Status {
    Key key;
    ARROW_ASSIGN_OR_RAISE(key.path, StructPathTo(*schema, source_id, what));
    key.source_type = schema->FindField(source_id)->type;
    if (!transform.CanTransform(*key.source_type)) {
      return MakeError(ErrorKind::kInvalidInput,
                       what + ": transform " + transform.ToString() +
                           " cannot apply to " + key.source_type->ToString());
    }
    key.transform = transform;
    key.descending = descending;
    key.nulls_first = nulls_first;
    key.zeros_equal = zeros_equal;
    sorter->keys_.push_back(std::move(key));
    return arrow::Status::OK();
  };
  // SortOrderUtil.buildSortOrder: the partition fields first, so each partition's rows
  // are together (it leaves out the ones the sort order's prefix already clusters, which
  // changes the order of whole partitions only, never the rows within one).
  for (const auto& field : spec->fields()) {
    if (field.transform.kind() == TransformKind::kVoid) continue;
    ARROW_RETURN_NOT_OK(add(field.source_id, field.transform, false, true, false,
                            "partition field '" + field.name + "'"));
  }
  for (size_t i = 0; i < order->fields.size(); ++i) {
    const auto& field = order->fields[i];
    ARROW_RETURN_NOT_OK(add(field.source_id, field.transform,
                            field.direction == SortDirection::kDescending,
                            field.null_order == NullOrder::kNullsFirst, true,
                            "sort field " + std::to_string(i + 1) + " of sort order " +
                                std::to_string(order->order_id)));
  }
  return sorter;
}

arrow::Status RowSorter::Add(std::shared_ptr<arrow::RecordBatch> batch) {
  if (batch->num_rows() == 0) return arrow::Status::OK();
  held_bytes_ += arrow::util::TotalBufferSize(*batch);
  if (budget_bytes_ > 0 && held_bytes_ > budget_bytes_) {
    return arrow::Status::OutOfMemory(
        "sorting rows by the table's sort order holds a write task's input in memory, "
        "and this task's input passed its share of the memory limit (",
        budget_bytes_ >> 20,
        " MiB): raise --memory-limit or append the input in smaller parts");
  }
  held_.push_back(std::move(batch));
  return arrow::Status::OK();
}

arrow::Result<std::shared_ptr<arrow::Array>> RowSorter::KeyValues(
    const Key& key, const arrow::RecordBatch& rows) const {
  ARROW_ASSIGN_OR_RAISE(auto source, ColumnAtPath(rows, key.path));
  ARROW_ASSIGN_OR_RAISE(auto values,
                        ApplyTransform(key.transform, *key.source_type, source));
  if (values->type_id() == arrow::Type::EXTENSION) {
    values = static_cast<const arrow::ExtensionArray&>(*values).storage();
  }
  switch (values->type_id()) {
    case arrow::Type::FLOAT:
      return OrderedBits<arrow::FloatArray, int32_t, arrow::Int32Builder>(
          *values, key.zeros_equal, arrow::default_memory_pool());
    case arrow::Type::DOUBLE:
      return OrderedBits<arrow::DoubleArray, int64_t, arrow::Int64Builder>(
          *values, key.zeros_equal, arrow::default_memory_pool());
    default:
      return values;
  }
}

arrow::Status RowSorter::Drain(
    int64_t slice_rows, arrow::MemoryPool* pool,
    const std::function<arrow::Status(const std::shared_ptr<arrow::RecordBatch>&)>&
        sink) {
  if (held_.empty()) return arrow::Status::OK();
  std::shared_ptr<arrow::RecordBatch> rows;
  if (held_.size() == 1) {
    rows = std::move(held_.front());
  } else {
    // One batch, so that each slice's Take is a gather over plain arrays.
    ARROW_ASSIGN_OR_RAISE(auto table, arrow::Table::FromRecordBatches(held_));
    held_.clear();
    ARROW_ASSIGN_OR_RAISE(rows, table->CombineChunksToBatch(pool));
  }
  held_.clear();
  held_bytes_ = 0;

  arrow::FieldVector fields;
  arrow::ArrayVector columns;
  std::vector<arrow::compute::SortKey> sort_keys;
  for (size_t i = 0; i < keys_.size(); ++i) {
    ARROW_ASSIGN_OR_RAISE(auto values, KeyValues(keys_[i], *rows));
    std::string name = "k" + std::to_string(i);
    fields.push_back(arrow::field(name, values->type()));
    columns.push_back(std::move(values));
    sort_keys.emplace_back(arrow::FieldRef(name),
                           keys_[i].descending ? arrow::compute::SortOrder::Descending
                                               : arrow::compute::SortOrder::Ascending,
                           keys_[i].nulls_first ? arrow::compute::NullPlacement::AtStart
                                                : arrow::compute::NullPlacement::AtEnd);
  }
  auto keys = arrow::RecordBatch::Make(arrow::schema(std::move(fields)), rows->num_rows(),
                                       std::move(columns));
  arrow::compute::ExecContext context(pool);
  // Arrow's multi-key sort is stable: rows with equal keys keep their input order.
  ARROW_ASSIGN_OR_RAISE(auto indices,
                        arrow::compute::SortIndices(
                            arrow::Datum(keys),
                            arrow::compute::SortOptions(std::move(sort_keys)), &context));
  keys.reset();
  for (int64_t start = 0; start < rows->num_rows(); start += slice_rows) {
    auto slice = indices->Slice(start, std::min(slice_rows, rows->num_rows() - start));
    ARROW_ASSIGN_OR_RAISE(
        auto taken,
        arrow::compute::Take(rows, slice, arrow::compute::TakeOptions::NoBoundsCheck(),
                             &context));
    ARROW_RETURN_NOT_OK(sink(taken.record_batch()));
  }
  return arrow::Status::OK();
}

}  // namespace floe
