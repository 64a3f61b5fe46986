#include "floe/iceberg/write/sorted_ranges_internal.h"

#include <algorithm>
#include <utility>

#include "arrow/record_batch.h"
#include "floe/types/arrow_schema.h"
#include "floe/util/error.h"

namespace floe::iceberg {

arrow::Result<std::shared_ptr<SortedRanges>> SortedRanges::Make(
    const SchemaPtr& schema, const PartitionSpecPtr& spec, const SortOrderPtr& order,
    int64_t run_bytes, int parts, arrow::MemoryPool* pool, Env* env,
    int64_t min_range_rows) {
  if (parts < 1) return arrow::Status::Invalid("a range split needs at least one part");
  std::shared_ptr<SortedRanges> ranges(new SortedRanges());
  for (int i = 0; i < parts; ++i) {
    ARROW_ASSIGN_OR_RAISE(auto sorter,
                          RowSorter::Make(schema, spec, order, run_bytes, pool, env));
    if (!sorter) {
      return MakeError(ErrorKind::kInvalidInput,
                       "a range distribution needs a sorted table");
    }
    ranges->sorters_.push_back(std::move(sorter));
  }
  ranges->bounds_.resize(static_cast<size_t>(parts));
  ranges->min_range_rows_ = min_range_rows;
  return ranges;
}

void SortedRanges::Cancel() {
  MutexLock lock(&mutex_);
  cancelled_ = true;
  changed_.SignalAll();
}

arrow::Status SortedRanges::Split() {
  for (const auto& sorter : sorters_) {
    for (const auto& run : sorter->runs_) {
      runs_.push_back(&run);
      ARROW_ASSIGN_OR_RAISE(auto keys, sorter->StorageKeys(*run.firsts));
      first_keys_.push_back(std::move(keys));
    }
  }
  // Each batch's first row stands for the batch's rows: sorted by key, the rows the
  // batches before a first row hold approximate the rows before it.
  std::vector<SplitKey> samples;
  int64_t total = 0;
  for (size_t r = 0; r < runs_.size(); ++r) {
    for (size_t b = 0; b < runs_[r]->batch_rows.size(); ++b) {
      samples.push_back(SplitKey{r, static_cast<int64_t>(b)});
      total += runs_[r]->batch_rows[b];
    }
  }
  const RowSorter& order = *sorters_.front();
  std::stable_sort(
      samples.begin(), samples.end(), [&](const SplitKey& a, const SplitKey& b) {
        return order.CompareRows(first_keys_[a.run], a.row, first_keys_[b.run], b.row) <
               0;
      });
  auto parts = static_cast<int64_t>(sorters_.size());
  if (min_range_rows_ > 0) {
    parts =
        std::clamp<int64_t>((total + min_range_rows_ - 1) / min_range_rows_, 1, parts);
  }
  int64_t before = 0;  // rows of the batches sorted before the sample
  int64_t next = 1;    // the next range whose start is to be picked
  for (const SplitKey& sample : samples) {
    while (next < parts && before >= total * next / parts) {
      bounds_[next++] = sample;
    }
    before += runs_[sample.run]->batch_rows[sample.row];
  }
  return arrow::Status::OK();
}

arrow::Status SortedRanges::Drain(
    int part, int64_t slice_rows,
    const std::function<arrow::Status(const std::shared_ptr<arrow::RecordBatch>&)>&
        sink) {
  RowSorter& sorter = *sorters_[part];
  // No part reads more than RowSorter::kMergeFanIn runs at once.
  ARROW_RETURN_NOT_OK(
      sorter.Seal(RowSorter::kMergeFanIn / static_cast<size_t>(sorters_.size())));
  {
    MutexLock lock(&mutex_);
    if (++sealed_ == parts()) {
      split_status_ = Split();
      split_ = true;
      changed_.SignalAll();
    } else {
      while (!split_ && !cancelled_) changed_.Wait(&mutex_);
    }
    if (!split_) return arrow::Status::Cancelled("another task of the write failed");
    ARROW_RETURN_NOT_OK(split_status_);
  }
  // The runs no longer change: every part reads them without the lock.
  std::optional<RowSorter::Bound> lower;
  std::optional<RowSorter::Bound> upper;
  if (part > 0) {
    if (!bounds_[part]) return arrow::Status::OK();  // an empty range
    lower = RowSorter::Bound{&first_keys_[bounds_[part]->run], bounds_[part]->row};
  }
  if (part + 1 < parts() && bounds_[part + 1]) {
    upper =
        RowSorter::Bound{&first_keys_[bounds_[part + 1]->run], bounds_[part + 1]->row};
  }
  // Each run from its last batch that starts before the range: no earlier row is in it.
  std::vector<int> start(runs_.size(), 0);
  if (lower) {
    for (size_t r = 0; r < runs_.size(); ++r) {
      // The batch before the first whose first row is not before the range.
      const int64_t first = sorter.FirstNotBefore(
          first_keys_[r], 0, static_cast<int64_t>(runs_[r]->batch_rows.size()), *lower);
      start[r] = static_cast<int>(std::max<int64_t>(0, first - 1));
    }
  }
  return sorter.MergeSources(runs_, start, lower ? &*lower : nullptr,
                             upper ? &*upper : nullptr,
                             std::min(slice_rows, sorter.SliceCap()),
                             [&](const std::shared_ptr<arrow::RecordBatch>& batch) {
                               return sink(Retype(*batch, sorter.schema_));
                             });
}

namespace {

class RangePart final : public RowHolder {
 public:
  RangePart(std::shared_ptr<SortedRanges> ranges, int part)
      : ranges_(std::move(ranges)), part_(part) {}
  arrow::Status Add(std::shared_ptr<arrow::RecordBatch> batch) override {
    return ranges_->sorter(part_).Add(std::move(batch));
  }
  arrow::Status Drain(
      int64_t slice_rows,
      const std::function<arrow::Status(const std::shared_ptr<arrow::RecordBatch>&)>&
          sink) override {
    return ranges_->Drain(part_, slice_rows, sink);
  }

 private:
  std::shared_ptr<SortedRanges> ranges_;
  int part_;
};

}  // namespace

std::shared_ptr<RowHolder> SortedRanges::Part(int part) {
  return std::make_shared<RangePart>(shared_from_this(), part);
}

}  // namespace floe::iceberg
