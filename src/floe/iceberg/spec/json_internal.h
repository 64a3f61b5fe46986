// nlohmann-json (de)serialisation of the spec's parts, shared by the spec's .cc files.
// Private: nlohmann types never reach floe's public headers.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "arrow/result.h"
#include "floe/iceberg/spec/partition_spec.h"
#include "floe/iceberg/spec/snapshot.h"
#include "floe/iceberg/spec/sort_order.h"
#include "floe/types/schema.h"
#include "floe/types/type.h"
#include "floe/util/error.h"

namespace floe::iceberg::json_internal {

/// Insertion-ordered, so files list fields in iceberg-java's order and what floe reads
/// (e.g. snapshot summaries) keeps the order it was written in.
using Json = nlohmann::ordered_json;
using OrderedJson = nlohmann::ordered_json;

/// Parses text; malformed JSON gives InvalidMetadata naming `what`.
arrow::Result<Json> Parse(std::string_view text, std::string_view what);

/// Typed member access with errors that name the member and the object it belongs to.
arrow::Result<const Json*> Member(const Json& object, std::string_view key,
                                  std::string_view what);
arrow::Result<int64_t> GetLong(const Json& object, std::string_view key,
                               std::string_view what);
arrow::Result<int> GetInt(const Json& object, std::string_view key,
                          std::string_view what);
arrow::Result<std::string> GetString(const Json& object, std::string_view key,
                                     std::string_view what);
arrow::Result<bool> GetBool(const Json& object, std::string_view key,
                            std::string_view what);
/// The member as a long, nullopt when absent or null.
arrow::Result<std::optional<int64_t>> GetOptionalLong(const Json& object,
                                                      std::string_view key,
                                                      std::string_view what);

OrderedJson TypeToJson(const Type& type);
arrow::Result<TypePtr> TypeFromJson(const Json& json);
OrderedJson SchemaToJsonValue(const Schema& schema);
arrow::Result<SchemaPtr> SchemaFromJsonValue(const Json& json);
OrderedJson PartitionFieldsToJsonValue(const PartitionSpec& spec);
OrderedJson PartitionSpecToJsonValue(const PartitionSpec& spec);
/// `fields` is the array of partition fields; `spec_id` the id to give the spec.
arrow::Result<PartitionSpecPtr> PartitionFieldsFromJsonValue(const Json& fields,
                                                             int spec_id);
arrow::Result<PartitionSpecPtr> PartitionSpecFromJsonValue(const Json& json);
OrderedJson SortOrderToJsonValue(const SortOrder& order);
arrow::Result<SortOrderPtr> SortOrderFromJsonValue(const Json& json);
OrderedJson SnapshotToJsonValue(const Snapshot& snapshot);
arrow::Result<SnapshotPtr> SnapshotFromJsonValue(const Json& json);
OrderedJson SnapshotRefToJsonValue(const SnapshotRef& ref);
arrow::Result<SnapshotRef> SnapshotRefFromJsonValue(const Json& json);

}  // namespace floe::iceberg::json_internal
