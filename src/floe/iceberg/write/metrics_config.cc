#include "floe/iceberg/write/metrics_config.h"

#include <cctype>
#include <charconv>

#include "floe/iceberg/spec/metadata_columns.h"
#include "floe/util/number_text.h"
#include "floe/util/text.h"

namespace floe::iceberg {

std::optional<MetricsMode> MetricsMode::Parse(std::string_view text) {
  const std::string lower = AsciiLower(text);
  if (lower == "none") return None();
  if (lower == "counts") return Counts();
  if (lower == "full") return Full();
  constexpr std::string_view kPrefix = "truncate(";
  if (lower.size() > kPrefix.size() + 1 &&
      lower.compare(0, kPrefix.size(), kPrefix) == 0 && lower.back() == ')') {
    std::string_view digits =
        std::string_view(lower).substr(kPrefix.size(), lower.size() - kPrefix.size() - 1);
    const std::optional<int64_t> length = ParseDigits(digits);
    if (length && *length > 0 && *length <= std::numeric_limits<int32_t>::max()) {
      return Truncate(static_cast<int>(*length));
    }
  }
  return std::nullopt;
}

std::string MetricsMode::ToString() const {
  switch (kind) {
    case Kind::kNone:
      return "none";
    case Kind::kCounts:
      return "counts";
    case Kind::kTruncate:
      return "truncate(" + std::to_string(length) + ")";
    case Kind::kFull:
      return "full";
  }
  return "none";
}

namespace {

bool MetricsEligible(const Type& type) {
  return type.is_primitive() || type.id() == TypeId::kVariant;
}

// The number of ids iceberg-java's TypeUtil.getProjectedIds returns: primitive (and
// variant) fields of structs, a list's element when the element is primitive, and a map's
// key and value when the value is primitive.
int CountProjectedIds(const Type& type) {
  switch (type.id()) {
    case TypeId::kStruct: {
      int count = 0;
      for (const auto& field : static_cast<const StructType&>(type).fields()) {
        count += field.type->is_nested() ? CountProjectedIds(*field.type) : 1;
      }
      return count;
    }
    case TypeId::kList: {
      const auto& element = static_cast<const ListType&>(type).element();
      return element.type->is_nested() ? CountProjectedIds(*element.type) : 1;
    }
    case TypeId::kMap: {
      const auto& map = static_cast<const MapType&>(type);
      int count = CountProjectedIds(*map.key().type) * map.key().type->is_nested();
      if (map.value().type->is_nested())
        return count + CountProjectedIds(*map.value().type);
      return count + 2;
    }
    default:
      return 0;
  }
}

// iceberg-java's MetricsConfig.limitFieldIds: a struct's eligible fields in order, then
// each field's children depth-first (a list's element, a map's key and value), until
// `limit` ids.
void LimitFieldIds(const Type& type, size_t limit, std::vector<int>* ids) {
  switch (type.id()) {
    case TypeId::kStruct: {
      const auto& fields = static_cast<const StructType&>(type).fields();
      for (const auto& field : fields) {
        if (ids->size() >= limit) return;
        if (MetricsEligible(*field.type)) ids->push_back(field.id);
      }
      for (const auto& field : fields) {
        if (ids->size() >= limit) return;
        LimitFieldIds(*field.type, limit, ids);
      }
      return;
    }
    case TypeId::kList: {
      const auto& element = static_cast<const ListType&>(type).element();
      if (ids->size() < limit && MetricsEligible(*element.type))
        ids->push_back(element.id);
      LimitFieldIds(*element.type, limit, ids);
      return;
    }
    case TypeId::kMap: {
      const auto& map = static_cast<const MapType&>(type);
      if (ids->size() < limit && MetricsEligible(*map.key().type))
        ids->push_back(map.key().id);
      if (ids->size() < limit && MetricsEligible(*map.value().type))
        ids->push_back(map.value().id);
      LimitFieldIds(*map.key().type, limit, ids);
      LimitFieldIds(*map.value().type, limit, ids);
      return;
    }
    default:
      return;
  }
}

}  // namespace

MetricsConfig MetricsConfig::Make(const Schema& schema, const PropertyMap& properties,
                                  const SortOrder& sort_order) {
  MetricsConfig config;
  const MetricsMode default_mode = MetricsMode::Truncate(16);
  auto default_text = properties.find(std::string(properties::kMetricsDefault.key));
  if (default_text != properties.end()) {
    config.default_mode_ =
        MetricsMode::Parse(default_text->second).value_or(default_mode);
  } else {
    int64_t limit = properties::kMetricsMaxInferredColumns.Get(properties);
    if (limit < 0) limit = properties::kMetricsMaxInferredColumns.default_value;
    // A rewrite's lineage columns (spec/metadata_columns.h) are not the table's:
    // iceberg-java counts the table's own columns (MetricsConfig.forTable) and gives
    // those two the default mode.
    std::vector<NestedField> own;
    for (const auto& field : schema.fields()) {
      if (!FindMetadataColumn(field.id)) own.push_back(field);
    }
    const StructType table_columns(std::move(own));
    if (CountProjectedIds(table_columns) <= limit) {
      config.default_mode_ = default_mode;
    } else {
      config.default_mode_ = MetricsMode::None();
      std::vector<int> ids;
      LimitFieldIds(table_columns, static_cast<size_t>(limit), &ids);
      for (int id : ids) config.column_modes_[id] = default_mode;
    }
  }
  if (config.default_mode_.kind == MetricsMode::Kind::kNone ||
      config.default_mode_.kind == MetricsMode::Kind::kCounts) {
    // SortOrderUtil.orderPreservingSortedColumns: sort fields whose transform keeps
    // order.
    for (const auto& field : sort_order.fields) {
      if (field.transform.PreservesOrder())
        config.column_modes_[field.source_id] = default_mode;
    }
  }
  const std::string prefix(properties::kMetricsColumnPrefix);
  for (auto it = properties.lower_bound(prefix); it != properties.end(); ++it) {
    if (it->first.compare(0, prefix.size(), prefix) != 0) break;
    auto id = schema.FindFieldId(std::string_view(it->first).substr(prefix.size()));
    if (!id) continue;  // iceberg-java ignores columns that are not in the schema
    // An invalid mode falls back to the table's default mode (MetricsConfig.parseMode).
    config.column_modes_[*id] =
        MetricsMode::Parse(it->second).value_or(config.default_mode_);
  }
  return config;
}

MetricsMode MetricsConfig::ModeOf(int field_id) const {
  auto found = column_modes_.find(field_id);
  return found == column_modes_.end() ? default_mode_ : found->second;
}

}  // namespace floe::iceberg
