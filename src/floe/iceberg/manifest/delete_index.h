// Which delete files apply to a data file: iceberg-java's DeleteFileIndex rules, shared
// by scans (which rows to drop) and commits (which concurrent deletes a rewrite conflicts
// with).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "floe/iceberg/manifest/data_file.h"
#include "floe/iceberg/spec/partition_spec.h"

namespace floe::iceberg {

/// A live delete file of a snapshot, with its data sequence number and partition spec.
struct DeleteFileEntry {
  DataFile file;
  int64_t sequence_number = 0;
  PartitionSpecPtr spec;
};

/// The one data file a position delete file deletes from, when it names one
/// (iceberg-java's ContentFileUtil.referencedDataFile): its referenced_data_file, or else
/// its file_path column's bounds when both are the same path. nullopt for any other file.
std::optional<std::string> ReferencedDataFile(const DataFile& deletes);

/// The delete files of one snapshot, indexed for matching.
class DeleteIndex {
 public:
  void Add(DeleteFileEntry entry);
  bool empty() const { return entries_.empty(); }

  /// The delete files that apply to `file` (data sequence number `sequence_number`,
  /// written with `spec`), as iceberg-java decides: position deletes and deletion vectors
  /// with a sequence number >= the file's, in its partition (or naming it in
  /// referenced_data_file); equality deletes with a sequence number > the file's, in its
  /// partition or, when written with an unpartitioned spec, anywhere.
  std::vector<std::shared_ptr<const DeleteFileEntry>> For(
      const DataFile& file, int64_t sequence_number, const PartitionSpec& spec) const;

 private:
  std::vector<std::shared_ptr<const DeleteFileEntry>> entries_;
};

}  // namespace floe::iceberg
