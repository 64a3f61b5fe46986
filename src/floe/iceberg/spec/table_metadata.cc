#include "floe/iceberg/spec/table_metadata.h"

#include "floe/util/utf8_internal.h"

#include <algorithm>
#include <set>

#include "floe/iceberg/spec/json_internal.h"
#include "floe/iceberg/spec/table_properties.h"
#include "floe/util/json_number_internal.h"
#include "floe/util/uuid.h"

namespace floe::iceberg {

using json_internal::GetInt;
using json_internal::GetLong;
using json_internal::GetOptionalLong;
using json_internal::GetString;
using json_internal::Json;
using json_internal::Member;
using json_internal::OrderedJson;

SchemaPtr TableMetadata::SchemaById(int schema_id) const {
  for (const auto& schema : schemas) {
    if (schema->schema_id() == schema_id) return schema;
  }
  return nullptr;
}

PartitionSpecPtr TableMetadata::SpecById(int spec_id) const {
  for (const auto& spec : specs) {
    if (spec->spec_id() == spec_id) return spec;
  }
  return nullptr;
}

SortOrderPtr TableMetadata::DefaultSortOrder() const {
  for (const auto& order : sort_orders) {
    if (order->order_id == default_sort_order_id) return order;
  }
  return nullptr;
}

SnapshotPtr TableMetadata::CurrentSnapshot() const {
  return current_snapshot_id ? SnapshotById(*current_snapshot_id) : nullptr;
}

SnapshotPtr TableMetadata::SnapshotById(int64_t snapshot_id) const {
  for (const auto& snapshot : snapshots) {
    if (snapshot->snapshot_id == snapshot_id) return snapshot;
  }
  return nullptr;
}

SnapshotPtr TableMetadata::SnapshotAsOf(int64_t timestamp_ms) const {
  SnapshotPtr found;
  for (const auto& entry : snapshot_log) {
    if (entry.timestamp_ms <= timestamp_ms) {
      if (auto snapshot = SnapshotById(entry.snapshot_id)) found = snapshot;
    }
  }
  return found;
}

SnapshotPtr TableMetadata::BranchHead(std::string_view branch) const {
  auto found = refs.find(std::string(branch));
  if (found == refs.end()) return nullptr;
  return SnapshotById(found->second.snapshot_id);
}

std::string TableMetadata::Property(std::string_view key,
                                    std::string_view fallback) const {
  auto found = properties.find(std::string(key));
  return found == properties.end() ? std::string(fallback) : found->second;
}

bool IsReservedTableProperty(std::string_view key) {
  return key == "format-version" || key == "uuid" || key == "snapshot-count" ||
         key == "current-snapshot-id" || key == "current-snapshot-summary" ||
         key == "current-snapshot-timestamp-ms" || key == "current-schema" ||
         key == "default-partition-spec" || key == "default-sort-order";
}

namespace {

arrow::Status Invalid(const std::string& message) {
  return MakeError(ErrorKind::kInvalidMetadata, "table metadata: " + message);
}

arrow::Result<std::string> RawArray(const Json& json, std::string_view key) {
  auto found = json.find(key);
  if (found == json.end() || found->is_null()) return std::string("[]");
  if (!found->is_array()) return Invalid(std::string(key) + " is not an array");
  return found->dump();
}

arrow::Status Validate(const TableMetadata& metadata) {
  if (metadata.CurrentSchema() == nullptr) {
    return Invalid("current-schema-id " + std::to_string(metadata.current_schema_id) +
                   " names no schema");
  }
  if (metadata.DefaultSpec() == nullptr) {
    return Invalid("default-spec-id " + std::to_string(metadata.default_spec_id) +
                   " names no partition spec");
  }
  if (metadata.DefaultSortOrder() == nullptr) {
    return Invalid("default-sort-order-id " +
                   std::to_string(metadata.default_sort_order_id) +
                   " names no sort order");
  }
  if (metadata.current_snapshot_id && metadata.CurrentSnapshot() == nullptr) {
    return Invalid("current-snapshot-id " +
                   std::to_string(*metadata.current_snapshot_id) + " names no snapshot");
  }
  std::set<int64_t> ids;
  for (const auto& snapshot : metadata.snapshots) {
    if (!ids.insert(snapshot->snapshot_id).second) {
      return Invalid("snapshot id " + std::to_string(snapshot->snapshot_id) + " repeats");
    }
  }
  for (const auto& [name, ref] : metadata.refs) {
    if (!ids.count(ref.snapshot_id)) {
      return Invalid("ref '" + name + "' names missing snapshot " +
                     std::to_string(ref.snapshot_id));
    }
  }
  return arrow::Status::OK();
}

constexpr std::string_view kWhat = "table metadata";

// The schemas and the current schema id (v1: the one "schema").
arrow::Status ReadSchemas(const Json& json, bool v1, TableMetadata* metadata) {
  if (auto schemas = json.find("schemas"); schemas != json.end()) {
    if (!schemas->is_array()) return Invalid("schemas is not an array");
    for (const auto& item : *schemas) {
      ARROW_ASSIGN_OR_RAISE(auto schema, json_internal::SchemaFromJsonValue(item));
      metadata->schemas.push_back(std::move(schema));
    }
    ARROW_ASSIGN_OR_RAISE(metadata->current_schema_id,
                          GetInt(json, "current-schema-id", kWhat));
  } else if (v1) {
    ARROW_ASSIGN_OR_RAISE(const Json* schema_json, Member(json, "schema", kWhat));
    ARROW_ASSIGN_OR_RAISE(auto schema, json_internal::SchemaFromJsonValue(*schema_json));
    metadata->current_schema_id = schema->schema_id();
    metadata->schemas.push_back(std::move(schema));
  } else {
    return Invalid("missing field 'schemas'");
  }
  return arrow::Status::OK();
}

// The partition specs, the default spec id and the last partition id (v1: the one
// "partition-spec", and the highest field id when last-partition-id is missing).
arrow::Status ReadSpecs(const Json& json, bool v1, TableMetadata* metadata) {
  if (auto specs = json.find("partition-specs"); specs != json.end()) {
    if (!specs->is_array()) return Invalid("partition-specs is not an array");
    for (const auto& item : *specs) {
      ARROW_ASSIGN_OR_RAISE(auto spec, json_internal::PartitionSpecFromJsonValue(item));
      metadata->specs.push_back(std::move(spec));
    }
    ARROW_ASSIGN_OR_RAISE(metadata->default_spec_id,
                          GetInt(json, "default-spec-id", kWhat));
  } else if (v1) {
    ARROW_ASSIGN_OR_RAISE(const Json* fields, Member(json, "partition-spec", kWhat));
    ARROW_ASSIGN_OR_RAISE(auto spec,
                          json_internal::PartitionFieldsFromJsonValue(*fields, 0));
    metadata->specs.push_back(std::move(spec));
    metadata->default_spec_id = 0;
  } else {
    return Invalid("missing field 'partition-specs'");
  }
  if (json.contains("last-partition-id") || !v1) {
    ARROW_ASSIGN_OR_RAISE(metadata->last_partition_id,
                          GetInt(json, "last-partition-id", kWhat));
  } else {
    metadata->last_partition_id = kPartitionDataIdStart - 1;
    for (const auto& spec : metadata->specs) {
      metadata->last_partition_id =
          std::max(metadata->last_partition_id, spec->LastAssignedFieldId());
    }
  }
  return arrow::Status::OK();
}

// The sort orders and the default sort order id (v1: unsorted when missing).
arrow::Status ReadSortOrders(const Json& json, bool v1, TableMetadata* metadata) {
  if (auto orders = json.find("sort-orders"); orders != json.end()) {
    if (!orders->is_array()) return Invalid("sort-orders is not an array");
    for (const auto& item : *orders) {
      ARROW_ASSIGN_OR_RAISE(auto order, json_internal::SortOrderFromJsonValue(item));
      metadata->sort_orders.push_back(std::move(order));
    }
    ARROW_ASSIGN_OR_RAISE(metadata->default_sort_order_id,
                          GetInt(json, "default-sort-order-id", kWhat));
  } else if (v1) {
    metadata->sort_orders.push_back(SortOrder::Unsorted());
    metadata->default_sort_order_id = 0;
  } else {
    return Invalid("missing field 'sort-orders'");
  }
  return arrow::Status::OK();
}

// The snapshots and refs (main from current-snapshot-id when there are no refs).
arrow::Status ReadSnapshotsAndRefs(const Json& json, TableMetadata* metadata) {
  if (auto snapshots = json.find("snapshots");
      snapshots != json.end() && !snapshots->is_null()) {
    if (!snapshots->is_array()) return Invalid("snapshots is not an array");
    for (const auto& item : *snapshots) {
      ARROW_ASSIGN_OR_RAISE(auto snapshot, json_internal::SnapshotFromJsonValue(item));
      metadata->snapshots.push_back(std::move(snapshot));
    }
  }
  if (auto refs = json.find("refs"); refs != json.end() && !refs->is_null()) {
    if (!refs->is_object()) return Invalid("refs is not an object");
    for (const auto& [name, item] : refs->items()) {
      ARROW_ASSIGN_OR_RAISE(auto ref, json_internal::SnapshotRefFromJsonValue(item));
      metadata->refs[name] = ref;
    }
  } else if (metadata->current_snapshot_id) {
    metadata->refs[kMainBranch] = SnapshotRef{*metadata->current_snapshot_id, true};
  }
  return arrow::Status::OK();
}

// The snapshot log and the metadata log.
arrow::Status ReadLogs(const Json& json, TableMetadata* metadata) {
  if (auto log = json.find("snapshot-log"); log != json.end() && !log->is_null()) {
    if (!log->is_array()) return Invalid("snapshot-log is not an array");
    for (const auto& item : *log) {
      SnapshotLogEntry entry;
      ARROW_ASSIGN_OR_RAISE(entry.timestamp_ms,
                            GetLong(item, "timestamp-ms", "snapshot-log"));
      ARROW_ASSIGN_OR_RAISE(entry.snapshot_id,
                            GetLong(item, "snapshot-id", "snapshot-log"));
      metadata->snapshot_log.push_back(entry);
    }
  }
  if (auto log = json.find("metadata-log"); log != json.end() && !log->is_null()) {
    if (!log->is_array()) return Invalid("metadata-log is not an array");
    for (const auto& item : *log) {
      MetadataLogEntry entry;
      ARROW_ASSIGN_OR_RAISE(entry.timestamp_ms,
                            GetLong(item, "timestamp-ms", "metadata-log"));
      ARROW_ASSIGN_OR_RAISE(entry.metadata_file,
                            GetString(item, "metadata-file", "metadata-log"));
      metadata->metadata_log.push_back(std::move(entry));
    }
  }
  return arrow::Status::OK();
}

}  // namespace

arrow::Result<TableMetadataPtr> TableMetadataFromJson(std::string_view text) {
  ARROW_ASSIGN_OR_RAISE(Json json, json_internal::Parse(text, "table metadata"));
  if (!json.is_object()) return Invalid("not a JSON object");
  auto metadata = std::make_shared<TableMetadata>();
  ARROW_ASSIGN_OR_RAISE(metadata->format_version, GetInt(json, "format-version", kWhat));
  if (metadata->format_version < 1) return Invalid("format-version must be at least 1");
  if (metadata->format_version > kMaxFormatVersion) {
    return MakeError(ErrorKind::kNotSupported,
                     "table metadata: format-version " +
                         std::to_string(metadata->format_version) +
                         " is newer than the highest floe supports (" +
                         std::to_string(kMaxFormatVersion) + ")");
  }
  const bool v1 = metadata->format_version == 1;
  if (json.contains("table-uuid") || !v1) {
    ARROW_ASSIGN_OR_RAISE(metadata->table_uuid, GetString(json, "table-uuid", kWhat));
  }
  ARROW_ASSIGN_OR_RAISE(metadata->location, GetString(json, "location", kWhat));
  if (!v1) {
    ARROW_ASSIGN_OR_RAISE(metadata->last_sequence_number,
                          GetLong(json, "last-sequence-number", kWhat));
  }
  ARROW_ASSIGN_OR_RAISE(metadata->last_updated_ms,
                        GetLong(json, "last-updated-ms", kWhat));
  ARROW_ASSIGN_OR_RAISE(metadata->last_column_id, GetInt(json, "last-column-id", kWhat));

  ARROW_RETURN_NOT_OK(ReadSchemas(json, v1, metadata.get()));
  ARROW_RETURN_NOT_OK(ReadSpecs(json, v1, metadata.get()));
  ARROW_RETURN_NOT_OK(ReadSortOrders(json, v1, metadata.get()));

  if (auto properties = json.find("properties"); properties != json.end()) {
    if (!properties->is_object()) return Invalid("properties is not an object");
    for (const auto& [key, value] : properties->items()) {
      if (!value.is_string()) return Invalid("property '" + key + "' is not a string");
      metadata->properties[key] = value.get<std::string>();
    }
  }

  ARROW_ASSIGN_OR_RAISE(auto current,
                        GetOptionalLong(json, "current-snapshot-id", kWhat));
  if (current && *current != -1) metadata->current_snapshot_id = current;
  ARROW_ASSIGN_OR_RAISE(metadata->next_row_id,
                        GetOptionalLong(json, "next-row-id", kWhat));
  if (auto keys = json.find("encryption-keys"); keys != json.end() && !keys->is_null()) {
    metadata->encryption_keys_json = keys->dump();
  }

  ARROW_RETURN_NOT_OK(ReadSnapshotsAndRefs(json, metadata.get()));
  ARROW_ASSIGN_OR_RAISE(metadata->statistics_json, RawArray(json, "statistics"));
  ARROW_ASSIGN_OR_RAISE(metadata->partition_statistics_json,
                        RawArray(json, "partition-statistics"));

  ARROW_RETURN_NOT_OK(ReadLogs(json, metadata.get()));
  ARROW_RETURN_NOT_OK(Validate(*metadata));
  return TableMetadataPtr(std::move(metadata));
}

std::string TableMetadataToJson(const TableMetadata& metadata) {
  const bool v1 = metadata.format_version == 1;
  OrderedJson json;
  json["format-version"] = metadata.format_version;
  json["table-uuid"] = metadata.table_uuid;
  json["location"] = metadata.location;
  if (!v1) json["last-sequence-number"] = metadata.last_sequence_number;
  json["last-updated-ms"] = metadata.last_updated_ms;
  json["last-column-id"] = metadata.last_column_id;
  if (v1) {
    if (auto schema = metadata.CurrentSchema()) {
      json["schema"] = json_internal::SchemaToJsonValue(*schema);
    }
  }
  json["current-schema-id"] = metadata.current_schema_id;
  OrderedJson schemas = OrderedJson::array();
  for (const auto& schema : metadata.schemas) {
    schemas.push_back(json_internal::SchemaToJsonValue(*schema));
  }
  json["schemas"] = std::move(schemas);
  if (v1) {
    if (auto spec = metadata.DefaultSpec()) {
      json["partition-spec"] = json_internal::PartitionFieldsToJsonValue(*spec);
    }
  }
  json["default-spec-id"] = metadata.default_spec_id;
  OrderedJson specs = OrderedJson::array();
  for (const auto& spec : metadata.specs) {
    specs.push_back(json_internal::PartitionSpecToJsonValue(*spec));
  }
  json["partition-specs"] = std::move(specs);
  json["last-partition-id"] = metadata.last_partition_id;
  json["default-sort-order-id"] = metadata.default_sort_order_id;
  OrderedJson orders = OrderedJson::array();
  for (const auto& order : metadata.sort_orders) {
    orders.push_back(json_internal::SortOrderToJsonValue(*order));
  }
  json["sort-orders"] = std::move(orders);
  OrderedJson properties = OrderedJson::object();
  for (const auto& [key, value] : metadata.properties) properties[key] = value;
  json["properties"] = std::move(properties);
  if (metadata.current_snapshot_id) {
    json["current-snapshot-id"] = *metadata.current_snapshot_id;
  } else if (metadata.format_version >= 3) {
    json["current-snapshot-id"] = nullptr;
  } else {
    json["current-snapshot-id"] = -1;
  }
  if (metadata.format_version >= 3)
    json["next-row-id"] = metadata.next_row_id.value_or(0);
  if (!metadata.encryption_keys_json.empty() && metadata.encryption_keys_json != "[]") {
    json["encryption-keys"] = OrderedJson::parse(metadata.encryption_keys_json);
  }
  OrderedJson refs = OrderedJson::object();
  for (const auto& [name, ref] : metadata.refs) {
    refs[name] = json_internal::SnapshotRefToJsonValue(ref);
  }
  json["refs"] = std::move(refs);
  OrderedJson snapshots = OrderedJson::array();
  for (const auto& snapshot : metadata.snapshots) {
    snapshots.push_back(json_internal::SnapshotToJsonValue(*snapshot));
  }
  json["snapshots"] = std::move(snapshots);
  json["statistics"] = OrderedJson::parse(metadata.statistics_json);
  json["partition-statistics"] = OrderedJson::parse(metadata.partition_statistics_json);
  OrderedJson snapshot_log = OrderedJson::array();
  for (const auto& entry : metadata.snapshot_log) {
    OrderedJson item;
    item["timestamp-ms"] = entry.timestamp_ms;
    item["snapshot-id"] = entry.snapshot_id;
    snapshot_log.push_back(std::move(item));
  }
  json["snapshot-log"] = std::move(snapshot_log);
  OrderedJson metadata_log = OrderedJson::array();
  for (const auto& entry : metadata.metadata_log) {
    OrderedJson item;
    item["timestamp-ms"] = entry.timestamp_ms;
    item["metadata-file"] = entry.metadata_file;
    metadata_log.push_back(std::move(item));
  }
  json["metadata-log"] = std::move(metadata_log);
  // Inputs are checked to be UTF-8 where they enter; replacing (not throwing) is the
  // backstop.
  return json.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

arrow::Result<TableMetadataPtr> NewTableMetadata(
    const Schema& schema, const PartitionSpec& spec, const SortOrder& sort_order,
    std::string location, std::map<std::string, std::string> properties, Env* env) {
  // Everything here is written into the metadata JSON: it must be text.
  if (!IsValidUtf8(location)) {
    return MakeError(ErrorKind::kInvalidInput, "the table location is not valid UTF-8");
  }
  for (const auto& [key, value] : properties) {
    if (!IsValidUtf8(key) || !IsValidUtf8(value)) {
      return MakeError(ErrorKind::kInvalidInput,
                       "a table property key or value is not valid UTF-8");
    }
  }
  int format_version = kDefaultFormatVersion;
  if (auto found = properties.find("format-version"); found != properties.end()) {
    if (found->second != "1" && found->second != "2" && found->second != "3") {
      return MakeError(ErrorKind::kInvalidInput,
                       "property format-version must be 1, 2 or 3");
    }
    format_version = found->second[0] - '0';
  }
  auto metadata = std::make_shared<TableMetadata>();
  metadata->format_version = format_version;
  metadata->table_uuid = Uuid::Random(env).ToString();
  while (location.size() > 1 && location.back() == '/' &&
         location.substr(location.size() - 3) != "://") {
    location.pop_back();
  }
  metadata->location = std::move(location);
  metadata->last_updated_ms = env->NowMillis();

  // Fresh ids; partition and sort sources are remapped through the column names.
  int last_column_id = 0;
  auto fresh_fields = AssignFreshIds(schema.fields(), &last_column_id);
  ARROW_ASSIGN_OR_RAISE(auto fresh_schema, Schema::Make(0, fresh_fields, {}));
  std::vector<int> identifiers;
  for (int id : schema.identifier_field_ids()) {
    auto name = schema.FindColumnName(id);
    auto fresh = name ? fresh_schema->FindFieldId(*name) : std::nullopt;
    if (!fresh)
      return MakeError(ErrorKind::kInvalidInput, "identifier field id not in schema");
    identifiers.push_back(*fresh);
  }
  ARROW_ASSIGN_OR_RAISE(fresh_schema,
                        Schema::Make(0, std::move(fresh_fields), identifiers));
  auto remap = [&](int source_id) -> arrow::Result<int> {
    auto name = schema.FindColumnName(source_id);
    auto fresh = name ? fresh_schema->FindFieldId(*name) : std::nullopt;
    if (!fresh) {
      return MakeError(ErrorKind::kInvalidInput, "partition or sort source id " +
                                                     std::to_string(source_id) +
                                                     " is not a column of the schema");
    }
    return *fresh;
  };
  std::vector<PartitionField> spec_fields;
  int next_partition_id = kPartitionDataIdStart;
  for (const auto& field : spec.fields()) {
    PartitionField fresh = field;
    ARROW_ASSIGN_OR_RAISE(fresh.source_id, remap(field.source_id));
    fresh.field_id = next_partition_id++;
    spec_fields.push_back(std::move(fresh));
  }
  ARROW_ASSIGN_OR_RAISE(auto fresh_spec, PartitionSpec::Make(0, std::move(spec_fields)));
  ARROW_RETURN_NOT_OK(fresh_spec->PartitionType(*fresh_schema).status());
  auto fresh_order = std::make_shared<SortOrder>();
  fresh_order->order_id = sort_order.IsUnsorted() ? 0 : 1;
  for (const auto& field : sort_order.fields) {
    SortField fresh = field;
    ARROW_ASSIGN_OR_RAISE(fresh.source_id, remap(field.source_id));
    fresh_order->fields.push_back(std::move(fresh));
  }

  metadata->last_column_id = last_column_id;
  metadata->schemas = {fresh_schema};
  metadata->current_schema_id = 0;
  metadata->specs = {fresh_spec};
  metadata->default_spec_id = 0;
  metadata->last_partition_id = fresh_spec->LastAssignedFieldId();
  metadata->sort_orders = {fresh_order};
  metadata->default_sort_order_id = fresh_order->order_id;
  for (auto& [key, value] : properties) {
    if (!IsReservedTableProperty(key)) metadata->properties[key] = value;
  }
  // iceberg-java ≥ 1.4 persists zstd for every new table that does not choose a codec.
  metadata->properties.emplace(std::string(properties::kParquetCompressionCodec.key),
                               "zstd");
  if (format_version >= 3) metadata->next_row_id = 0;
  return TableMetadataPtr(std::move(metadata));
}

TableMetadataBuilder::TableMetadataBuilder(const TableMetadata& base,
                                           std::string base_location, Env* env)
    : metadata_(base),
      base_location_(std::move(base_location)),
      base_last_updated_ms_(base.last_updated_ms),
      env_(env) {}

TableMetadataBuilder& TableMetadataBuilder::AddSnapshot(const SnapshotPtr& snapshot,
                                                        std::string_view branch) {
  metadata_.snapshots.push_back(snapshot);
  metadata_.refs[std::string(branch)] = SnapshotRef{snapshot->snapshot_id, true};
  if (branch == kMainBranch) {
    metadata_.current_snapshot_id = snapshot->snapshot_id;
    metadata_.snapshot_log.push_back({snapshot->timestamp_ms, snapshot->snapshot_id});
  }
  if (metadata_.format_version > 1) {
    metadata_.last_sequence_number =
        std::max(metadata_.last_sequence_number, snapshot->sequence_number);
  }
  if (metadata_.format_version >= 3) {
    metadata_.next_row_id =
        metadata_.next_row_id.value_or(0) + snapshot->added_rows.value_or(0);
  }
  return *this;
}

TableMetadataBuilder& TableMetadataBuilder::SetProperties(
    const std::map<std::string, std::string>& updates) {
  for (const auto& [key, value] : updates) metadata_.properties[key] = value;
  return *this;
}

TableMetadataBuilder& TableMetadataBuilder::RemoveProperties(
    const std::vector<std::string>& keys) {
  for (const auto& key : keys) metadata_.properties.erase(key);
  return *this;
}

TableMetadataBuilder& TableMetadataBuilder::RemoveSnapshots(
    const std::vector<int64_t>& ids) {
  std::set<int64_t> removed(ids.begin(), ids.end());
  std::erase_if(metadata_.snapshots, [&](const SnapshotPtr& snapshot) {
    return removed.count(snapshot->snapshot_id);
  });
  std::erase_if(metadata_.refs, [&](const auto& entry) {
    return removed.count(entry.second.snapshot_id) > 0;
  });
  // iceberg-java keeps only the log entries after the last removed snapshot.
  size_t keep_from = 0;
  for (size_t i = 0; i < metadata_.snapshot_log.size(); ++i) {
    if (removed.count(metadata_.snapshot_log[i].snapshot_id)) keep_from = i + 1;
  }
  metadata_.snapshot_log.erase(metadata_.snapshot_log.begin(),
                               metadata_.snapshot_log.begin() + keep_from);
  if (metadata_.current_snapshot_id && removed.count(*metadata_.current_snapshot_id)) {
    metadata_.current_snapshot_id.reset();
  }
  // Statistics of removed snapshots go with them.
  for (std::string* raw :
       {&metadata_.statistics_json, &metadata_.partition_statistics_json}) {
    auto items = OrderedJson::parse(*raw, nullptr, /*allow_exceptions=*/false);
    if (!items.is_array()) continue;
    OrderedJson kept = OrderedJson::array();
    for (auto& item : items) {
      bool gone = item.is_object() && item.contains("snapshot-id") &&
                  JsonInt64(item["snapshot-id"]) &&
                  removed.count(*JsonInt64(item["snapshot-id"])) > 0;
      if (!gone) kept.push_back(std::move(item));
    }
    *raw = kept.dump();
  }
  return *this;
}

TableMetadataBuilder& TableMetadataBuilder::RemoveRef(const std::string& name) {
  metadata_.refs.erase(name);
  if (name == kMainBranch) metadata_.current_snapshot_id.reset();
  return *this;
}

TableMetadataPtr TableMetadataBuilder::Build(std::vector<MetadataLogEntry>* removed) {
  metadata_.last_updated_ms = std::max(env_->NowMillis(), base_last_updated_ms_);
  if (!base_location_.empty()) {
    metadata_.metadata_log.push_back({base_last_updated_ms_, base_location_});
    int64_t max_entries = std::max<int64_t>(
        1, properties::kMetadataPreviousVersionsMax.Get(metadata_.properties));
    while (static_cast<int64_t>(metadata_.metadata_log.size()) > max_entries) {
      if (removed) removed->push_back(metadata_.metadata_log.front());
      metadata_.metadata_log.erase(metadata_.metadata_log.begin());
    }
  }
  return std::make_shared<const TableMetadata>(metadata_);
}

}  // namespace floe::iceberg
