#include "floe/delta/filter.h"

#include <algorithm>
#include <map>
#include <optional>
#include <utility>

#include "arrow/array/util.h"
#include "arrow/compute/api.h"
#include "arrow/util/key_value_metadata.h"
#include "floe/delta/schema.h"
#include "floe/expr/binder.h"
#include "floe/expr/evaluators.h"
#include "floe/expr/parser.h"
#include "floe/expr/row_filter.h"
#include "floe/types/arrow_schema.h"
#include "floe/types/arrow_value.h"
#include "floe/util/error.h"
#include "floe/util/field_id.h"
#include "floe/util/json_number_internal.h"
#include "nlohmann/json.hpp"

namespace floe::delta {
namespace {

using Json = nlohmann::json;

// `field` carrying the ids of `nested` (its own, and its struct children's at any depth:
// the binder refuses columns inside lists and maps, so their children need none).
std::shared_ptr<arrow::Field> WithIds(const std::shared_ptr<arrow::Field>& field,
                                      const NestedField& nested) {
  auto metadata = field->metadata() ? field->metadata()->Copy()
                                    : std::make_shared<arrow::KeyValueMetadata>();
  metadata->Append(kParquetFieldIdKey, std::to_string(nested.id));
  std::shared_ptr<arrow::DataType> type = field->type();
  if (type->id() == arrow::Type::STRUCT && nested.type->id() == TypeId::kStruct) {
    const auto& children = static_cast<const StructType&>(*nested.type).fields();
    arrow::FieldVector fields;
    for (int i = 0; i < type->num_fields(); ++i) {
      fields.push_back(static_cast<size_t>(i) < children.size()
                           ? WithIds(type->field(i), children[i])
                           : type->field(i));
    }
    type = arrow::struct_(fields);
  }
  return field->WithType(type)->WithMetadata(std::move(metadata));
}

// The primitive leaves below `field` (a leaf the statistics may describe), by field id:
// their paths of physical names and their types.
void CollectLeaves(const std::shared_ptr<arrow::Field>& field, const NestedField& nested,
                   std::vector<std::string> path,
                   std::map<int, std::pair<std::vector<std::string>, TypePtr>>* leaves) {
  path.push_back(PhysicalName(*field));
  if (field->type()->id() == arrow::Type::STRUCT &&
      nested.type->id() == TypeId::kStruct) {
    const auto& children = static_cast<const StructType&>(*nested.type).fields();
    for (int i = 0; i < field->type()->num_fields(); ++i) {
      if (static_cast<size_t>(i) >= children.size()) break;
      CollectLeaves(field->type()->field(i), children[i], path, leaves);
    }
    return;
  }
  if (nested.type->is_primitive()) (*leaves)[nested.id] = {path, nested.type};
}

const Json* Find(const Json& stats, std::string_view key,
                 const std::vector<std::string>& path) {
  auto it = stats.find(key);
  if (it == stats.end()) return nullptr;
  const Json* node = &*it;
  for (const auto& part : path) {
    if (!node->is_object()) return nullptr;
    auto child = node->find(part);
    if (child == node->end()) return nullptr;
    node = &*child;
  }
  return node;
}

// A bound from add.stats, for the types whose statistics floe trusts as Spark and
// delta-rs write them. Floats are left out (Spark's ordering puts NaN above every
// number), and so are decimals, booleans and binaries.
std::optional<Value> StatsBound(const Json& json, const Type& type, bool upper) {
  switch (type.id()) {
    // A bound out of the column's range is no bound (never truncated into another).
    case TypeId::kInt:
      if (auto number = JsonInt32(json)) return Value(*number);
      return std::nullopt;
    case TypeId::kLong:
      if (auto number = JsonInt64(json)) return Value(*number);
      return std::nullopt;
    case TypeId::kString: {
      if (!json.is_string()) return std::nullopt;
      auto text = json.get<std::string>();
      // A maximum cut at 32 characters (with a tie-breaker appended) is not a bound
      // floe can compare bytes with; a cut minimum is a prefix, still a lower bound.
      size_t characters = 0;
      for (unsigned char c : text) characters += (c & 0xC0) != 0x80 ? 1 : 0;
      if (upper && characters >= 32) return std::nullopt;
      return Value(std::move(text));
    }
    case TypeId::kDate: {
      if (!json.is_string()) return std::nullopt;
      auto micros = ParseIsoTimestamp(json.get<std::string>(), 1'000'000, false);
      if (!micros.ok()) return std::nullopt;
      int64_t days = *micros / 86'400'000'000LL;
      if (*micros % 86'400'000'000LL != 0) return std::nullopt;
      return Value(static_cast<int32_t>(days));
    }
    case TypeId::kTimestamp:
    case TypeId::kTimestampTz: {
      if (!json.is_string()) return std::nullopt;
      auto micros = ParseIsoTimestamp(json.get<std::string>(), 1'000'000,
                                      type.id() == TypeId::kTimestampTz);
      if (!micros.ok()) return std::nullopt;
      // Statistics keep milliseconds: the true maximum may lie up to 999 µs above.
      return Value(upper ? *micros + 999 : *micros);
    }
    default:
      return std::nullopt;
  }
}

arrow::Result<Value> PartitionValue(const std::optional<std::string>& text,
                                    const std::shared_ptr<arrow::Field>& field,
                                    const Type& type) {
  ARROW_ASSIGN_OR_RAISE(auto scalar,
                        ParsePartitionValue(text, field->type(), field->name()));
  ARROW_ASSIGN_OR_RAISE(auto array, arrow::MakeArrayFromScalar(*scalar, 1));
  return ValueFromArrow(*array, 0, type);
}

}  // namespace

arrow::Result<DeltaFilter> DeltaFilter::Make(std::shared_ptr<arrow::Schema> table_schema,
                                             std::vector<std::string> partition_columns,
                                             std::string_view text,
                                             const std::string& table_root) {
  DeltaFilter filter;
  filter.text_ = std::string(text);
  filter.table_ = "Delta table " + table_root;
  auto schema = FromArrowSchemaAssigningIds(*table_schema);
  if (!schema.ok()) {
    return WithContext(schema.status(), "filtering " + filter.table_);
  }
  filter.schema_ = *schema;
  for (int i = 0; i < table_schema->num_fields(); ++i) {
    filter.id_fields_.push_back(WithIds(
        table_schema->field(i), filter.schema_->fields()[static_cast<size_t>(i)]));
  }
  filter.table_schema_ = std::move(table_schema);
  filter.partition_columns_ = std::move(partition_columns);
  auto parsed = ParseFilter(text);
  if (!parsed.ok()) return WithContext(parsed.status(), "the filter on " + filter.table_);
  auto bound = Bind(*parsed, *filter.schema_);
  if (!bound.ok()) return WithContext(bound.status(), "the filter on " + filter.table_);
  filter.bound_ = *bound;
  std::set<int> ids = ReferencedFieldIds(*filter.bound_);
  filter.only_partition_columns_ = true;
  const auto& fields = filter.schema_->fields();
  for (const auto& field : fields) {
    bool read = false;
    for (int id : ids) {
      auto name = filter.schema_->FindColumnName(id);
      if (name && (*name == field.name || name->rfind(field.name + ".", 0) == 0))
        read = true;
    }
    if (!read) continue;
    filter.columns_.push_back(field.name);
    if (std::find(filter.partition_columns_.begin(), filter.partition_columns_.end(),
                  field.name) == filter.partition_columns_.end())
      filter.only_partition_columns_ = false;
  }
  std::map<int, std::pair<std::vector<std::string>, TypePtr>> leaves;
  for (size_t i = 0; i < fields.size(); ++i) {
    const auto& field = filter.table_schema_->field(static_cast<int>(i));
    if (std::find(filter.partition_columns_.begin(), filter.partition_columns_.end(),
                  field->name()) != filter.partition_columns_.end()) {
      filter.partition_fields_.push_back({i, fields[i].id, PhysicalName(*field)});
    }
    CollectLeaves(field, fields[i], {}, &leaves);
  }
  for (int id : ids) {
    auto leaf = leaves.find(id);
    if (leaf != leaves.end())
      filter.stats_leaves_.push_back({id, leaf->second.first, leaf->second.second});
  }
  return filter;
}

bool DeltaFilter::MightMatch(const AddFile& file) const {
  return Matches(&file, file.partition_values);
}

bool DeltaFilter::MightMatchPartition(
    const std::map<std::string, std::optional<std::string>>& partition_values) const {
  return Matches(nullptr, partition_values);
}

bool DeltaFilter::Matches(
    const AddFile* file,
    const std::map<std::string, std::optional<std::string>>& partition_values) const {
  std::map<int, ColumnSummary> summaries;
  const auto& fields = schema_->fields();
  for (const auto& column : partition_fields_) {
    auto text = partition_values.find(column.physical_name);
    if (text == partition_values.end()) continue;
    const auto& type = *fields[column.index].type;
    auto value = PartitionValue(
        text->second, table_schema_->field(static_cast<int>(column.index)), type);
    if (value.ok()) summaries[column.id] = SummaryFromValue(*value, type);
  }
  if (file != nullptr && file->stats && !stats_leaves_.empty()) {
    Json stats = Json::parse(*file->stats, nullptr, /*allow_exceptions=*/false);
    if (stats.is_object()) {
      std::optional<int64_t> records;
      if (auto it = stats.find("numRecords"); it != stats.end()) records = JsonInt64(*it);
      for (const auto& leaf : stats_leaves_) {
        if (summaries.count(leaf.id)) continue;
        ColumnSummary summary;
        if (const Json* min = Find(stats, "minValues", leaf.path))
          summary.lower = StatsBound(*min, *leaf.type, false);
        if (const Json* max = Find(stats, "maxValues", leaf.path))
          summary.upper = StatsBound(*max, *leaf.type, true);
        if (const Json* nulls = Find(stats, "nullCount", leaf.path);
            nulls && JsonInt64(*nulls)) {
          summary.has_null = *JsonInt64(*nulls) > 0;
          if (records) summary.all_null = *JsonInt64(*nulls) == *records;
        }
        const auto type = leaf.type->id();
        if (type != TypeId::kFloat && type != TypeId::kDouble) {
          summary.has_nan = false;
          summary.all_nan = false;
        }
        summaries[leaf.id] = std::move(summary);
      }
    }
  }
  return floe::MightMatch(*bound_, [&summaries](int field_id) -> const ColumnSummary* {
    auto found = summaries.find(field_id);
    return found == summaries.end() ? nullptr : &found->second;
  });
}

arrow::Result<std::shared_ptr<arrow::Array>> DeltaFilter::Evaluate(
    const arrow::RecordBatch& batch) const {
  arrow::FieldVector fields;
  for (const auto& field : batch.schema()->fields()) {
    int index = table_schema_->GetFieldIndex(field->name());
    if (index < 0) {
      return MakeError(ErrorKind::kInvalidInput,
                       table_ + " has no column " + field->name() + " to filter");
    }
    fields.push_back(id_fields_[static_cast<size_t>(index)]);
  }
  auto labelled = arrow::RecordBatch::Make(arrow::schema(std::move(fields)),
                                           batch.num_rows(), batch.columns());
  auto mask = EvaluateFilter(*bound_, labelled);
  if (!mask.ok()) return WithContext(mask.status(), "evaluating the filter on " + table_);
  return mask;
}

arrow::Result<std::shared_ptr<arrow::RecordBatch>> DeltaFilter::Select(
    const std::shared_ptr<arrow::RecordBatch>& batch) const {
  ARROW_ASSIGN_OR_RAISE(auto mask, Evaluate(*batch));
  ARROW_ASSIGN_OR_RAISE(arrow::Datum selected,
                        arrow::compute::Filter(batch, mask));  // null drops the row
  return selected.record_batch();
}

}  // namespace floe::delta
