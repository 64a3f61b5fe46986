// Table::RewritePositionDeletes: Spark's rewrite_position_delete_files
// (RewritePositionDeleteFilesSparkAction with BinPackRewritePositionDeletePlanner).

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "floe/iceberg/commit/overwrite_files.h"
#include "floe/iceberg/scan/delete_files.h"
#include "floe/iceberg/spec/metadata_columns.h"
#include "floe/iceberg/table/delete_file_writing_internal.h"
#include "floe/iceberg/table/table.h"
#include "floe/util/cancel.h"
#include "floe/util/error.h"
#include "floe/util/test_hooks_internal.h"

namespace floe::iceberg {
namespace {

// SizeBasedFileRewritePlanner's defaults: the size range a file may keep (a share of the
// target) and the most bytes one group holds (max-file-group-size-bytes).
constexpr double kMinFileSizeRatio = 0.75;
constexpr double kMaxFileSizeRatio = 1.80;
constexpr int64_t kMaxFileGroupSizeBytes = int64_t{100} << 30;

// A file's partition tuple in the table's partition type, given by its `field_ids` (null
// where the file's spec has no such field), as a key: the planner groups the files of
// every spec by it (PartitionUtil.coercePartition), and the data files a group's deletes
// may keep are those of the same tuple.
std::string CoercedPartitionKey(const std::vector<int>& field_ids, const DataFile& file,
                                const PartitionSpec& spec) {
  DataFile tuple;
  tuple.spec_id = 0;
  tuple.partition = spec.Coerce(file.partition, field_ids);
  return OverwriteFiles::PartitionKey(tuple);
}

// One group of delete files rewritten together (RewritePositionDeletesGroup).
struct DeleteGroup {
  std::string partition;  ///< CoercedPartitionKey of its files.
  std::vector<const DeleteFileEntry*> files;
};

// BinPacking.ListPacker(max-file-group-size-bytes, lookback 1) over `files` in order: a
// group closes when the next file would take it past the limit.
std::vector<std::vector<const DeleteFileEntry*>> Pack(
    const std::vector<const DeleteFileEntry*>& files) {
  std::vector<std::vector<const DeleteFileEntry*>> bins;
  int64_t weight = 0;
  for (const DeleteFileEntry* file : files) {
    const int64_t length = ContentSizeInBytes(file->file);
    if (bins.empty() || weight + length > kMaxFileGroupSizeBytes) {
      bins.emplace_back();
      weight = 0;
    }
    bins.back().push_back(file);
    weight += length;
  }
  return bins;
}

// The groups of delete files to rewrite (BinPackRewritePositionDeletePlanner): the
// candidates (files outside the size range around `target`, or all with rewrite_all) by
// partition, packed, each group kept if it is worth rewriting. They point into `files`.
std::vector<DeleteGroup> PlanGroups(const std::vector<DeleteFileEntry>& files,
                                    const std::vector<int>& partition_ids,
                                    const RewriteDeletesOptions& options,
                                    int64_t target) {
  const auto min_size =
      static_cast<int64_t>(static_cast<double>(target) * kMinFileSizeRatio);
  const auto max_size =
      static_cast<int64_t>(static_cast<double>(target) * kMaxFileSizeRatio);
  std::map<std::string, std::vector<const DeleteFileEntry*>> by_partition;
  for (const auto& entry : files) {
    const int64_t length = ContentSizeInBytes(entry.file);
    if (!options.rewrite_all && length >= min_size && length <= max_size) continue;
    by_partition[CoercedPartitionKey(partition_ids, entry.file, *entry.spec)].push_back(
        &entry);
  }
  std::vector<DeleteGroup> groups;
  for (const auto& [partition, candidates] : by_partition) {
    for (auto& bin : Pack(candidates)) {
      int64_t bytes = 0;
      for (const DeleteFileEntry* file : bin) bytes += ContentSizeInBytes(file->file);
      const bool many = bin.size() > 1;
      if (!options.rewrite_all &&
          !(many && static_cast<int64_t>(bin.size()) >= options.min_input_files) &&
          !(many && bytes > target) && bytes <= max_size) {
        continue;
      }
      groups.push_back(DeleteGroup{partition, std::move(bin)});
    }
  }
  return groups;
}

// A live data file and its CoercedPartitionKey.
struct LiveFile {
  const FileScanTask* task;
  std::string partition;
};

// The live data files `data` by path, with their partitions (they point into `data`).
std::map<std::string, LiveFile> LiveByPath(const std::vector<FileScanTask>& data,
                                           const std::vector<int>& partition_ids) {
  std::map<std::string, LiveFile> live;
  for (const auto& task : data) {
    live.emplace(
        task.file.file_path,
        LiveFile{&task, CoercedPartitionKey(partition_ids, task.file, *task.spec)});
  }
  return live;
}

// Rewrites one group: its delete files go from `overwrite`, and the positions they
// delete in live data files of the group's partition are written anew (sorted, unique)
// and added with the newest data sequence number of the group's files. The locations
// written are added to `written`; on failure the group's own are already deleted.
arrow::Status RewriteGroup(const Table& table, const DeleteGroup& group,
                           const std::map<std::string, LiveFile>& live,
                           DeleteLoader* loader, const PropertyMap& properties,
                           OverwriteFiles* overwrite, std::vector<std::string>* written,
                           RowLevelResult* result) {
  std::map<std::string, std::vector<int64_t>> positions;  // by data file, sorted
  int64_t sequence = 0;  // the newest data sequence number of the group's files
  for (const DeleteFileEntry* entry : group.files) {
    ARROW_ASSIGN_OR_RAISE(auto deleted, loader->Positions(*entry));
    for (const auto& [path, rows] : *deleted) {
      auto& into = positions[path];
      into.insert(into.end(), rows.begin(), rows.end());
    }
    sequence = std::max(sequence, entry->sequence_number);
    overwrite->RemoveDeleteFile(entry->file);
    ++result->delete_files_removed;
  }
  std::vector<DeleteTarget> targets;
  for (auto& [path, rows] : positions) {
    auto found = live.find(path);
    if (found == live.end() || found->second.partition != group.partition) continue;
    std::sort(rows.begin(), rows.end());
    rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
    targets.push_back(
        {&found->second.task->file, found->second.task->spec, std::move(rows)});
  }
  ARROW_ASSIGN_OR_RAISE(auto deletes, WriteDeletes(table, targets, properties));
  written->insert(written->end(), deletes.locations.begin(), deletes.locations.end());
  for (auto& file : deletes.files) {
    overwrite->AddDeleteFile(std::move(file), sequence);
    ++result->delete_files_written;
  }
  return arrow::Status::OK();
}

}  // namespace

arrow::Result<RowLevelResult> Table::RewritePositionDeletes(
    const std::string& filter, const RewriteDeletesOptions& options) {
  ARROW_RETURN_NOT_OK(CheckGate(options.options));
  ARROW_RETURN_NOT_OK(Declined(
      CheckRowRewrite(*state_.metadata, options.options, RowRewrite::kPositionDeletes),
      "rewrite the position delete files of"));
  if (options.min_input_files < 1) {
    return MakeError(ErrorKind::kInvalidInput, "--min-input-files must be at least 1");
  }
  RowLevelResult result;
  const TableMetadataPtr metadata = state_.metadata;
  if (!metadata->CurrentSnapshot() || metadata->format_version < 2) return result;
  PropertyMap effective = metadata->properties;
  for (const auto& [key, value] : options.options) effective[key] = value;
  ARROW_ASSIGN_OR_RAISE(int64_t target,
                        properties::kDeleteTargetFileSizeBytes.Parse(effective));
  if (target <= 0) {
    return MakeError(ErrorKind::kInvalidInput,
                     std::string(properties::kDeleteTargetFileSizeBytes.key) +
                         " must be positive to rewrite the position deletes of " +
                         id_.ToString());
  }

  ScanOptions scan_options;
  scan_options.filter = filter;
  ARROW_ASSIGN_OR_RAISE(auto scan, TableScan::Make(io(), metadata, scan_options));
  ARROW_ASSIGN_OR_RAISE(const std::vector<DeleteFileEntry> files,
                        scan->PlanPositionDeleteFiles());
  // On v3 the action only turns position delete files into deletion vectors: once none
  // is left it does nothing.
  if (metadata->format_version >= 3 &&
      std::none_of(files.begin(), files.end(), [](const DeleteFileEntry& entry) {
        return entry.file.file_format != FileFormat::kPuffin;
      })) {
    return result;
  }
  ARROW_ASSIGN_OR_RAISE(auto partition_type, TablePartitionType(*metadata));
  std::vector<int> partition_ids;
  for (const auto& field : partition_type->fields()) partition_ids.push_back(field.id);
  const std::vector<DeleteGroup> groups =
      PlanGroups(files, partition_ids, options, target);
  if (groups.empty()) return result;

  // The live data files a group's deletes may still apply to: those of its partition
  // (Spark's semi-join with the data_files table of the partition).
  ARROW_ASSIGN_OR_RAISE(auto all, TableScan::Make(io(), metadata, ScanOptions{}));
  ARROW_ASSIGN_OR_RAISE(const std::vector<FileScanTask> data, all->PlanFiles());
  const std::map<std::string, LiveFile> live = LiveByPath(data, partition_ids);

  auto overwrite = std::make_unique<OverwriteFiles>(commit_target());
  overwrite->ValidateFromSnapshot(current_snapshot_id());
  overwrite->RewriteFiles();
  DeleteLoader loader(io(), metadata->CurrentSchema(), nullptr);
  std::vector<std::string> written;  // deleted again if the commit fails
  for (const DeleteGroup& group : groups) {
    auto rewritten = RewriteGroup(*this, group, live, &loader, effective, overwrite.get(),
                                  &written, &result);
    if (!rewritten.ok()) {
      DeleteWritten(*io(), written);
      return rewritten;
    }
  }
  TestPausePoint("commit");
  ARROW_ASSIGN_OR_RAISE(
      result.commit,
      CommitWithDeleteFiles(*overwrite, state_, *io(), written,
                            "rewriting the position delete files of " + id_.ToString()));
  state_ = result.commit.state;
  result.committed = true;
  return result;
}

}  // namespace floe::iceberg
