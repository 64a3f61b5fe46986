// Table properties floe reads, each defined once with iceberg-java's key and default.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "arrow/result.h"
#include "floe/util/number_text.h"

namespace floe::iceberg {

using PropertyMap = std::map<std::string, std::string>;

/// A property whose value is an integer (int or long in iceberg-java).
struct IntProperty {
  std::string_view key;
  int64_t default_value;
  bool is_32_bit;  ///< True when iceberg-java reads it as an int.

  /// The value, or the default when unset. A value iceberg-java would fail to parse gives
  /// InvalidInput naming the property (never its value).
  arrow::Result<int64_t> Parse(const PropertyMap& properties) const;
  /// The value, or the default when unset or unparseable (for callers behind the gate).
  int64_t Get(const PropertyMap& properties) const;
};

struct BoolProperty {
  std::string_view key;
  bool default_value;
  bool Get(const PropertyMap& properties) const;
};

struct StringProperty {
  std::string_view key;
  std::string_view default_value;
  std::string Get(const PropertyMap& properties) const;
};

namespace properties {
// Writing data files.
inline constexpr StringProperty kDefaultFileFormat{"write.format.default", "parquet"};
inline constexpr IntProperty kTargetFileSizeBytes{"write.target-file-size-bytes",
                                                  536870912, false};
/// What a rewrite of position delete files aims each new file at (iceberg-java's
/// DELETE_TARGET_FILE_SIZE_BYTES).
inline constexpr IntProperty kDeleteTargetFileSizeBytes{
    "write.delete.target-file-size-bytes", 67108864, false};
inline constexpr StringProperty kDataPath{"write.data.path", ""};
inline constexpr StringProperty kMetadataPath{"write.metadata.path", ""};
inline constexpr BoolProperty kObjectStorageEnabled{"write.object-storage.enabled",
                                                    false};
inline constexpr BoolProperty kSparkFanoutEnabled{"write.spark.fanout.enabled", false};
/// none, hash or range; unset: Spark's default for the table (see WritePlan::Make).
inline constexpr StringProperty kWriteDistributionMode{"write.distribution-mode", ""};
// Parquet.
inline constexpr IntProperty kParquetRowGroupSizeBytes{
    "write.parquet.row-group-size-bytes", 134217728, true};
inline constexpr IntProperty kParquetPageSizeBytes{"write.parquet.page-size-bytes",
                                                   1048576, true};
inline constexpr IntProperty kParquetPageRowLimit{"write.parquet.page-row-limit", 20000,
                                                  true};
inline constexpr IntProperty kParquetDictSizeBytes{"write.parquet.dict-size-bytes",
                                                   2097152, true};
/// The code default is gzip; new tables get zstd written into their properties.
inline constexpr StringProperty kParquetCompressionCodec{
    "write.parquet.compression-codec", "gzip"};
inline constexpr StringProperty kParquetCompressionLevel{
    "write.parquet.compression-level", ""};
// Metrics.
inline constexpr StringProperty kMetricsDefault{"write.metadata.metrics.default",
                                                "truncate(16)"};
inline constexpr std::string_view kMetricsColumnPrefix = "write.metadata.metrics.column.";
inline constexpr IntProperty kMetricsMaxInferredColumns{
    "write.metadata.metrics.max-inferred-column-defaults", 100, true};
// Manifests and metadata.
inline constexpr StringProperty kManifestCompressionCodec{
    "write.manifest.compression-codec", "gzip"};
/// gzip and zstd only; unset: iceberg-java's Avro defaults (deflate 9, zstd 1).
inline constexpr std::string_view kManifestCompressionLevel =
    "write.manifest.compression-level";
inline constexpr StringProperty kMetadataCompressionCodec{
    "write.metadata.compression-codec", "none"};
/// Whether metadata files are gzipped: write.metadata.compression-codec none or gzip, in
/// any case, as iceberg-java's TableMetadataParser.Codec.fromName reads it; InvalidInput
/// naming the property for anything else (iceberg-java fails the commit; the gate
/// declines it).
arrow::Result<bool> MetadataFilesGzipped(const PropertyMap& properties);
inline constexpr IntProperty kMetadataPreviousVersionsMax{
    "write.metadata.previous-versions-max", 100, true};
inline constexpr BoolProperty kMetadataDeleteAfterCommit{
    "write.metadata.delete-after-commit.enabled", false};
inline constexpr IntProperty kSummaryPartitionLimit{"write.summary.partition-limit", 0,
                                                    true};
// Manifest merging (iceberg-java's MergingSnapshotProducer; on by default there).
inline constexpr BoolProperty kManifestMergeEnabled{"commit.manifest-merge.enabled",
                                                    true};
inline constexpr IntProperty kManifestMinMergeCount{"commit.manifest.min-count-to-merge",
                                                    100, true};
inline constexpr IntProperty kManifestTargetSizeBytes{"commit.manifest.target-size-bytes",
                                                      int64_t{8} * 1024 * 1024, false};
// Commit retries.
inline constexpr IntProperty kCommitNumRetries{"commit.retry.num-retries", 4, true};
inline constexpr IntProperty kCommitMinRetryWaitMs{"commit.retry.min-wait-ms", 100, true};
inline constexpr IntProperty kCommitMaxRetryWaitMs{"commit.retry.max-wait-ms", 60000,
                                                   true};
inline constexpr IntProperty kCommitTotalRetryTimeMs{"commit.retry.total-timeout-ms",
                                                     1800000, true};
// Snapshot expiration (iceberg-java's RemoveSnapshots) and whether files may be deleted.
inline constexpr BoolProperty kGcEnabled{"gc.enabled", true};
inline constexpr IntProperty kMaxSnapshotAgeMs{"history.expire.max-snapshot-age-ms",
                                               int64_t{5} * 24 * 60 * 60 * 1000, false};
inline constexpr IntProperty kMinSnapshotsToKeep{"history.expire.min-snapshots-to-keep",
                                                 1, true};
inline constexpr IntProperty kMaxRefAgeMs{"history.expire.max-ref-age-ms",
                                          std::numeric_limits<int64_t>::max(), false};
// Isolation of row-level operations (serializable or snapshot), as iceberg-java's Spark
// writes read them; `isolation-level` is the write option of a dynamic overwrite.
// How a row-level delete, update or merge changes rows (iceberg-java's
// RowLevelOperationMode):
// copy-on-write rewrites files, merge-on-read writes delete files.
inline constexpr StringProperty kDeleteMode{"write.delete.mode", "copy-on-write"};
inline constexpr StringProperty kUpdateMode{"write.update.mode", "copy-on-write"};
inline constexpr StringProperty kMergeMode{"write.merge.mode", "copy-on-write"};
inline constexpr StringProperty kDeleteIsolationLevel{"write.delete.isolation-level",
                                                      "serializable"};
inline constexpr StringProperty kUpdateIsolationLevel{"write.update.isolation-level",
                                                      "serializable"};
inline constexpr StringProperty kMergeIsolationLevel{"write.merge.isolation-level",
                                                     "serializable"};
inline constexpr StringProperty kIsolationLevelOption{"isolation-level", "serializable"};
}  // namespace properties

}  // namespace floe::iceberg
