#include "floe/iceberg/spec/snapshot.h"

#include <charconv>

#include "floe/iceberg/spec/json_internal.h"
#include "floe/iceberg/spec/table_metadata.h"
#include "floe/util/number_text.h"

namespace floe::iceberg {

std::optional<std::string> SnapshotSummary::Get(std::string_view key) const {
  if (key == "operation") return operation;
  for (const auto& [name, value] : properties) {
    if (name == key) return value;
  }
  return std::nullopt;
}

std::optional<int64_t> SnapshotSummary::GetLong(std::string_view key) const {
  auto text = Get(key);
  if (!text) return std::nullopt;
  return ParseJavaLong(*text);
}

namespace json_internal {

OrderedJson SnapshotToJsonValue(const Snapshot& snapshot) {
  OrderedJson json;
  if (snapshot.sequence_number > 0) json["sequence-number"] = snapshot.sequence_number;
  json["snapshot-id"] = snapshot.snapshot_id;
  if (snapshot.parent_snapshot_id)
    json["parent-snapshot-id"] = *snapshot.parent_snapshot_id;
  json["timestamp-ms"] = snapshot.timestamp_ms;
  OrderedJson summary;
  summary["operation"] = snapshot.summary.operation;
  for (const auto& [key, value] : snapshot.summary.properties) summary[key] = value;
  json["summary"] = std::move(summary);
  if (!snapshot.manifest_list.empty() || snapshot.manifests.empty()) {
    json["manifest-list"] = snapshot.manifest_list;
  } else {
    json["manifests"] = snapshot.manifests;
  }
  if (snapshot.schema_id) json["schema-id"] = *snapshot.schema_id;
  if (snapshot.first_row_id) json["first-row-id"] = *snapshot.first_row_id;
  if (snapshot.added_rows) json["added-rows"] = *snapshot.added_rows;
  if (snapshot.key_id) json["key-id"] = *snapshot.key_id;
  return json;
}

arrow::Result<SnapshotPtr> SnapshotFromJsonValue(const Json& json) {
  auto snapshot = std::make_shared<Snapshot>();
  ARROW_ASSIGN_OR_RAISE(snapshot->snapshot_id, GetLong(json, "snapshot-id", "snapshot"));
  std::string what = "snapshot " + std::to_string(snapshot->snapshot_id);
  ARROW_ASSIGN_OR_RAISE(snapshot->parent_snapshot_id,
                        GetOptionalLong(json, "parent-snapshot-id", what));
  ARROW_ASSIGN_OR_RAISE(auto sequence, GetOptionalLong(json, "sequence-number", what));
  snapshot->sequence_number = sequence.value_or(0);
  ARROW_ASSIGN_OR_RAISE(snapshot->timestamp_ms, GetLong(json, "timestamp-ms", what));
  if (auto list = json.find("manifest-list"); list != json.end()) {
    if (!list->is_string())
      return MakeError(ErrorKind::kInvalidMetadata, what + ": manifest-list");
    snapshot->manifest_list = list->get<std::string>();
  } else if (auto manifests = json.find("manifests"); manifests != json.end()) {
    if (!manifests->is_array()) {
      return MakeError(ErrorKind::kInvalidMetadata, what + ": manifests is not an array");
    }
    for (const auto& path : *manifests) {
      if (!path.is_string())
        return MakeError(ErrorKind::kInvalidMetadata, what + ": manifests");
      snapshot->manifests.push_back(path.get<std::string>());
    }
  } else {
    return MakeError(ErrorKind::kInvalidMetadata,
                     what + ": no manifest-list or manifests");
  }
  if (auto summary = json.find("summary"); summary != json.end()) {
    if (!summary->is_object()) {
      return MakeError(ErrorKind::kInvalidMetadata, what + ": summary is not an object");
    }
    for (const auto& [key, value] : summary->items()) {
      if (!value.is_string()) {
        return MakeError(ErrorKind::kInvalidMetadata,
                         what + ": summary value of '" + key + "' is not a string");
      }
      if (key == "operation") {
        snapshot->summary.operation = value.get<std::string>();
      } else {
        snapshot->summary.properties.emplace_back(key, value.get<std::string>());
      }
    }
  }
  if (snapshot->summary.operation.empty()) {
    // The spec requires an operation; v1 metadata from old writers may lack it.
    snapshot->summary.operation = operations::kOverwrite;
  }
  ARROW_ASSIGN_OR_RAISE(auto schema_id, GetOptionalLong(json, "schema-id", what));
  if (schema_id) snapshot->schema_id = static_cast<int>(*schema_id);
  ARROW_ASSIGN_OR_RAISE(snapshot->first_row_id,
                        GetOptionalLong(json, "first-row-id", what));
  ARROW_ASSIGN_OR_RAISE(snapshot->added_rows, GetOptionalLong(json, "added-rows", what));
  ARROW_ASSIGN_OR_RAISE(snapshot->key_id, GetOptionalLong(json, "key-id", what));
  return SnapshotPtr(std::move(snapshot));
}

OrderedJson SnapshotRefToJsonValue(const SnapshotRef& ref) {
  OrderedJson json;
  json["snapshot-id"] = ref.snapshot_id;
  json["type"] = ref.is_branch ? "branch" : "tag";
  if (ref.min_snapshots_to_keep)
    json["min-snapshots-to-keep"] = *ref.min_snapshots_to_keep;
  if (ref.max_snapshot_age_ms) json["max-snapshot-age-ms"] = *ref.max_snapshot_age_ms;
  if (ref.max_ref_age_ms) json["max-ref-age-ms"] = *ref.max_ref_age_ms;
  return json;
}

arrow::Result<SnapshotRef> SnapshotRefFromJsonValue(const Json& json) {
  SnapshotRef ref;
  ARROW_ASSIGN_OR_RAISE(ref.snapshot_id, GetLong(json, "snapshot-id", "snapshot ref"));
  ARROW_ASSIGN_OR_RAISE(std::string type, GetString(json, "type", "snapshot ref"));
  if (type != "branch" && type != "tag") {
    return MakeError(ErrorKind::kInvalidMetadata, "snapshot ref type '" + type + "'");
  }
  ref.is_branch = type == "branch";
  ARROW_ASSIGN_OR_RAISE(auto min_keep,
                        GetOptionalLong(json, "min-snapshots-to-keep", "ref"));
  if (min_keep) ref.min_snapshots_to_keep = static_cast<int>(*min_keep);
  ARROW_ASSIGN_OR_RAISE(ref.max_snapshot_age_ms,
                        GetOptionalLong(json, "max-snapshot-age-ms", "snapshot ref"));
  ARROW_ASSIGN_OR_RAISE(ref.max_ref_age_ms,
                        GetOptionalLong(json, "max-ref-age-ms", "snapshot ref"));
  return ref;
}

}  // namespace json_internal

std::string SnapshotToJson(const Snapshot& snapshot) {
  return json_internal::SnapshotToJsonValue(snapshot).dump();
}

}  // namespace floe::iceberg
