// Table metadata: the content of a metadata JSON file, for format versions 1, 2 and 3,
// and the functions that read, write and change it.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "arrow/result.h"
#include "floe/iceberg/spec/partition_spec.h"
#include "floe/iceberg/spec/snapshot.h"
#include "floe/iceberg/spec/sort_order.h"
#include "floe/types/schema.h"
#include "floe/util/env.h"

namespace floe::iceberg {

struct SnapshotLogEntry {
  int64_t timestamp_ms = 0;
  int64_t snapshot_id = 0;
  bool operator==(const SnapshotLogEntry&) const = default;
};

struct MetadataLogEntry {
  int64_t timestamp_ms = 0;
  std::string metadata_file;
  bool operator==(const MetadataLogEntry&) const = default;
};

/// The highest format version floe reads and writes.
constexpr int kMaxFormatVersion = 3;
/// The format version of a new table when none is asked for (iceberg-java's default).
constexpr int kDefaultFormatVersion = 2;

/// A plain value holding every field of the metadata JSON. Share committed versions as
/// std::shared_ptr<const TableMetadata>; change them only through TableMetadataBuilder.
struct TableMetadata {
  int format_version = kDefaultFormatVersion;
  std::string table_uuid;
  std::string location;
  int64_t last_sequence_number = 0;
  int64_t last_updated_ms = 0;
  int last_column_id = 0;
  std::vector<SchemaPtr> schemas;
  int current_schema_id = 0;
  std::vector<PartitionSpecPtr> specs;
  int default_spec_id = 0;
  int last_partition_id = 0;
  std::vector<SortOrderPtr> sort_orders;
  int default_sort_order_id = 0;
  std::map<std::string, std::string> properties;
  std::optional<int64_t>
      current_snapshot_id;             ///< nullopt when the table has no snapshot.
  std::optional<int64_t> next_row_id;  ///< v3
  std::string encryption_keys_json;    ///< Raw JSON array, empty when absent.
  std::map<std::string, SnapshotRef> refs;
  std::vector<SnapshotPtr> snapshots;
  std::string statistics_json = "[]";            ///< Raw JSON array, kept as read.
  std::string partition_statistics_json = "[]";  ///< Raw JSON array, kept as read.
  std::vector<SnapshotLogEntry> snapshot_log;
  std::vector<MetadataLogEntry> metadata_log;

  SchemaPtr CurrentSchema() const { return SchemaById(current_schema_id); }
  SchemaPtr SchemaById(int schema_id) const;
  PartitionSpecPtr DefaultSpec() const { return SpecById(default_spec_id); }
  PartitionSpecPtr SpecById(int spec_id) const;
  SortOrderPtr DefaultSortOrder() const;
  /// The snapshot `current_snapshot_id` names, or nullptr.
  SnapshotPtr CurrentSnapshot() const;
  SnapshotPtr SnapshotById(int64_t snapshot_id) const;
  /// The snapshot that was current at `timestamp_ms` by the snapshot log, or nullptr.
  SnapshotPtr SnapshotAsOf(int64_t timestamp_ms) const;
  /// The head of a branch, or nullptr.
  SnapshotPtr BranchHead(std::string_view branch) const;
  /// A table property, or `fallback` when unset.
  std::string Property(std::string_view key, std::string_view fallback) const;
  /// The sequence number the next snapshot gets (0 for v1).
  int64_t NextSequenceNumber() const {
    return format_version > 1 ? last_sequence_number + 1 : 0;
  }
};

using TableMetadataPtr = std::shared_ptr<const TableMetadata>;

/// Parses metadata JSON. Accepts what the spec allows for each version (v1's single
/// `schema` and `partition-spec`, a `current-snapshot-id` of -1 or null, missing `refs`).
/// Malformed or inconsistent metadata gives InvalidMetadata naming the field at fault.
arrow::Result<TableMetadataPtr> TableMetadataFromJson(std::string_view json);

/// Writes metadata JSON with iceberg-java's field order (compact, as iceberg-java ≥ 1.9).
std::string TableMetadataToJson(const TableMetadata& metadata);

/// JSON of the parts, in the spec's form (compact).
std::string SchemaToJson(const Schema& schema);
arrow::Result<SchemaPtr> SchemaFromJson(std::string_view json);
std::string PartitionSpecToJson(const PartitionSpec& spec);
/// The spec's fields only: the JSON array manifests carry in their `partition-spec`
/// header.
std::string PartitionFieldsToJson(const PartitionSpec& spec);
arrow::Result<PartitionSpecPtr> PartitionSpecFromJson(std::string_view json);
std::string SortOrderToJson(const SortOrder& order);
arrow::Result<SortOrderPtr> SortOrderFromJson(std::string_view json);
std::string SnapshotToJson(const Snapshot& snapshot);

/// Properties iceberg-java removes from a new table's properties because they are stored
/// in metadata fields (`format-version`, ...).
bool IsReservedTableProperty(std::string_view key);

/// Metadata for a new table, as iceberg-java's TableMetadata.newTableMetadata builds it:
/// fresh column ids from 1, schema id 0, spec id 0 with partition field ids from 1000,
/// the sort order with id 1 (or 0 when unsorted), reserved properties taken out, and
/// write.parquet.compression-codec=zstd added when unset. The schema's ids are
/// reassigned; the spec's and sort order's source ids are remapped by column name.
arrow::Result<TableMetadataPtr> NewTableMetadata(
    const Schema& schema, const PartitionSpec& spec, const SortOrder& sort_order,
    std::string location, std::map<std::string, std::string> properties,
    Env* env = Env::Default());

/// Produces a new metadata version from a base version.
class TableMetadataBuilder {
 public:
  /// Starts from `base`, which was read from `base_location` (empty for a table being
  /// created). `env` gives last-updated-ms.
  TableMetadataBuilder(const TableMetadata& base, std::string base_location,
                       Env* env = Env::Default());

  /// Adds a snapshot and points `branch` at it; updates the snapshot log, the sequence
  /// number and, in v3, next-row-id. The snapshot's parent must be the branch head.
  TableMetadataBuilder& AddSnapshot(const SnapshotPtr& snapshot,
                                    std::string_view branch = kMainBranch);
  TableMetadataBuilder& SetProperties(const std::map<std::string, std::string>& updates);
  TableMetadataBuilder& RemoveProperties(const std::vector<std::string>& keys);
  /// Removes snapshots by id (and refs that point at them, and their statistics files);
  /// the snapshot log keeps only entries of remaining snapshots after the last removed
  /// one, as iceberg-java does.
  TableMetadataBuilder& RemoveSnapshots(const std::vector<int64_t>& snapshot_ids);
  /// Removes a branch or tag (removing main also clears the current snapshot).
  TableMetadataBuilder& RemoveRef(const std::string& name);

  /// The new version: last-updated-ms is now, and the base location (if any) is appended
  /// to the metadata log, trimmed to write.metadata.previous-versions-max.
  /// `removed_metadata_files` (optional) receives the log entries trimmed away.
  TableMetadataPtr Build(std::vector<MetadataLogEntry>* removed_metadata_files = nullptr);

 private:
  TableMetadata metadata_;
  std::string base_location_;
  int64_t base_last_updated_ms_;
  Env* env_;
};

}  // namespace floe::iceberg
