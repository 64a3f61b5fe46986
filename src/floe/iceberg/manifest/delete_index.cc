#include "floe/iceberg/manifest/delete_index.h"

#include "floe/iceberg/spec/metadata_columns.h"

namespace floe::iceberg {
namespace {

bool SamePartition(const DeleteFileEntry& deletes, const DataFile& file,
                   const PartitionSpec& spec) {
  return deletes.file.spec_id == spec.spec_id() &&
         deletes.file.partition == file.partition;
}

}  // namespace

void DeleteIndex::Add(DeleteFileEntry entry) {
  entries_.push_back(std::make_shared<const DeleteFileEntry>(std::move(entry)));
}

std::optional<std::string> ReferencedDataFile(const DataFile& deletes) {
  if (deletes.content != FileContent::kPositionDeletes) return std::nullopt;
  if (deletes.referenced_data_file) return deletes.referenced_data_file;
  auto lower = deletes.lower_bounds.find(kDeleteFilePathColumnId);
  auto upper = deletes.upper_bounds.find(kDeleteFilePathColumnId);
  if (lower == deletes.lower_bounds.end() || upper == deletes.upper_bounds.end() ||
      lower->second.empty() || lower->second != upper->second) {
    return std::nullopt;
  }
  return std::string(lower->second.begin(), lower->second.end());
}

std::vector<std::shared_ptr<const DeleteFileEntry>> DeleteIndex::For(
    const DataFile& file, int64_t sequence_number, const PartitionSpec& spec) const {
  std::vector<std::shared_ptr<const DeleteFileEntry>> out;
  for (const auto& entry : entries_) {
    const DataFile& deletes = entry->file;
    if (deletes.content == FileContent::kPositionDeletes) {
      if (entry->sequence_number < sequence_number) continue;
      // A file naming one data file (referenced_data_file, or equal file_path bounds)
      // applies to that file only; any other to the files of its partition.
      if (auto referenced = ReferencedDataFile(deletes)) {
        if (*referenced != file.file_path) continue;
      } else if (!SamePartition(*entry, file, spec)) {
        continue;
      }
    } else if (deletes.content == FileContent::kEqualityDeletes) {
      if (entry->sequence_number <= sequence_number) continue;
      bool global = entry->spec && entry->spec->IsUnpartitioned();
      if (!global && !SamePartition(*entry, file, spec)) continue;
    } else {
      continue;
    }
    out.push_back(entry);
  }
  return out;
}

}  // namespace floe::iceberg
