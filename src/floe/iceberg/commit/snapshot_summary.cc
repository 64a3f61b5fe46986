#include "floe/iceberg/commit/snapshot_summary.h"

#include <optional>

#include "floe/util/number_text.h"

namespace floe::iceberg {
namespace {

void SetIf(bool condition, const std::string& key, int64_t value,
           std::vector<std::pair<std::string, std::string>>* out) {
  if (condition) out->emplace_back(key, std::to_string(value));
}

bool IsDeletionVector(const DataFile& file) {
  return file.content == FileContent::kPositionDeletes &&
         file.file_format == FileFormat::kPuffin;
}

}  // namespace

void SnapshotSummaryBuilder::Metrics::Add(const DataFile& file, bool added) {
  (added ? added_size : removed_size) += ContentSizeInBytes(file);
  switch (file.content) {
    case FileContent::kData:
      (added ? added_files : removed_files) += 1;
      (added ? added_records : deleted_records) += file.record_count;
      break;
    case FileContent::kPositionDeletes:
      if (IsDeletionVector(file)) {
        (added ? added_dvs : removed_dvs) += 1;
      } else {
        (added ? added_pos_delete_files : removed_pos_delete_files) += 1;
      }
      (added ? added_delete_files : removed_delete_files) += 1;
      (added ? added_pos_deletes : removed_pos_deletes) += file.record_count;
      break;
    case FileContent::kEqualityDeletes:
      (added ? added_delete_files : removed_delete_files) += 1;
      (added ? added_eq_delete_files : removed_eq_delete_files) += 1;
      (added ? added_eq_deletes : removed_eq_deletes) += file.record_count;
      break;
  }
}

void SnapshotSummaryBuilder::Metrics::AppendTo(
    std::vector<std::pair<std::string, std::string>>* out) const {
  SetIf(added_files > 0, "added-data-files", added_files, out);
  SetIf(removed_files > 0, "deleted-data-files", removed_files, out);
  SetIf(added_eq_delete_files > 0, "added-equality-delete-files", added_eq_delete_files,
        out);
  SetIf(removed_eq_delete_files > 0, "removed-equality-delete-files",
        removed_eq_delete_files, out);
  SetIf(added_pos_delete_files > 0, "added-position-delete-files", added_pos_delete_files,
        out);
  SetIf(removed_pos_delete_files > 0, "removed-position-delete-files",
        removed_pos_delete_files, out);
  SetIf(added_delete_files > 0, "added-delete-files", added_delete_files, out);
  SetIf(removed_delete_files > 0, "removed-delete-files", removed_delete_files, out);
  SetIf(added_dvs > 0, "added-dvs", added_dvs, out);
  SetIf(removed_dvs > 0, "removed-dvs", removed_dvs, out);
  SetIf(added_records > 0, "added-records", added_records, out);
  SetIf(deleted_records > 0, "deleted-records", deleted_records, out);
  SetIf(added_size > 0, "added-files-size", added_size, out);
  SetIf(removed_size > 0, "removed-files-size", removed_size, out);
  SetIf(added_pos_deletes > 0, "added-position-deletes", added_pos_deletes, out);
  SetIf(removed_pos_deletes > 0, "removed-position-deletes", removed_pos_deletes, out);
  SetIf(added_eq_deletes > 0, "added-equality-deletes", added_eq_deletes, out);
  SetIf(removed_eq_deletes > 0, "removed-equality-deletes", removed_eq_deletes, out);
}

void SnapshotSummaryBuilder::AddedFile(const DataFile& file,
                                       const std::string& partition_path) {
  metrics_.Add(file, true);
  partitions_[partition_path].Add(file, true);
}

void SnapshotSummaryBuilder::RemovedFile(const DataFile& file,
                                         const std::string& partition_path) {
  metrics_.Add(file, false);
  partitions_[partition_path].Add(file, false);
}

bool IsComputedSummaryKey(std::string_view key) {
  constexpr std::string_view kPrefixes[] = {
      "added-", "deleted-", "removed-", "total-", "manifests-", "engine-", "partitions."};
  constexpr std::string_view kKeys[] = {"changed-partition-count",
                                        "partition-summaries-included", "iceberg-version",
                                        "replace-partitions"};
  for (std::string_view prefix : kPrefixes) {
    if (key.starts_with(prefix)) return true;
  }
  for (std::string_view computed : kKeys) {
    if (key == computed) return true;
  }
  return false;
}

void SnapshotSummaryBuilder::Set(const std::string& key, const std::string& value) {
  for (auto& entry : custom_) {
    if (entry.first == key) {
      entry.second = value;
      return;
    }
  }
  custom_.emplace_back(key, value);
}

std::vector<std::pair<std::string, std::string>> SnapshotSummaryBuilder::Build(
    const SnapshotSummary* previous) const {
  std::vector<std::pair<std::string, std::string>> out = custom_;
  metrics_.AppendTo(&out);
  out.emplace_back("changed-partition-count", std::to_string(partitions_.size()));
  if (static_cast<int64_t>(partitions_.size()) <= partition_summary_limit_ &&
      !partitions_.empty()) {
    out.emplace_back("partition-summaries-included", "true");
    for (const auto& [path, metrics] : partitions_) {
      if (path.empty()) continue;
      std::vector<std::pair<std::string, std::string>> parts;
      metrics.AppendTo(&parts);
      std::string text;
      for (const auto& [key, value] : parts) {
        if (!text.empty()) text += ",";
        text += key + "=" + value;
      }
      out.emplace_back("partitions." + path, text);
    }
  }
  // Totals: previous total + added - removed; omitted when the previous total is missing
  // or not a number, or the result would be negative (iceberg-java's
  // SnapshotProducer.updateTotal).
  auto previous_total = [&](const std::string& key) -> std::optional<int64_t> {
    if (previous == nullptr) return 0;
    return previous->GetLong(key);
  };
  auto lookup = [&](const std::string& key) -> int64_t {
    for (const auto& [name, value] : out) {
      if (name == key) return ParseJavaLong(value).value_or(0);  // floe's own totals
    }
    return 0;
  };
  struct Total {
    const char* total;
    const char* added;
    const char* removed;
  };
  constexpr Total kTotals[] = {
      {"total-records", "added-records", "deleted-records"},
      {"total-files-size", "added-files-size", "removed-files-size"},
      {"total-data-files", "added-data-files", "deleted-data-files"},
      {"total-delete-files", "added-delete-files", "removed-delete-files"},
      {"total-position-deletes", "added-position-deletes", "removed-position-deletes"},
      {"total-equality-deletes", "added-equality-deletes", "removed-equality-deletes"},
  };
  std::vector<std::pair<std::string, std::string>> totals;
  for (const auto& total : kTotals) {
    auto base = previous_total(total.total);
    if (!base) continue;
    int64_t value = *base + lookup(total.added) - lookup(total.removed);
    if (value >= 0) totals.emplace_back(total.total, std::to_string(value));
  }
  for (auto& entry : totals) out.push_back(std::move(entry));
  // The environment, as iceberg-java's EnvironmentContext adds it.
  out.emplace_back("engine-name", "floe");
  out.emplace_back("engine-version", FLOE_VERSION);
  return out;
}

}  // namespace floe::iceberg
