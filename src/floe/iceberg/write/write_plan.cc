#include "floe/iceberg/write/write_plan.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "floe/iceberg/spec/metadata_columns.h"
#include "floe/util/error.h"
#include "floe/util/json_number_internal.h"
#include "floe/util/murmur3_internal.h"
#include "floe/util/text.h"
#include "floe/util/uuid.h"

namespace floe::iceberg {

std::string_view DistributionName(Distribution distribution) {
  switch (distribution) {
    case Distribution::kNone:
      return "none";
    case Distribution::kByPartition:
      return "partition";
    case Distribution::kBySortKey:
      return "sort-key";
  }
  return "none";
}

namespace {

// write.distribution-mode in lower case (empty when unset); InvalidInput naming the
// property, never its value, unless none, hash or range.
arrow::Result<std::string> DistributionMode(const PropertyMap& properties) {
  std::string distribution =
      AsciiLower(properties::kWriteDistributionMode.Get(properties));
  if (!distribution.empty() && distribution != "none" && distribution != "hash" &&
      distribution != "range") {
    return MakeError(ErrorKind::kInvalidInput,
                     "property write.distribution-mode must be none, hash or range");
  }
  return distribution;
}

}  // namespace

arrow::Result<std::shared_ptr<const WritePlan>> WritePlan::Make(
    const TableMetadata& metadata, const PropertyMap& options,
    const WritePlanOptions& plan_options) {
  auto plan = std::make_shared<WritePlan>();
  plan->format_version = metadata.format_version;
  plan->table_location = metadata.location;
  plan->schema = metadata.CurrentSchema();
  if (plan_options.row_lineage) {
    if (metadata.format_version < 3) {
      return MakeError(ErrorKind::kInvalidInput,
                       "row lineage is kept by format-version 3 tables only");
    }
    // The two columns iceberg-java's writers add to a rewrite's files, after the table's.
    ARROW_ASSIGN_OR_RAISE(plan->schema, WithRowLineage(*plan->schema));
  }
  plan->spec = metadata.DefaultSpec();
  plan->sort_order = metadata.DefaultSortOrder();
  plan->properties = metadata.properties;
  for (const auto& [key, value] : options) plan->properties[key] = value;
  ARROW_ASSIGN_OR_RAISE(plan->parquet, ParquetSettingsFromProperties(plan->properties));
  ARROW_ASSIGN_OR_RAISE(plan->target_file_size_bytes,
                        properties::kTargetFileSizeBytes.Parse(plan->properties));
  if (plan->target_file_size_bytes <= 0) {
    return MakeError(ErrorKind::kInvalidInput,
                     "property write.target-file-size-bytes must be positive");
  }
  if (plan->spec->IsUnpartitioned()) {
    plan->mode = WriterMode::kUnpartitioned;
  } else {
    // A sorted table's rows reach the writer grouped by partition, sorted by the task.
    // Spark uses the fanout writer for them when write.spark.fanout.enabled is true,
    // which writes the same files holding more open, so floe keeps the clustered one.
    const bool grouped =
        plan->sorts_rows() || (plan_options.input_clustered &&
                               !properties::kSparkFanoutEnabled.Get(plan->properties));
    plan->mode = grouped ? WriterMode::kClustered : WriterMode::kFanout;
  }
  ARROW_ASSIGN_OR_RAISE(
      plan->distribution,
      DistributionFor(*plan->spec,
                      plan->sort_order ? *plan->sort_order : *SortOrder::Unsorted(),
                      plan->properties));
  // A fanout task's open files share one row group's worth of buffered rows (per task:
  // dividing it among tasks that share the partitions out would cut a large partition's
  // row groups short of one task's), or their share of half the memory limit.
  const int tasks = std::max(1, plan_options.tasks);
  plan->task_buffer_budget_bytes = plan->parquet.row_group_size_bytes;
  if (plan_options.memory_limit > 0) {
    plan->task_buffer_budget_bytes = plan_options.memory_limit / 2 / tasks;
    // Sorting a run needs about twice the run (the rows and their sorted copy), while
    // no file is open; merging needs a batch of every run next to the open files.
    plan->task_sort_run_bytes = plan_options.memory_limit / 4 / tasks;
  }
  plan->operation_id = Uuid::Random(plan_options.env).ToString();
  if (auto current = metadata.CurrentSnapshot())
    plan->base_snapshot_id = current->snapshot_id;
  plan->row_filter = plan_options.row_filter;
  return std::shared_ptr<const WritePlan>(std::move(plan));
}

arrow::Result<Distribution> WritePlan::DistributionFor(const PartitionSpec& spec,
                                                       const SortOrder& sort_order,
                                                       const PropertyMap& properties) {
  ARROW_ASSIGN_OR_RAISE(auto mode, DistributionMode(properties));
  // Spark's default when unset (SparkWriteConf): range when sorted, hash when
  // partitioned. On a partitioned table either keeps each partition's rows in one task.
  if (!spec.IsUnpartitioned()) {
    return mode == "none" ? Distribution::kNone : Distribution::kByPartition;
  }
  // An unpartitioned table has no partition to share; Spark ranges a sorted one's rows by
  // sort key under range, or when the mode is unset (not under hash or none).
  if (!sort_order.IsUnsorted() && (mode.empty() || mode == "range")) {
    return Distribution::kBySortKey;
  }
  return Distribution::kNone;
}

std::shared_ptr<const WritePlan> WritePlan::Derive(std::string_view part) const {
  // Four 32-bit hashes of (operation id, part), shaped as a UUID (version 8: custom). The
  // parent id is random, so derived ids are as unlikely to meet another write's.
  std::array<uint8_t, 16> bytes{};
  for (int i = 0; i < 4; ++i) {
    const std::string key =
        operation_id + "/" + std::string(part) + "#" + std::to_string(i);
    const auto hash = static_cast<uint32_t>(
        Murmur3Hash32(reinterpret_cast<const uint8_t*>(key.data()), key.size()));
    for (int b = 0; b < 4; ++b) bytes[4 * i + b] = static_cast<uint8_t>(hash >> (8 * b));
  }
  bytes[6] = static_cast<uint8_t>((bytes[6] & 0x0f) | 0x80);
  bytes[8] = static_cast<uint8_t>((bytes[8] & 0x3f) | 0x80);
  auto derived = std::make_shared<WritePlan>(*this);
  derived->operation_id = Uuid(bytes).ToString();
  return derived;
}

std::string WritePlan::Serialize() const {
  nlohmann::ordered_json json;
  json["format-version"] = format_version;
  json["table-location"] = table_location;
  json["schema"] = nlohmann::ordered_json::parse(SchemaToJson(*schema));
  json["spec"] = nlohmann::ordered_json::parse(PartitionSpecToJson(*spec));
  json["sort-order"] = nlohmann::ordered_json::parse(SortOrderToJson(*sort_order));
  json["properties"] = properties;
  json["parquet"] = nlohmann::ordered_json::parse(parquet.ToJson());
  json["mode"] = std::string(WriterModeName(mode));
  json["target-file-size-bytes"] = target_file_size_bytes;
  json["operation-id"] = operation_id;
  if (base_snapshot_id) json["base-snapshot-id"] = *base_snapshot_id;
  if (!row_filter.empty()) json["row-filter"] = row_filter;
  json["task-buffer-budget-bytes"] = task_buffer_budget_bytes;
  json["distribution"] = std::string(DistributionName(distribution));
  json["task-sort-run-bytes"] = task_sort_run_bytes;
  return json.dump();
}

arrow::Result<std::shared_ptr<const WritePlan>> WritePlan::Deserialize(
    std::string_view text) {
  auto json = nlohmann::json::parse(text.begin(), text.end(), nullptr, false);
  auto bad = [](const std::string& why) {
    return MakeError(ErrorKind::kInvalidInput, "write plan: " + why);
  };
  if (json.is_discarded() || !json.is_object()) return bad("not a JSON object");
  auto plan = std::make_shared<WritePlan>();
  // A plan's numbers are integers that fit: nlohmann's get<> would wrap one that does
  // not.
  std::string misfit;
  auto number = [&](const char* key, int64_t fallback) -> int64_t {
    if (!json.contains(key) || json[key].is_null()) return fallback;
    std::optional<int64_t> value = JsonInt64(json[key]);
    if (!value && misfit.empty()) misfit = key;
    return value.value_or(fallback);
  };
  try {
    if (!json.contains("format-version")) return bad("no format-version");
    plan->format_version =
        static_cast<int>(std::clamp<int64_t>(number("format-version", 0), 0, 99));
    plan->table_location = json.at("table-location").get<std::string>();
    ARROW_ASSIGN_OR_RAISE(plan->schema, SchemaFromJson(json.at("schema").dump()));
    ARROW_ASSIGN_OR_RAISE(plan->spec, PartitionSpecFromJson(json.at("spec").dump()));
    plan->properties = json.at("properties").get<PropertyMap>();
    ARROW_ASSIGN_OR_RAISE(plan->parquet,
                          ParquetSettings::FromJson(json.at("parquet").dump()));
    std::string mode = json.at("mode").get<std::string>();
    if (mode == "unpartitioned") {
      plan->mode = WriterMode::kUnpartitioned;
    } else if (mode == "clustered") {
      plan->mode = WriterMode::kClustered;
    } else if (mode == "fanout") {
      plan->mode = WriterMode::kFanout;
    } else {
      return bad("unknown writer mode '" + mode + "'");
    }
    if (!json.contains("target-file-size-bytes")) return bad("no target-file-size-bytes");
    plan->target_file_size_bytes = number("target-file-size-bytes", 0);
    plan->operation_id = json.at("operation-id").get<std::string>();
    if (json.contains("base-snapshot-id") && !json["base-snapshot-id"].is_null())
      plan->base_snapshot_id = number("base-snapshot-id", 0);
    plan->row_filter = json.value("row-filter", std::string());
    plan->task_buffer_budget_bytes =
        number("task-buffer-budget-bytes", plan->parquet.row_group_size_bytes);
    std::string distribution = json.value("distribution", std::string("none"));
    if (distribution == "none") {
      plan->distribution = Distribution::kNone;
    } else if (distribution == "partition") {
      plan->distribution = Distribution::kByPartition;
    } else if (distribution == "sort-key") {
      plan->distribution = Distribution::kBySortKey;
    } else {
      return bad("unknown distribution '" + distribution + "'");
    }
    plan->task_sort_run_bytes = number("task-sort-run-bytes", 0);
    ARROW_ASSIGN_OR_RAISE(plan->sort_order,
                          SortOrderFromJson(json.at("sort-order").dump()));
  } catch (const nlohmann::json::exception& error) {
    return bad(error.what());
  }
  if (!misfit.empty()) return bad(misfit + " is not an integer of a long's range");
  return std::shared_ptr<const WritePlan>(std::move(plan));
}

}  // namespace floe::iceberg
