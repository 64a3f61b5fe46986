#include "floe/iceberg/manifest/data_file.h"
#include "floe/iceberg/manifest/manifest_schema_internal.h"
#include "floe/util/error.h"

namespace floe::iceberg {

std::string_view FileFormatName(FileFormat format) {
  switch (format) {
    case FileFormat::kParquet:
      return "PARQUET";
    case FileFormat::kAvro:
      return "AVRO";
    case FileFormat::kOrc:
      return "ORC";
    case FileFormat::kPuffin:
      return "PUFFIN";
  }
  return "PARQUET";
}

arrow::Result<FileFormat> ParseFileFormat(std::string_view name) {
  std::string upper(name);
  for (auto& c : upper)
    c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (upper == "PARQUET") return FileFormat::kParquet;
  if (upper == "AVRO") return FileFormat::kAvro;
  if (upper == "ORC") return FileFormat::kOrc;
  if (upper == "PUFFIN") return FileFormat::kPuffin;
  return MakeError(ErrorKind::kInvalidMetadata,
                   "unknown file format '" + std::string(name) + "'");
}

namespace manifest_internal {
namespace {

NestedField Field(int id, const char* name, bool required, TypePtr type,
                  const char* doc = "") {
  NestedField field{id, name, required, std::move(type)};
  field.doc = doc;
  return field;
}

TypePtr IntLongMap(int key_id, int value_id) {
  return types::Map(key_id, types::Int(), value_id, types::Long(), true);
}

TypePtr IntBinaryMap(int key_id, int value_id) {
  return types::Map(key_id, types::Int(), value_id, types::Binary(), true);
}

// DataFile's fields as iceberg-java declares them (api DataFile.java).
NestedField ContentField(bool required) {
  return Field(kContentId, "content", required, types::Int(),
               "Contents of the file: 0=data, 1=position deletes, 2=equality deletes");
}
NestedField FilePath() {
  return Field(kFilePathId, "file_path", true, types::String(),
               "Location URI with FS scheme");
}
NestedField FileFormatField() {
  return Field(kFileFormatId, "file_format", true, types::String(),
               "File format name: avro, orc, or parquet");
}
NestedField RecordCount() {
  return Field(kRecordCountId, "record_count", true, types::Long(),
               "Number of records in the file");
}
NestedField FileSize() {
  return Field(kFileSizeId, "file_size_in_bytes", true, types::Long(),
               "Total file size in bytes");
}
NestedField ColumnSizes() {
  return Field(kColumnSizesId, "column_sizes", false, IntLongMap(117, 118),
               "Map of column id to total size on disk");
}
NestedField ValueCounts() {
  return Field(kValueCountsId, "value_counts", false, IntLongMap(119, 120),
               "Map of column id to total count, including null and NaN");
}
NestedField NullValueCounts() {
  return Field(kNullValueCountsId, "null_value_counts", false, IntLongMap(121, 122),
               "Map of column id to null value count");
}
NestedField NanValueCounts() {
  return Field(kNanValueCountsId, "nan_value_counts", false, IntLongMap(138, 139),
               "Map of column id to number of NaN values in the column");
}
NestedField LowerBounds() {
  return Field(kLowerBoundsId, "lower_bounds", false, IntBinaryMap(126, 127),
               "Map of column id to lower bound");
}
NestedField UpperBounds() {
  return Field(kUpperBoundsId, "upper_bounds", false, IntBinaryMap(129, 130),
               "Map of column id to upper bound");
}
NestedField KeyMetadata() {
  return Field(kKeyMetadataId, "key_metadata", false, types::Binary(),
               "Encryption key metadata blob");
}
NestedField SplitOffsets() {
  return Field(kSplitOffsetsId, "split_offsets", false,
               types::List(133, types::Long(), true), "Splittable offsets");
}
NestedField EqualityIds() {
  return Field(kEqualityIdsId, "equality_ids", false,
               types::List(136, types::Int(), true), "Equality comparison field IDs");
}
NestedField SortOrderId() {
  return Field(kSortOrderIdId, "sort_order_id", false, types::Int(), "Sort order ID");
}
NestedField FirstRowId() {
  return Field(kFirstRowIdId, "first_row_id", false, types::Long(),
               "The first row ID assigned to the first row in the data file");
}
NestedField ReferencedDataFile() {
  return Field(
      kReferencedDataFileId, "referenced_data_file", false, types::String(),
      "Fully qualified location (URI with FS scheme) of a data file that all deletes "
      "reference");
}
NestedField ContentOffset() {
  return Field(kContentOffsetId, "content_offset", false, types::Long(),
               "The offset in the file where the content starts");
}
NestedField ContentSize() {
  return Field(kContentSizeId, "content_size_in_bytes", false, types::Long(),
               "The length of referenced content stored in the file");
}

}  // namespace

std::shared_ptr<const StructType> ManifestEntryType(
    int format_version, const std::shared_ptr<const StructType>& partition_type) {
  std::vector<NestedField> file_fields;
  if (format_version == 1) {
    file_fields = {FilePath(),
                   FileFormatField(),
                   Field(kPartitionId, "partition", true, partition_type),
                   RecordCount(),
                   FileSize(),
                   Field(kBlockSizeId, "block_size_in_bytes", true, types::Long()),
                   ColumnSizes(),
                   ValueCounts(),
                   NullValueCounts(),
                   NanValueCounts(),
                   LowerBounds(),
                   UpperBounds(),
                   KeyMetadata(),
                   SplitOffsets(),
                   SortOrderId()};
  } else {
    file_fields = {ContentField(true),
                   FilePath(),
                   FileFormatField(),
                   Field(kPartitionId, "partition", true, partition_type,
                         "Partition data tuple, schema based on the partition spec"),
                   RecordCount(),
                   FileSize(),
                   ColumnSizes(),
                   ValueCounts(),
                   NullValueCounts(),
                   NanValueCounts(),
                   LowerBounds(),
                   UpperBounds(),
                   KeyMetadata(),
                   SplitOffsets(),
                   EqualityIds(),
                   SortOrderId()};
    if (format_version >= 3) {
      file_fields.push_back(FirstRowId());
      file_fields.push_back(ReferencedDataFile());
      file_fields.push_back(ContentOffset());
      file_fields.push_back(ContentSize());
    } else {
      file_fields.push_back(ReferencedDataFile());
    }
  }
  std::vector<NestedField> entry_fields = {
      Field(kStatusId, "status", true, types::Int()),
      Field(kSnapshotIdId, "snapshot_id", false, types::Long())};
  if (format_version >= 2) {
    entry_fields.push_back(
        Field(kSequenceNumberId, "sequence_number", false, types::Long()));
    entry_fields.push_back(
        Field(kFileSequenceNumberId, "file_sequence_number", false, types::Long()));
  }
  entry_fields.push_back(
      Field(kDataFileId, "data_file", true, types::Struct(std::move(file_fields))));
  return types::Struct(std::move(entry_fields));
}

std::shared_ptr<const StructType> ManifestFileType(int format_version) {
  const bool v1 = format_version == 1;
  auto summary =
      types::Struct({Field(kContainsNullId, "contains_null", true, types::Boolean(),
                           "True if any file has a null partition value"),
                     Field(kContainsNanId, "contains_nan", false, types::Boolean(),
                           "True if any file has a nan partition value"),
                     Field(kLowerBoundId, "lower_bound", false, types::Binary(),
                           "Partition lower bound for all files"),
                     Field(kUpperBoundId, "upper_bound", false, types::Binary(),
                           "Partition upper bound for all files")});
  NestedField partitions = Field(kPartitionsId, "partitions", false,
                                 types::List(kPartitionSummaryId, summary, true),
                                 "Summary for each partition");
  NestedField key_metadata = Field(kManifestKeyMetadataId, "key_metadata", false,
                                   types::Binary(), "Encryption key metadata blob");
  std::vector<NestedField> fields = {
      Field(kManifestPathId, "manifest_path", true, types::String(),
            "Location URI with FS scheme"),
      Field(kManifestLengthId, "manifest_length", true, types::Long(),
            "Total file size in bytes"),
      Field(kPartitionSpecIdId, "partition_spec_id", true, types::Int(),
            "Spec ID used to write")};
  auto counts = [&](bool required) {
    return std::vector<NestedField>{Field(kAddedFilesCountId, "added_files_count",
                                          required, types::Int(), "Added entry count"),
                                    Field(kExistingFilesCountId, "existing_files_count",
                                          required, types::Int(), "Existing entry count"),
                                    Field(kDeletedFilesCountId, "deleted_files_count",
                                          required, types::Int(), "Deleted entry count")};
  };
  auto rows = [&](bool required) {
    return std::vector<NestedField>{Field(kAddedRowsCountId, "added_rows_count", required,
                                          types::Long(), "Added rows count"),
                                    Field(kExistingRowsCountId, "existing_rows_count",
                                          required, types::Long(), "Existing rows count"),
                                    Field(kDeletedRowsCountId, "deleted_rows_count",
                                          required, types::Long(), "Deleted rows count")};
  };
  NestedField snapshot_id = Field(kAddedSnapshotIdId, "added_snapshot_id", true,
                                  types::Long(), "Snapshot ID that added the manifest");
  if (v1) {
    fields.push_back(snapshot_id);
    for (auto& field : counts(false)) fields.push_back(field);
    fields.push_back(partitions);
    for (auto& field : rows(false)) fields.push_back(field);
    fields.push_back(key_metadata);
  } else {
    fields.push_back(Field(kManifestContentId, "content", true, types::Int(),
                           "Contents of the manifest: 0=data, 1=deletes"));
    fields.push_back(Field(kManifestSequenceNumberId, "sequence_number", true,
                           types::Long(), "Sequence number when the manifest was added"));
    fields.push_back(Field(kMinSequenceNumberId, "min_sequence_number", true,
                           types::Long(), "Lowest sequence number in the manifest"));
    fields.push_back(snapshot_id);
    for (auto& field : counts(true)) fields.push_back(field);
    for (auto& field : rows(true)) fields.push_back(field);
    fields.push_back(partitions);
    fields.push_back(key_metadata);
    if (format_version >= 3) {
      fields.push_back(
          Field(kManifestFirstRowIdId, "first_row_id", false, types::Long(),
                "Starting row ID to assign to new rows in ADDED data files"));
    }
  }
  return types::Struct(std::move(fields));
}

}  // namespace manifest_internal
}  // namespace floe::iceberg
