// The entries of manifests and manifest lists: data and delete files with their partition
// tuple and column metrics, and the manifests a snapshot lists.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "arrow/result.h"
#include "floe/types/value.h"

namespace floe::iceberg {

enum class FileContent { kData = 0, kPositionDeletes = 1, kEqualityDeletes = 2 };
enum class FileFormat { kParquet, kAvro, kOrc, kPuffin };

/// The text iceberg-java writes for a file format: "PARQUET", "AVRO", "ORC", "PUFFIN".
std::string_view FileFormatName(FileFormat format);
/// Parses a file format name in any case; unknown names give InvalidMetadata.
arrow::Result<FileFormat> ParseFileFormat(std::string_view name);

/// A data or delete file as a manifest records it.
struct DataFile {
  FileContent content = FileContent::kData;
  std::string file_path;
  FileFormat file_format = FileFormat::kParquet;
  /// The id of the partition spec the file was written with (not stored in the entry
  /// itself: it comes from the manifest).
  int spec_id = 0;
  /// One value per partition field, in spec order.
  std::vector<Value> partition;
  int64_t record_count = 0;
  int64_t file_size_in_bytes = 0;
  std::map<int, int64_t> column_sizes;
  std::map<int, int64_t> value_counts;
  std::map<int, int64_t> null_value_counts;
  std::map<int, int64_t> nan_value_counts;
  std::map<int, Bytes> lower_bounds;
  std::map<int, Bytes> upper_bounds;
  std::optional<Bytes> key_metadata;
  std::vector<int64_t> split_offsets;
  std::vector<int> equality_ids;
  std::optional<int> sort_order_id;
  std::optional<int64_t> first_row_id;
  std::optional<std::string> referenced_data_file;
  std::optional<int64_t> content_offset;
  std::optional<int64_t> content_size_in_bytes;

  bool operator==(const DataFile&) const = default;
};

/// The bytes a file's content takes, as iceberg-java's ScanTaskUtil.contentSizeInBytes
/// counts them: a deletion vector its blob, any other file the whole file.
inline int64_t ContentSizeInBytes(const DataFile& file) {
  if (file.content == FileContent::kPositionDeletes &&
      file.file_format == FileFormat::kPuffin && file.content_size_in_bytes) {
    return *file.content_size_in_bytes;
  }
  return file.file_size_in_bytes;
}

enum class EntryStatus { kExisting = 0, kAdded = 1, kDeleted = 2 };

/// One manifest entry. Sequence numbers and the snapshot id may be null in a file,
/// meaning "inherit from the manifest" (see InheritManifestMetadata).
struct ManifestEntry {
  EntryStatus status = EntryStatus::kAdded;
  std::optional<int64_t> snapshot_id;
  std::optional<int64_t> sequence_number;
  std::optional<int64_t> file_sequence_number;
  DataFile data_file;

  bool operator==(const ManifestEntry&) const = default;
};

enum class ManifestContent { kData = 0, kDeletes = 1 };

/// A partition field's summary over a manifest's entries.
struct PartitionFieldSummary {
  bool contains_null = false;
  std::optional<bool> contains_nan;
  std::optional<Bytes> lower_bound;
  std::optional<Bytes> upper_bound;
  bool operator==(const PartitionFieldSummary&) const = default;
};

/// A manifest as a manifest list records it.
struct ManifestFile {
  std::string manifest_path;
  int64_t manifest_length = 0;
  int partition_spec_id = 0;
  ManifestContent content = ManifestContent::kData;
  /// -1 (unassigned) until the manifest list writer assigns the commit's sequence number.
  int64_t sequence_number = -1;
  int64_t min_sequence_number = -1;
  int64_t added_snapshot_id = 0;
  std::optional<int32_t> added_files_count;
  std::optional<int32_t> existing_files_count;
  std::optional<int32_t> deleted_files_count;
  std::optional<int64_t> added_rows_count;
  std::optional<int64_t> existing_rows_count;
  std::optional<int64_t> deleted_rows_count;
  std::vector<PartitionFieldSummary> partitions;
  std::optional<Bytes> key_metadata;
  std::optional<int64_t> first_row_id;

  bool operator==(const ManifestFile&) const = default;
};

/// The value iceberg-java uses for a sequence number not yet assigned.
constexpr int64_t kUnassignedSequenceNumber = -1;

}  // namespace floe::iceberg
