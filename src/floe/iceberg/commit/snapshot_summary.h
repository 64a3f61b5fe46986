// Snapshot summaries with iceberg-java's keys, values and totals (SnapshotSummary).
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "floe/iceberg/manifest/data_file.h"
#include "floe/iceberg/spec/snapshot.h"

namespace floe::iceberg {

/// True for the summary keys floe computes for every snapshot (the file, record and
/// size counts and totals, partition summaries, manifest counts, the engine's name and
/// version, replace-partitions): what a caller may not set.
bool IsComputedSummaryKey(std::string_view key);

/// Accumulates what an operation adds and removes. Not thread-safe.
class SnapshotSummaryBuilder {
 public:
  /// A file added or removed, with its partition path (empty when unpartitioned).
  void AddedFile(const DataFile& file, const std::string& partition_path);
  void RemovedFile(const DataFile& file, const std::string& partition_path);
  /// A custom property (e.g. "replace-partitions"), written before the metrics.
  void Set(const std::string& key, const std::string& value);
  /// write.summary.partition-limit: per-partition summaries are written when the number
  /// of changed partitions is at most this (default 0: never).
  void SetPartitionSummaryLimit(int64_t limit) { partition_summary_limit_ = limit; }

  /// The summary properties of the operation, totals computed from the previous branch
  /// head's summary (`previous` null when the branch has no snapshot yet: totals start at
  /// 0).
  std::vector<std::pair<std::string, std::string>> Build(
      const SnapshotSummary* previous) const;

 private:
  struct Metrics {
    int64_t added_files = 0, removed_files = 0;
    int64_t added_eq_delete_files = 0, removed_eq_delete_files = 0;
    int64_t added_pos_delete_files = 0, removed_pos_delete_files = 0;
    int64_t added_delete_files = 0, removed_delete_files = 0;
    int64_t added_dvs = 0, removed_dvs = 0;
    int64_t added_records = 0, deleted_records = 0;
    int64_t added_size = 0, removed_size = 0;
    int64_t added_pos_deletes = 0, removed_pos_deletes = 0;
    int64_t added_eq_deletes = 0, removed_eq_deletes = 0;
    void Add(const DataFile& file, bool added);
    void AppendTo(std::vector<std::pair<std::string, std::string>>* out) const;
  };

  Metrics metrics_;
  std::map<std::string, Metrics> partitions_;
  std::vector<std::pair<std::string, std::string>> custom_;
  int64_t partition_summary_limit_ = 0;
};

}  // namespace floe::iceberg
