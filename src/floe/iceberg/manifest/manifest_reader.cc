#include <charconv>

#include "floe/iceberg/avro/iceberg_schema_internal.h"
#include "floe/iceberg/manifest/manifest.h"
#include "floe/iceberg/manifest/manifest_schema_internal.h"
#include "floe/iceberg/spec/table_metadata.h"
#include "floe/util/error.h"
#include "floe/util/number_text.h"

namespace floe::iceberg {

using namespace manifest_internal;  // NOLINT(google-build-using-namespace): field id
                                    // constants

namespace {

arrow::Status Corrupt(const std::string& message) {
  return MakeError(ErrorKind::kInvalidMetadata, message);
}

// Typed views of decoded data, failing with a message that names the field.
arrow::Result<int64_t> AsLong(const avro::Datum& datum, const char* field) {
  if (auto* value = std::get_if<int64_t>(&datum.value)) return *value;
  if (auto* value = std::get_if<int32_t>(&datum.value)) return int64_t{*value};
  return Corrupt(std::string("manifest field ") + field + " is not a number");
}

arrow::Result<std::optional<int64_t>> AsOptionalLong(const avro::Datum& datum,
                                                     const char* field) {
  if (datum.is_null()) return std::optional<int64_t>();
  ARROW_ASSIGN_OR_RAISE(int64_t value, AsLong(datum, field));
  return std::optional<int64_t>(value);
}

arrow::Result<int32_t> AsInt(const avro::Datum& datum, const char* field) {
  ARROW_ASSIGN_OR_RAISE(int64_t value, AsLong(datum, field));
  if (value < INT32_MIN || value > INT32_MAX) {
    return Corrupt(std::string("manifest field ") + field + " is out of int range");
  }
  return static_cast<int32_t>(value);
}

arrow::Result<std::string> AsString(const avro::Datum& datum, const char* field) {
  if (auto* value = std::get_if<std::string>(&datum.value)) return *value;
  return Corrupt(std::string("manifest field ") + field + " is not a string");
}

// A bytes field, which the decoder holds as a string.
arrow::Result<Bytes> AsBytes(const avro::Datum& datum, const char* field) {
  ARROW_ASSIGN_OR_RAISE(std::string bytes, AsString(datum, field));
  return Bytes(bytes.begin(), bytes.end());
}

// An int-keyed metrics map: an array of {key, value} records (or, from lenient writers,
// an Avro map with decimal string keys).
template <typename V, typename Convert>
arrow::Result<std::map<int, V>> AsIntMap(const avro::Datum& datum, const char* field,
                                         Convert convert) {
  std::map<int, V> result;
  if (datum.is_null()) return result;
  if (auto* array = std::get_if<avro::ArrayDatum>(&datum.value)) {
    for (const auto& item : array->items) {
      auto* record = std::get_if<avro::RecordDatum>(&item.value);
      if (record == nullptr || record->fields.size() != 2) {
        return Corrupt(std::string("manifest field ") + field +
                       " holds a malformed entry");
      }
      ARROW_ASSIGN_OR_RAISE(int32_t key, AsInt(record->fields[0], field));
      ARROW_ASSIGN_OR_RAISE(V value, convert(record->fields[1]));
      result[key] = std::move(value);
    }
    return result;
  }
  if (auto* map = std::get_if<avro::MapDatum>(&datum.value)) {
    for (const auto& [key_text, item] : map->entries) {
      const std::optional<int32_t> key = ParseJavaInt(key_text);
      if (!key) return Corrupt(std::string("manifest field ") + field + " key");
      ARROW_ASSIGN_OR_RAISE(V value, convert(item));
      result[*key] = std::move(value);
    }
    return result;
  }
  return Corrupt(std::string("manifest field ") + field + " is not a map");
}

arrow::Result<std::map<int, int64_t>> LongMap(const avro::Datum& datum,
                                              const char* field) {
  return AsIntMap<int64_t>(
      datum, field, [field](const avro::Datum& value) { return AsLong(value, field); });
}

arrow::Result<std::map<int, Bytes>> BytesMap(const avro::Datum& datum,
                                             const char* field) {
  return AsIntMap<Bytes>(
      datum, field, [field](const avro::Datum& value) { return AsBytes(value, field); });
}

// Reads a nullable field with `read` into `*out`, which a null leaves as it is.
template <typename T, typename Read>
arrow::Status ReadUnlessNull(const avro::Datum& datum, const char* field, Read read,
                             std::optional<T>* out) {
  if (datum.is_null()) return arrow::Status::OK();
  ARROW_ASSIGN_OR_RAISE(*out, read(datum, field));
  return arrow::Status::OK();
}

// Appends the numbers of an array field to `*out` (nothing when it is not an array).
template <typename T>
arrow::Status AppendNumbers(const avro::Datum& datum, const char* field,
                            std::vector<T>* out) {
  if (auto* array = std::get_if<avro::ArrayDatum>(&datum.value)) {
    for (const auto& item : array->items) {
      ARROW_ASSIGN_OR_RAISE(int64_t number, AsLong(item, field));
      out->push_back(static_cast<T>(number));
    }
  }
  return arrow::Status::OK();
}

// A data file's content: 0 (data), 1 (position deletes) or 2 (equality deletes).
arrow::Result<FileContent> AsContent(const avro::Datum& datum) {
  ARROW_ASSIGN_OR_RAISE(int32_t content, AsInt(datum, "content"));
  if (content < 0 || content > 2)
    return Corrupt("data_file content " + std::to_string(content));
  return static_cast<FileContent>(content);
}

// A data file's format, from its name.
arrow::Result<FileFormat> AsFileFormat(const avro::Datum& datum) {
  ARROW_ASSIGN_OR_RAISE(std::string format, AsString(datum, "file_format"));
  return ParseFileFormat(format);
}

// The Iceberg type of an Avro node (partition values of manifests whose header lacks the
// spec).
TypePtr IcebergTypeOfAvro(const avro::AvroNode& node) {
  const avro::AvroNode* type = node.NonNull();
  if (type == nullptr) return PrimitiveType::Make(TypeId::kUnknown);
  std::string logical = type->LogicalType();
  bool utc = type->Property("adjust-to-utc").value_or("false") == "true";
  switch (type->type) {
    case avro::AvroType::kBoolean:
      return types::Boolean();
    case avro::AvroType::kInt:
      return logical == "date" ? types::Date() : types::Int();
    case avro::AvroType::kLong:
      if (logical == "time-micros") return types::Time();
      if (logical == "timestamp-micros")
        return utc ? types::TimestampTz() : types::Timestamp();
      if (logical == "timestamp-nanos")
        return utc ? types::TimestampTzNs() : types::TimestampNs();
      return types::Long();
    case avro::AvroType::kFloat:
      return types::Float();
    case avro::AvroType::kDouble:
      return types::Double();
    case avro::AvroType::kString:
      return types::String();
    case avro::AvroType::kBytes:
      return types::Binary();
    case avro::AvroType::kFixed:
      if (logical == "uuid") return types::Uuid();
      if (logical == "decimal") {
        return types::Decimal(type->IntProperty("precision"),
                              std::max(0, type->IntProperty("scale")));
      }
      return types::Fixed(type->size);
    default:
      return PrimitiveType::Make(TypeId::kUnknown);
  }
}

const avro::AvroNode* RecordOf(const avro::AvroNode& node) {
  const avro::AvroNode* type = node.NonNull();
  return type != nullptr && type->type == avro::AvroType::kRecord ? type : nullptr;
}

arrow::Result<std::vector<Value>> ReadPartition(const avro::AvroNode& schema,
                                                const avro::Datum& datum,
                                                const StructType& partition_type) {
  std::vector<Value> values(partition_type.fields().size());
  const avro::AvroNode* record_schema = RecordOf(schema);
  auto* record = std::get_if<avro::RecordDatum>(&datum.value);
  if (record_schema == nullptr || record == nullptr) {
    if (partition_type.fields().empty()) return values;
    return Corrupt("manifest entry has no partition record");
  }
  for (size_t i = 0; i < record_schema->fields.size(); ++i) {
    int id = record_schema->fields[i].FieldId();
    for (size_t j = 0; j < partition_type.fields().size(); ++j) {
      if (partition_type.fields()[j].id != id) continue;
      auto value =
          avro::DatumToValue(record->fields[i], *partition_type.fields()[j].type);
      if (!value.ok())
        return WithContext(value.status(),
                           "partition field " + partition_type.fields()[j].name);
      values[j] = std::move(*value);
    }
  }
  return values;
}

arrow::Result<DataFile> ReadDataFile(const avro::AvroNode& schema,
                                     const avro::Datum& datum,
                                     const StructType& partition_type) {
  DataFile file;
  auto* record = std::get_if<avro::RecordDatum>(&datum.value);
  const avro::AvroNode* record_schema = RecordOf(schema);
  if (record == nullptr || record_schema == nullptr ||
      record->fields.size() != record_schema->fields.size()) {
    return Corrupt("manifest entry's data_file is not a record");
  }
  bool has_path = false;
  for (size_t i = 0; i < record_schema->fields.size(); ++i) {
    const auto& value = record->fields[i];
    switch (record_schema->fields[i].FieldId()) {
      case kContentId:
        FLOE_ASSIGN_OR_RETURN(file.content, AsContent(value));
        break;
      case kFilePathId:
        FLOE_ASSIGN_OR_RETURN(file.file_path, AsString(value, "file_path"));
        has_path = true;
        break;
      case kFileFormatId:
        FLOE_ASSIGN_OR_RETURN(file.file_format, AsFileFormat(value));
        break;
      case kPartitionId:
        FLOE_ASSIGN_OR_RETURN(
            file.partition,
            ReadPartition(*record_schema->fields[i].type, value, partition_type));
        break;
      case kRecordCountId:
        FLOE_ASSIGN_OR_RETURN(file.record_count, AsLong(value, "record_count"));
        break;
      case kFileSizeId:
        FLOE_ASSIGN_OR_RETURN(file.file_size_in_bytes,
                              AsLong(value, "file_size_in_bytes"));
        break;
      case kColumnSizesId:
        FLOE_ASSIGN_OR_RETURN(file.column_sizes, LongMap(value, "column_sizes"));
        break;
      case kValueCountsId:
        FLOE_ASSIGN_OR_RETURN(file.value_counts, LongMap(value, "value_counts"));
        break;
      case kNullValueCountsId:
        FLOE_ASSIGN_OR_RETURN(file.null_value_counts,
                              LongMap(value, "null_value_counts"));
        break;
      case kNanValueCountsId:
        FLOE_ASSIGN_OR_RETURN(file.nan_value_counts, LongMap(value, "nan_value_counts"));
        break;
      case kLowerBoundsId:
        FLOE_ASSIGN_OR_RETURN(file.lower_bounds, BytesMap(value, "lower_bounds"));
        break;
      case kUpperBoundsId:
        FLOE_ASSIGN_OR_RETURN(file.upper_bounds, BytesMap(value, "upper_bounds"));
        break;
      case kKeyMetadataId:
        ARROW_RETURN_NOT_OK(
            ReadUnlessNull(value, "key_metadata", AsBytes, &file.key_metadata));
        break;
      case kSplitOffsetsId:
        ARROW_RETURN_NOT_OK(AppendNumbers(value, "split_offsets", &file.split_offsets));
        break;
      case kEqualityIdsId:
        ARROW_RETURN_NOT_OK(AppendNumbers(value, "equality_ids", &file.equality_ids));
        break;
      case kSortOrderIdId:
        ARROW_RETURN_NOT_OK(
            ReadUnlessNull(value, "sort_order_id", AsInt, &file.sort_order_id));
        break;
      case kFirstRowIdId:
        FLOE_ASSIGN_OR_RETURN(file.first_row_id, AsOptionalLong(value, "first_row_id"));
        break;
      case kReferencedDataFileId:
        ARROW_RETURN_NOT_OK(ReadUnlessNull(value, "referenced_data_file", AsString,
                                           &file.referenced_data_file));
        break;
      case kContentOffsetId:
        FLOE_ASSIGN_OR_RETURN(file.content_offset,
                              AsOptionalLong(value, "content_offset"));
        break;
      case kContentSizeId:
        FLOE_ASSIGN_OR_RETURN(file.content_size_in_bytes,
                              AsOptionalLong(value, "content_size_in_bytes"));
        break;
      default:
        break;
    }
  }
  if (!has_path) return Corrupt("manifest entry's data_file has no file_path");
  file.partition.resize(partition_type.fields().size());
  return file;
}

arrow::Result<std::shared_ptr<const StructType>> PartitionTypeFromAvro(
    const avro::AvroNode& entry) {
  std::vector<NestedField> fields;
  for (const auto& entry_field : entry.fields) {
    if (entry_field.FieldId() != kDataFileId) continue;
    const avro::AvroNode* file = RecordOf(*entry_field.type);
    if (file == nullptr) break;
    for (const auto& file_field : file->fields) {
      if (file_field.FieldId() != kPartitionId) continue;
      const avro::AvroNode* partition = RecordOf(*file_field.type);
      if (partition == nullptr) break;
      for (const auto& field : partition->fields) {
        fields.push_back(
            types::Optional(field.FieldId(), field.name, IcebergTypeOfAvro(*field.type)));
      }
    }
  }
  return types::Struct(std::move(fields));
}

int ParseHeaderInt(const std::map<std::string, std::string>& metadata,
                   const std::string& key, int fallback) {
  auto found = metadata.find(key);
  if (found == metadata.end()) return fallback;
  return ParseJavaInt(found->second).value_or(fallback);
}

}  // namespace

arrow::Result<ManifestContents> ReadManifest(std::string_view bytes,
                                             const StructType* partition_type) {
  ARROW_ASSIGN_OR_RAISE(auto file, avro::ReadFile(bytes));
  ManifestContents contents;
  contents.metadata = std::move(file.metadata);
  contents.format_version = ParseHeaderInt(contents.metadata, "format-version", 1);
  contents.spec_id = ParseHeaderInt(contents.metadata, "partition-spec-id", 0);
  auto content = contents.metadata.find("content");
  contents.content = content != contents.metadata.end() && content->second == "deletes"
                         ? ManifestContent::kDeletes
                         : ManifestContent::kData;
  std::shared_ptr<const StructType> resolved;
  auto schema_text = contents.metadata.find("schema");
  auto spec_text = contents.metadata.find("partition-spec");
  if (schema_text != contents.metadata.end() && spec_text != contents.metadata.end()) {
    auto schema = SchemaFromJson(schema_text->second);
    auto spec = PartitionSpecFromJson("{\"spec-id\":" + std::to_string(contents.spec_id) +
                                      ",\"fields\":" + spec_text->second + "}");
    if (schema.ok() && spec.ok()) {
      contents.schema = *schema;
      contents.spec = *spec;
      auto type = contents.spec->PartitionType(*contents.schema);
      if (type.ok()) resolved = *type;
    }
  }
  if (partition_type != nullptr) {
    resolved = std::shared_ptr<const StructType>(std::shared_ptr<const StructType>(),
                                                 partition_type);
  }
  if (resolved == nullptr) {
    if (file.schema->type != avro::AvroType::kRecord)
      return Corrupt("manifest schema is not a record");
    ARROW_ASSIGN_OR_RAISE(resolved, PartitionTypeFromAvro(*file.schema));
  }
  const avro::AvroNode& entry_schema = *file.schema;
  if (entry_schema.type != avro::AvroType::kRecord)
    return Corrupt("manifest schema is not a record");
  contents.entries.reserve(file.values.size());
  for (const auto& value : file.values) {
    auto* record = std::get_if<avro::RecordDatum>(&value.value);
    if (record == nullptr || record->fields.size() != entry_schema.fields.size()) {
      return Corrupt("manifest entry is not a record");
    }
    ManifestEntry entry;
    bool has_file = false;
    for (size_t i = 0; i < entry_schema.fields.size(); ++i) {
      const auto& field_value = record->fields[i];
      switch (entry_schema.fields[i].FieldId()) {
        case kStatusId: {
          ARROW_ASSIGN_OR_RAISE(int32_t status, AsInt(field_value, "status"));
          if (status < 0 || status > 2)
            return Corrupt("manifest entry status " + std::to_string(status));
          entry.status = static_cast<EntryStatus>(status);
          break;
        }
        case kSnapshotIdId:
          FLOE_ASSIGN_OR_RETURN(entry.snapshot_id,
                                AsOptionalLong(field_value, "snapshot_id"));
          break;
        case kSequenceNumberId:
          FLOE_ASSIGN_OR_RETURN(entry.sequence_number,
                                AsOptionalLong(field_value, "sequence_number"));
          break;
        case kFileSequenceNumberId:
          FLOE_ASSIGN_OR_RETURN(entry.file_sequence_number,
                                AsOptionalLong(field_value, "file_sequence_number"));
          break;
        case kDataFileId:
          FLOE_ASSIGN_OR_RETURN(
              entry.data_file,
              ReadDataFile(*entry_schema.fields[i].type, field_value, *resolved));
          has_file = true;
          break;
        default:
          break;
      }
    }
    if (!has_file) return Corrupt("manifest entry has no data_file");
    entry.data_file.spec_id = contents.spec_id;
    contents.entries.push_back(std::move(entry));
  }
  return contents;
}

void InheritManifestMetadata(const ManifestFile& manifest, int format_version,
                             std::vector<ManifestEntry>* entries, bool committed) {
  // Row lineage (iceberg-java's ManifestReader idAssigner): a committed data manifest
  // with a first_row_id gives its live data files without one consecutive ranges, in file
  // order; one without (written before v3) gives none; an uncommitted manifest keeps
  // what its entries say.
  if (manifest.first_row_id && manifest.content == ManifestContent::kData) {
    int64_t next_row_id = *manifest.first_row_id;
    for (auto& entry : *entries) {
      if (entry.status == EntryStatus::kDeleted ||
          entry.data_file.content != FileContent::kData || entry.data_file.first_row_id)
        continue;
      entry.data_file.first_row_id = next_row_id;
      next_row_id += entry.data_file.record_count;
    }
  } else if (committed) {
    for (auto& entry : *entries) entry.data_file.first_row_id.reset();
  }
  for (auto& entry : *entries) {
    entry.data_file.spec_id = manifest.partition_spec_id;
    if (!entry.snapshot_id) entry.snapshot_id = manifest.added_snapshot_id;
    if (format_version == 1) {
      entry.sequence_number = 0;
      entry.file_sequence_number = 0;
      continue;
    }
    if (entry.status == EntryStatus::kAdded) {
      if (!entry.sequence_number) entry.sequence_number = manifest.sequence_number;
      if (!entry.file_sequence_number)
        entry.file_sequence_number = manifest.sequence_number;
    }
  }
}

namespace {

// A manifest list entry's partition field summaries, from its `partitions` field.
arrow::Status ReadPartitionSummaries(const avro::AvroField& field_schema,
                                     const avro::Datum& field,
                                     std::vector<PartitionFieldSummary>* partitions) {
  auto* array = std::get_if<avro::ArrayDatum>(&field.value);
  if (array == nullptr) return arrow::Status::OK();
  for (const auto& item : array->items) {
    auto* summary_record = std::get_if<avro::RecordDatum>(&item.value);
    const avro::AvroNode* summary_schema = nullptr;
    if (const avro::AvroNode* list = field_schema.type->NonNull()) {
      if (list->items) summary_schema = RecordOf(*list->items);
    }
    if (summary_record == nullptr || summary_schema == nullptr) {
      return Corrupt("manifest list partition summary is not a record");
    }
    PartitionFieldSummary summary;
    for (size_t k = 0;
         k < summary_schema->fields.size() && k < summary_record->fields.size(); ++k) {
      const auto& part = summary_record->fields[k];
      switch (summary_schema->fields[k].FieldId()) {
        case kContainsNullId:
          if (auto* flag = std::get_if<bool>(&part.value)) summary.contains_null = *flag;
          break;
        case kContainsNanId:
          if (auto* flag = std::get_if<bool>(&part.value)) summary.contains_nan = *flag;
          break;
        case kLowerBoundId:
        case kUpperBoundId:
          if (auto* bound = std::get_if<std::string>(&part.value)) {
            (summary_schema->fields[k].FieldId() == kLowerBoundId ? summary.lower_bound
                                                                  : summary.upper_bound) =
                Bytes(bound->begin(), bound->end());
          }
          break;
        default:
          break;
      }
    }
    partitions->push_back(std::move(summary));
  }
  return arrow::Status::OK();
}

// One manifest list entry (a record of the list's schema).
arrow::Result<ManifestFile> ReadManifestFile(const avro::AvroNode& schema,
                                             const avro::RecordDatum& record,
                                             int format_version) {
  ManifestFile manifest;
  if (format_version == 1) {
    manifest.sequence_number = 0;
    manifest.min_sequence_number = 0;
  }
  bool has_path = false;
  for (size_t i = 0; i < schema.fields.size(); ++i) {
    const auto& field = record.fields[i];
    switch (schema.fields[i].FieldId()) {
      case kManifestPathId:
        FLOE_ASSIGN_OR_RETURN(manifest.manifest_path, AsString(field, "manifest_path"));
        has_path = true;
        break;
      case kManifestLengthId:
        FLOE_ASSIGN_OR_RETURN(manifest.manifest_length, AsLong(field, "manifest_length"));
        break;
      case kPartitionSpecIdId:
        FLOE_ASSIGN_OR_RETURN(manifest.partition_spec_id,
                              AsInt(field, "partition_spec_id"));
        break;
      case kManifestContentId: {
        ARROW_ASSIGN_OR_RAISE(int32_t content, AsInt(field, "content"));
        manifest.content =
            content == 1 ? ManifestContent::kDeletes : ManifestContent::kData;
        break;
      }
      case kManifestSequenceNumberId:
        FLOE_ASSIGN_OR_RETURN(manifest.sequence_number, AsLong(field, "sequence_number"));
        break;
      case kMinSequenceNumberId:
        FLOE_ASSIGN_OR_RETURN(manifest.min_sequence_number,
                              AsLong(field, "min_sequence_number"));
        break;
      case kAddedSnapshotIdId:
        FLOE_ASSIGN_OR_RETURN(manifest.added_snapshot_id,
                              AsLong(field, "added_snapshot_id"));
        break;
      case kAddedFilesCountId:
      case kExistingFilesCountId:
      case kDeletedFilesCountId: {
        std::optional<int32_t> count;
        if (!field.is_null()) {
          ARROW_ASSIGN_OR_RAISE(int32_t value, AsInt(field, "files_count"));
          count = value;
        }
        int id = schema.fields[i].FieldId();
        (id == kAddedFilesCountId      ? manifest.added_files_count
         : id == kExistingFilesCountId ? manifest.existing_files_count
                                       : manifest.deleted_files_count) = count;
        break;
      }
      case kAddedRowsCountId:
        FLOE_ASSIGN_OR_RETURN(manifest.added_rows_count,
                              AsOptionalLong(field, "added_rows_count"));
        break;
      case kExistingRowsCountId:
        FLOE_ASSIGN_OR_RETURN(manifest.existing_rows_count,
                              AsOptionalLong(field, "existing_rows_count"));
        break;
      case kDeletedRowsCountId:
        FLOE_ASSIGN_OR_RETURN(manifest.deleted_rows_count,
                              AsOptionalLong(field, "deleted_rows_count"));
        break;
      case kPartitionsId:
        ARROW_RETURN_NOT_OK(
            ReadPartitionSummaries(schema.fields[i], field, &manifest.partitions));
        break;
      case kManifestKeyMetadataId:
        if (auto* bytes_value = std::get_if<std::string>(&field.value)) {
          manifest.key_metadata = Bytes(bytes_value->begin(), bytes_value->end());
        }
        break;
      case kManifestFirstRowIdId:
        FLOE_ASSIGN_OR_RETURN(manifest.first_row_id,
                              AsOptionalLong(field, "first_row_id"));
        break;
      default:
        break;
    }
  }
  if (!has_path) return Corrupt("manifest list entry has no manifest_path");
  return manifest;
}

}  // namespace

arrow::Result<ManifestListContents> ReadManifestList(std::string_view bytes) {
  ARROW_ASSIGN_OR_RAISE(auto file, avro::ReadFile(bytes));
  ManifestListContents contents;
  contents.metadata = std::move(file.metadata);
  int format_version = ParseHeaderInt(contents.metadata, "format-version", 1);
  const avro::AvroNode& schema = *file.schema;
  if (schema.type != avro::AvroType::kRecord)
    return Corrupt("manifest list schema is not a record");
  for (const auto& value : file.values) {
    auto* record = std::get_if<avro::RecordDatum>(&value.value);
    if (record == nullptr || record->fields.size() != schema.fields.size()) {
      return Corrupt("manifest list entry is not a record");
    }
    ARROW_ASSIGN_OR_RAISE(ManifestFile manifest,
                          ReadManifestFile(schema, *record, format_version));
    contents.manifests.push_back(std::move(manifest));
  }
  return contents;
}

}  // namespace floe::iceberg
