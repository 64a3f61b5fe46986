// The Iceberg schemas of manifest entries and manifest-list entries per format version,
// with iceberg-java's field ids, names, requiredness and docs (V1Metadata, V2Metadata,
// V3Metadata).
#pragma once

#include <memory>

#include "floe/types/type.h"

namespace floe::iceberg::manifest_internal {

/// manifest_entry for a format version, with `partition_type` as the data_file partition.
std::shared_ptr<const StructType> ManifestEntryType(
    int format_version, const std::shared_ptr<const StructType>& partition_type);
/// manifest_file (one manifest-list row) for a format version.
std::shared_ptr<const StructType> ManifestFileType(int format_version);

// Field ids of manifest_entry and data_file.
inline constexpr int kStatusId = 0;
inline constexpr int kSnapshotIdId = 1;
inline constexpr int kDataFileId = 2;
inline constexpr int kSequenceNumberId = 3;
inline constexpr int kFileSequenceNumberId = 4;
inline constexpr int kFilePathId = 100;
inline constexpr int kFileFormatId = 101;
inline constexpr int kPartitionId = 102;
inline constexpr int kRecordCountId = 103;
inline constexpr int kFileSizeId = 104;
inline constexpr int kBlockSizeId = 105;
inline constexpr int kColumnSizesId = 108;
inline constexpr int kValueCountsId = 109;
inline constexpr int kNullValueCountsId = 110;
inline constexpr int kLowerBoundsId = 125;
inline constexpr int kUpperBoundsId = 128;
inline constexpr int kKeyMetadataId = 131;
inline constexpr int kSplitOffsetsId = 132;
inline constexpr int kContentId = 134;
inline constexpr int kEqualityIdsId = 135;
inline constexpr int kNanValueCountsId = 137;
inline constexpr int kSortOrderIdId = 140;
inline constexpr int kFirstRowIdId = 142;
inline constexpr int kReferencedDataFileId = 143;
inline constexpr int kContentOffsetId = 144;
inline constexpr int kContentSizeId = 145;

// Field ids of manifest_file.
inline constexpr int kManifestPathId = 500;
inline constexpr int kManifestLengthId = 501;
inline constexpr int kPartitionSpecIdId = 502;
inline constexpr int kAddedSnapshotIdId = 503;
inline constexpr int kAddedFilesCountId = 504;
inline constexpr int kExistingFilesCountId = 505;
inline constexpr int kDeletedFilesCountId = 506;
inline constexpr int kPartitionsId = 507;
inline constexpr int kPartitionSummaryId = 508;
inline constexpr int kContainsNullId = 509;
inline constexpr int kLowerBoundId = 510;
inline constexpr int kUpperBoundId = 511;
inline constexpr int kAddedRowsCountId = 512;
inline constexpr int kExistingRowsCountId = 513;
inline constexpr int kDeletedRowsCountId = 514;
inline constexpr int kManifestSequenceNumberId = 515;
inline constexpr int kMinSequenceNumberId = 516;
inline constexpr int kManifestContentId = 517;
inline constexpr int kContainsNanId = 518;
inline constexpr int kManifestKeyMetadataId = 519;
inline constexpr int kManifestFirstRowIdId = 520;

}  // namespace floe::iceberg::manifest_internal
