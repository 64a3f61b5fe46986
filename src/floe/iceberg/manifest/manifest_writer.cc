#include <cmath>

#include "floe/iceberg/avro/iceberg_schema_internal.h"
#include "floe/iceberg/manifest/manifest.h"
#include "floe/iceberg/manifest/manifest_schema_internal.h"
#include "floe/iceberg/spec/table_metadata.h"
#include "floe/util/error.h"
#include "floe/util/text.h"

namespace floe::iceberg {

using namespace manifest_internal;  // NOLINT(google-build-using-namespace): field id
                                    // constants

namespace {

avro::Datum Optional(const std::optional<int64_t>& value) {
  return value ? avro::Datum(*value) : avro::Datum();
}
avro::Datum OptionalInt(const std::optional<int32_t>& value) {
  return value ? avro::Datum(*value) : avro::Datum();
}
avro::Datum OptionalBytes(const std::optional<Bytes>& value) {
  return value ? avro::Datum(std::string(value->begin(), value->end())) : avro::Datum();
}

// Metric maps are written as arrays of {key, value} records (int keys); an empty map is
// an empty array, as iceberg-java's writers produce it (never null).
avro::Datum LongMap(const std::map<int, int64_t>& map) {
  avro::ArrayDatum array;
  for (const auto& [key, value] : map) {
    array.items.emplace_back(
        avro::RecordDatum{{avro::Datum(int32_t{key}), avro::Datum(value)}});
  }
  return avro::Datum(std::move(array));
}
avro::Datum BytesMap(const std::map<int, Bytes>& map) {
  avro::ArrayDatum array;
  for (const auto& [key, value] : map) {
    array.items.emplace_back(
        avro::RecordDatum{{avro::Datum(int32_t{key}),
                           avro::Datum(std::string(value.begin(), value.end()))}});
  }
  return avro::Datum(std::move(array));
}
// A delete file's metrics map that holds nothing is written as null, as iceberg-java
// writes a deletion vector's (no metrics) and a position delete file's counts (dropped by
// its PositionDeleteWriter); a data file's is written as an empty map, as iceberg-java's.
template <typename Map, typename Encode>
avro::Datum MetricsMap(const DataFile& file, const Map& map, Encode encode) {
  if (file.content != FileContent::kData && map.empty()) return avro::Datum();
  return encode(map);
}

// BigDecimal.precision(): the number of decimal digits of the unscaled value (1 for
// zero).
int DecimalDigits(__int128 unscaled) {
  unsigned __int128 magnitude =
      unscaled < 0
          ? static_cast<unsigned __int128>(0) - static_cast<unsigned __int128>(unscaled)
          : static_cast<unsigned __int128>(unscaled);
  int digits = 1;
  while (magnitude >= 10) {
    magnitude /= 10;
    ++digits;
  }
  return digits;
}

bool IsNaN(const Value& value) {
  if (auto* f = std::get_if<float>(&value)) return std::isnan(*f);
  if (auto* d = std::get_if<double>(&value)) return std::isnan(*d);
  return false;
}

// `first_row_id` is what the entry records (see ManifestWriter::Add), which may differ
// from the file's own.
avro::Datum DataFileDatum(const StructType& type, const StructType& partition_type,
                          const DataFile& file, std::optional<int64_t> first_row_id) {
  avro::RecordDatum record;
  for (const auto& field : type.fields()) {
    switch (field.id) {
      case kContentId:
        record.fields.emplace_back(int32_t{static_cast<int32_t>(file.content)});
        break;
      case kFilePathId:
        record.fields.emplace_back(file.file_path);
        break;
      case kFileFormatId:
        record.fields.emplace_back(std::string(FileFormatName(file.file_format)));
        break;
      case kPartitionId: {
        avro::RecordDatum partition;
        for (size_t i = 0; i < partition_type.fields().size(); ++i) {
          partition.fields.push_back(
              avro::ValueToDatum(file.partition[i], *partition_type.fields()[i].type));
        }
        record.fields.emplace_back(std::move(partition));
        break;
      }
      case kRecordCountId:
        record.fields.emplace_back(file.record_count);
        break;
      case kFileSizeId:
        record.fields.emplace_back(file.file_size_in_bytes);
        break;
      case kBlockSizeId:
        record.fields.emplace_back(int64_t{67108864});
        break;  // iceberg-java's constant
      case kColumnSizesId:
        record.fields.push_back(MetricsMap(file, file.column_sizes, LongMap));
        break;
      case kValueCountsId:
        record.fields.push_back(MetricsMap(file, file.value_counts, LongMap));
        break;
      case kNullValueCountsId:
        record.fields.push_back(MetricsMap(file, file.null_value_counts, LongMap));
        break;
      case kNanValueCountsId:
        record.fields.push_back(MetricsMap(file, file.nan_value_counts, LongMap));
        break;
      case kLowerBoundsId:
        record.fields.push_back(MetricsMap(file, file.lower_bounds, BytesMap));
        break;
      case kUpperBoundsId:
        record.fields.push_back(MetricsMap(file, file.upper_bounds, BytesMap));
        break;
      case kKeyMetadataId:
        record.fields.push_back(OptionalBytes(file.key_metadata));
        break;
      case kSplitOffsetsId: {
        if (file.split_offsets.empty()) {
          record.fields.emplace_back();
        } else {
          avro::ArrayDatum offsets;
          for (int64_t offset : file.split_offsets) offsets.items.emplace_back(offset);
          record.fields.emplace_back(std::move(offsets));
        }
        break;
      }
      case kEqualityIdsId: {
        if (file.equality_ids.empty()) {
          record.fields.emplace_back();
        } else {
          avro::ArrayDatum ids;
          for (int id : file.equality_ids) ids.items.emplace_back(int32_t{id});
          record.fields.emplace_back(std::move(ids));
        }
        break;
      }
      case kSortOrderIdId:
        record.fields.push_back(OptionalInt(file.sort_order_id));
        break;
      case kFirstRowIdId:
        record.fields.push_back(Optional(first_row_id));
        break;
      case kReferencedDataFileId:
        record.fields.push_back(file.referenced_data_file
                                    ? avro::Datum(*file.referenced_data_file)
                                    : avro::Datum());
        break;
      case kContentOffsetId:
        record.fields.push_back(Optional(file.content_offset));
        break;
      case kContentSizeId:
        record.fields.push_back(Optional(file.content_size_in_bytes));
        break;
      default:
        record.fields.emplace_back();
        break;
    }
  }
  return avro::Datum(std::move(record));
}

}  // namespace

arrow::Result<std::unique_ptr<ManifestWriter>> ManifestWriter::Make(
    ManifestWriteOptions options) {
  if (options.schema == nullptr || options.spec == nullptr) {
    return arrow::Status::Invalid("a manifest needs the table schema and partition spec");
  }
  if (options.format_version < 1 || options.format_version > kMaxFormatVersion) {
    return arrow::Status::Invalid("manifest format version ", options.format_version);
  }
  std::unique_ptr<ManifestWriter> writer(new ManifestWriter());
  ARROW_ASSIGN_OR_RAISE(writer->partition_type_,
                        options.spec->PartitionType(*options.schema));
  writer->entry_type_ =
      ManifestEntryType(options.format_version, writer->partition_type_);
  std::vector<std::pair<std::string, std::string>> metadata = {
      {"schema", SchemaToJson(*options.schema)},
      {"partition-spec", PartitionFieldsToJson(*options.spec)},
      {"partition-spec-id", std::to_string(options.spec->spec_id())},
      {"format-version", std::to_string(options.format_version)}};
  if (options.format_version >= 2) {
    metadata.emplace_back("content",
                          options.content == ManifestContent::kData ? "data" : "deletes");
  }
  ARROW_ASSIGN_OR_RAISE(auto entry_schema,
                        Schema::Make(0, writer->entry_type_->fields()));
  metadata.emplace_back("iceberg.schema", SchemaToJson(*entry_schema));
  writer->file_ = std::make_unique<avro::FileWriter>(
      avro::ToAvroSchema(*writer->entry_type_, "manifest_entry"), std::move(metadata),
      options.codec, options.codec_level);
  size_t partition_fields = writer->partition_type_->fields().size();
  writer->summary_.partition_spec_id = options.spec->spec_id();
  writer->summary_.content = options.content;
  writer->summary_.added_snapshot_id = options.snapshot_id.value_or(-1);
  writer->summary_.added_files_count = 0;
  writer->summary_.existing_files_count = 0;
  writer->summary_.deleted_files_count = 0;
  writer->summary_.added_rows_count = 0;
  writer->summary_.existing_rows_count = 0;
  writer->summary_.deleted_rows_count = 0;
  writer->summary_.partitions.resize(partition_fields);
  for (auto& partition : writer->summary_.partitions) partition.contains_nan = false;
  writer->lower_.resize(partition_fields);
  writer->upper_.resize(partition_fields);
  writer->options_ = std::move(options);
  return writer;
}

arrow::Status ManifestWriter::Add(const ManifestEntry& entry) {
  const auto& file = entry.data_file;
  const auto& partition_fields = partition_type_->fields();
  if (file.partition.size() != partition_fields.size()) {
    return arrow::Status::Invalid("data file ", file.file_path, " has ",
                                  file.partition.size(), " partition values; spec ",
                                  options_.spec->spec_id(), " has ",
                                  partition_fields.size(), " fields");
  }
  for (size_t i = 0; i < partition_fields.size(); ++i) {
    const Value& value = file.partition[i];
    if (!ValueMatchesType(value, *partition_fields[i].type)) {
      return arrow::Status::Invalid("data file ", file.file_path, ": partition value ", i,
                                    " is not a ", partition_fields[i].type->ToString());
    }
    if (const auto* decimal = std::get_if<Decimal>(&value)) {
      // A truncated decimal can outgrow its precision; iceberg-java then fails to write
      // the manifest (DecimalUtil), and so does floe, with its message.
      const auto& type = static_cast<const PrimitiveType&>(*partition_fields[i].type);
      if (DecimalDigits(decimal->unscaled) > type.precision()) {
        return MakeError(
            ErrorKind::kInvalidInput,
            "Cannot write value as decimal(" + std::to_string(type.precision()) + "," +
                std::to_string(type.scale()) +
                "), too large: " + DecimalToPlainString(decimal->unscaled, type.scale()));
      }
    }
    // Partition summaries cover every entry written, live or deleted (iceberg-java).
    auto& summary = summary_.partitions[i];
    if (IsNull(value)) {
      summary.contains_null = true;
    } else if (IsNaN(value)) {
      summary.contains_nan = true;
    } else {
      if (!lower_[i] || CompareValues(value, *lower_[i]) < 0) lower_[i] = value;
      if (!upper_[i] || CompareValues(value, *upper_[i]) > 0) upper_[i] = value;
    }
  }
  switch (entry.status) {
    case EntryStatus::kAdded:
      *summary_.added_files_count += 1;
      *summary_.added_rows_count += file.record_count;
      break;
    case EntryStatus::kExisting:
      *summary_.existing_files_count += 1;
      *summary_.existing_rows_count += file.record_count;
      break;
    case EntryStatus::kDeleted:
      *summary_.deleted_files_count += 1;
      *summary_.deleted_rows_count += file.record_count;
      break;
  }
  if (entry.status != EntryStatus::kDeleted && entry.sequence_number) {
    if (summary_.min_sequence_number == kUnassignedSequenceNumber ||
        *entry.sequence_number < summary_.min_sequence_number) {
      summary_.min_sequence_number = *entry.sequence_number;
    }
  }
  avro::RecordDatum record;
  const auto& file_type =
      static_cast<const StructType&>(*entry_type_->FieldById(kDataFileId)->type);
  for (const auto& field : entry_type_->fields()) {
    switch (field.id) {
      case kStatusId:
        record.fields.emplace_back(int32_t{static_cast<int32_t>(entry.status)});
        break;
      case kSnapshotIdId:
        record.fields.push_back(Optional(entry.snapshot_id));
        break;
      case kSequenceNumberId:
        record.fields.push_back(Optional(entry.sequence_number));
        break;
      case kFileSequenceNumberId:
        record.fields.push_back(Optional(entry.file_sequence_number));
        break;
      case kDataFileId: {
        // As iceberg-java's v3 writer: an added file inherits its first row id from the
        // manifest (the manifest list assigns it), so none is written; existing and
        // deleted entries keep the id they had; delete files have none.
        std::optional<int64_t> first_row_id = file.first_row_id;
        if (entry.status == EntryStatus::kAdded || file.content != FileContent::kData)
          first_row_id.reset();
        record.fields.push_back(
            DataFileDatum(file_type, *partition_type_, file, first_row_id));
        break;
      }
      default:
        record.fields.emplace_back();
        break;
    }
  }
  ++entry_count_;
  return WithContext(file_->Append(avro::Datum(std::move(record))),
                     "manifest entry " + file.file_path);
}

arrow::Result<EncodedManifest> ManifestWriter::Finish() {
  EncodedManifest result;
  ARROW_ASSIGN_OR_RAISE(result.bytes, file_->Finish());
  const auto& partition_fields = partition_type_->fields();
  for (size_t i = 0; i < partition_fields.size(); ++i) {
    if (lower_[i])
      summary_.partitions[i].lower_bound =
          ToBinary(*lower_[i], *partition_fields[i].type);
    if (upper_[i])
      summary_.partitions[i].upper_bound =
          ToBinary(*upper_[i], *partition_fields[i].type);
  }
  summary_.manifest_length = static_cast<int64_t>(result.bytes.size());
  result.summary = summary_;
  return result;
}

namespace {

// One manifest list entry as a record of `type` (the list's schema for its format
// version): a flat table of its fields.
avro::RecordDatum ManifestFileRecord(const StructType& type,
                                     const ManifestFile& manifest) {
  avro::RecordDatum record;
  for (const auto& field : type.fields()) {
    switch (field.id) {
      case kManifestPathId:
        record.fields.emplace_back(manifest.manifest_path);
        break;
      case kManifestLengthId:
        record.fields.emplace_back(manifest.manifest_length);
        break;
      case kPartitionSpecIdId:
        record.fields.emplace_back(int32_t{manifest.partition_spec_id});
        break;
      case kManifestContentId:
        record.fields.emplace_back(int32_t{static_cast<int32_t>(manifest.content)});
        break;
      case kManifestSequenceNumberId:
        record.fields.emplace_back(manifest.sequence_number);
        break;
      case kMinSequenceNumberId:
        record.fields.emplace_back(manifest.min_sequence_number);
        break;
      case kAddedSnapshotIdId:
        record.fields.emplace_back(manifest.added_snapshot_id);
        break;
      case kAddedFilesCountId:
        record.fields.push_back(field.required
                                    ? avro::Datum(manifest.added_files_count.value_or(0))
                                    : OptionalInt(manifest.added_files_count));
        break;
      case kExistingFilesCountId:
        record.fields.push_back(
            field.required ? avro::Datum(manifest.existing_files_count.value_or(0))
                           : OptionalInt(manifest.existing_files_count));
        break;
      case kDeletedFilesCountId:
        record.fields.push_back(
            field.required ? avro::Datum(manifest.deleted_files_count.value_or(0))
                           : OptionalInt(manifest.deleted_files_count));
        break;
      case kAddedRowsCountId:
        record.fields.push_back(field.required
                                    ? avro::Datum(manifest.added_rows_count.value_or(0))
                                    : Optional(manifest.added_rows_count));
        break;
      case kExistingRowsCountId:
        record.fields.push_back(
            field.required ? avro::Datum(manifest.existing_rows_count.value_or(0))
                           : Optional(manifest.existing_rows_count));
        break;
      case kDeletedRowsCountId:
        record.fields.push_back(field.required
                                    ? avro::Datum(manifest.deleted_rows_count.value_or(0))
                                    : Optional(manifest.deleted_rows_count));
        break;
      case kPartitionsId: {
        avro::ArrayDatum partitions;
        for (const auto& summary : manifest.partitions) {
          partitions.items.emplace_back(avro::RecordDatum{
              {avro::Datum(summary.contains_null),
               summary.contains_nan ? avro::Datum(*summary.contains_nan) : avro::Datum(),
               OptionalBytes(summary.lower_bound), OptionalBytes(summary.upper_bound)}});
        }
        record.fields.emplace_back(std::move(partitions));
        break;
      }
      case kManifestKeyMetadataId:
        record.fields.push_back(OptionalBytes(manifest.key_metadata));
        break;
      case kManifestFirstRowIdId:
        record.fields.push_back(Optional(manifest.first_row_id));
        break;
      default:
        record.fields.emplace_back();
        break;
    }
  }
  return record;
}

}  // namespace

arrow::Result<EncodedManifestList> WriteManifestList(
    const ManifestListWriteOptions& options, std::vector<ManifestFile> manifests) {
  EncodedManifestList result;
  auto type = ManifestFileType(options.format_version);
  std::vector<std::pair<std::string, std::string>> metadata = {
      {"snapshot-id", std::to_string(options.snapshot_id)},
      // iceberg-java writes String.valueOf(null) when there is no parent.
      {"parent-snapshot-id", options.parent_snapshot_id
                                 ? std::to_string(*options.parent_snapshot_id)
                                 : "null"}};
  if (options.format_version >= 2) {
    metadata.emplace_back("sequence-number", std::to_string(options.sequence_number));
  }
  int64_t next_row_id = options.first_row_id.value_or(0);
  if (options.format_version >= 3) {
    metadata.emplace_back("first-row-id", std::to_string(next_row_id));
  }
  metadata.emplace_back("format-version", std::to_string(options.format_version));
  ARROW_ASSIGN_OR_RAISE(auto list_schema, Schema::Make(0, type->fields()));
  metadata.emplace_back("iceberg.schema", SchemaToJson(*list_schema));
  avro::FileWriter file(avro::ToAvroSchema(*type, "manifest_file"), std::move(metadata),
                        options.codec, options.codec_level);
  for (auto& manifest : manifests) {
    if (options.format_version >= 2) {
      if (manifest.sequence_number == kUnassignedSequenceNumber) {
        manifest.sequence_number = options.sequence_number;
      }
      if (manifest.min_sequence_number == kUnassignedSequenceNumber) {
        manifest.min_sequence_number = options.sequence_number;
      }
    }
    if (options.format_version >= 3 && manifest.content == ManifestContent::kData &&
        !manifest.first_row_id) {
      manifest.first_row_id = next_row_id;
      next_row_id += manifest.added_rows_count.value_or(0) +
                     manifest.existing_rows_count.value_or(0);
    }
    ARROW_RETURN_NOT_OK(file.Append(avro::Datum(ManifestFileRecord(*type, manifest))));
  }
  ARROW_ASSIGN_OR_RAISE(result.bytes, file.Finish());
  result.assigned_rows = next_row_id - options.first_row_id.value_or(0);
  result.manifests = std::move(manifests);
  return result;
}

arrow::Status ManifestCodecFromProperties(const PropertyMap& properties,
                                          avro::Codec* codec, int* level) {
  const std::string name =
      AsciiLower(properties::kManifestCompressionCodec.Get(properties));
  if (name == "gzip") {
    *codec = avro::Codec::kDeflate;
    *level = 9;
  } else if (name == "zstd") {
    *codec = avro::Codec::kZstandard;
    *level = 1;
  } else if (name == "snappy") {
    *codec = avro::Codec::kSnappy;
    *level = -1;
  } else if (name == "uncompressed") {
    *codec = avro::Codec::kNull;
    *level = -1;
  } else {
    return MakeError(
        ErrorKind::kInvalidInput,
        "property write.manifest.compression-codec must be gzip, zstd, snappy "
        "or uncompressed");
  }
  auto text = properties.find(std::string(properties::kManifestCompressionLevel));
  if (text != properties.end() &&
      (*codec == avro::Codec::kDeflate || *codec == avro::Codec::kZstandard)) {
    auto parsed = ParseJavaInt(text->second);
    const bool valid =
        parsed && (*codec == avro::Codec::kZstandard ? *parsed >= 1 && *parsed <= 22
                                                     : *parsed >= 0 && *parsed <= 9);
    if (!valid) {
      return MakeError(
          ErrorKind::kInvalidInput,
          "property write.manifest.compression-level must be 0-9 for gzip or "
          "1-22 for zstd");
    }
    *level = *parsed;
  }
  return arrow::Status::OK();
}

}  // namespace floe::iceberg
