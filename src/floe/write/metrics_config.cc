#include "floe/write/metrics_config.h"

#include <cctype>
#include <charconv>
#include <deque>

namespace floe {

std::optional<MetricsMode> MetricsMode::Parse(std::string_view text) {
  std::string lower(text);
  for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower == "none") return None();
  if (lower == "counts") return Counts();
  if (lower == "full") return Full();
  constexpr std::string_view kPrefix = "truncate(";
  if (lower.size() > kPrefix.size() + 1 && lower.compare(0, kPrefix.size(), kPrefix) == 0 &&
      lower.back() == ')') {
    std::string_view digits = std::string_view(lower).substr(kPrefix.size(), lower.size() - kPrefix.size() - 1);
    int length = 0;
    auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), length);
    if (error == std::errc() && end == digits.data() + digits.size() && length > 0 &&
        digits.front() != '+' && digits.front() != '-') {
      return Truncate(length);
    }
  }
  return std::nullopt;
}

std::string MetricsMode::ToString() const {
  switch (kind) {
    case Kind::kNone: return "none";
    case Kind::kCounts: return "counts";
    case Kind::kTruncate: return "truncate(" + std::to_string(length) + ")";
    case Kind::kFull: return "full";
  }
  return "none";
}

namespace {

// The ids TypeUtil.getProjectedIds counts: primitive leaves, plus list elements / map keys and
// values when they are primitive (struct ids are not counted).
int CountProjectedIds(const std::vector<NestedField>& fields) {
  int count = 0;
  for (const auto& field : fields) {
    switch (field.type->id()) {
      case TypeId::kStruct:
        count += CountProjectedIds(static_cast<const StructType&>(*field.type).fields());
        break;
      case TypeId::kList: {
        const auto& element = static_cast<const ListType&>(*field.type).element();
        count += element.type->is_primitive() ? 1 : CountProjectedIds({element});
        break;
      }
      case TypeId::kMap: {
        const auto& map = static_cast<const MapType&>(*field.type);
        count += map.key().type->is_primitive() ? 1 : CountProjectedIds({map.key()});
        count += map.value().type->is_primitive() ? 1 : CountProjectedIds({map.value()});
        break;
      }
      default:
        count += 1;
        break;
    }
  }
  return count;
}

// The first `limit` primitive field ids, breadth-first per struct: a struct's primitive fields
// in order, then its nested children (list element, then map key, then map value).
std::vector<int> FirstPrimitiveIds(const std::vector<NestedField>& top, int limit) {
  std::vector<int> ids;
  std::deque<const std::vector<NestedField>*> queue = {&top};
  // Children of lists and maps as field lists; a deque keeps their addresses stable.
  std::deque<std::vector<NestedField>> synthetic;
  while (!queue.empty() && static_cast<int>(ids.size()) < limit) {
    const auto* fields = queue.front();
    queue.pop_front();
    for (const auto& field : *fields) {
      if (field.type->is_primitive()) {
        if (static_cast<int>(ids.size()) < limit) ids.push_back(field.id);
      }
    }
    for (const auto& field : *fields) {
      switch (field.type->id()) {
        case TypeId::kStruct:
          queue.push_back(&static_cast<const StructType&>(*field.type).fields());
          break;
        case TypeId::kList:
          synthetic.push_back({static_cast<const ListType&>(*field.type).element()});
          queue.push_back(&synthetic.back());
          break;
        case TypeId::kMap:
          synthetic.push_back({static_cast<const MapType&>(*field.type).key(),
                               static_cast<const MapType&>(*field.type).value()});
          queue.push_back(&synthetic.back());
          break;
        default:
          break;
      }
    }
  }
  return ids;
}

}  // namespace

MetricsConfig MetricsConfig::Make(const Schema& schema, const PropertyMap& properties,
                                  const SortOrder& sort_order) {
  MetricsConfig config;
  const MetricsMode kDefault = MetricsMode::Truncate(16);
  auto default_text = properties.find(std::string(properties::kMetricsDefault.key));
  if (default_text != properties.end()) {
    config.default_mode_ = MetricsMode::Parse(default_text->second).value_or(kDefault);
  } else {
    int64_t limit = properties::kMetricsMaxInferredColumns.Get(properties);
    if (limit < 0) limit = properties::kMetricsMaxInferredColumns.default_value;
    if (CountProjectedIds(schema.fields()) <= limit) {
      config.default_mode_ = kDefault;
    } else {
      config.default_mode_ = MetricsMode::None();
      for (int id : FirstPrimitiveIds(schema.fields(), static_cast<int>(limit))) {
        config.column_modes_[id] = kDefault;
      }
    }
  }
  if (config.default_mode_.kind == MetricsMode::Kind::kNone ||
      config.default_mode_.kind == MetricsMode::Kind::kCounts) {
    for (const auto& field : sort_order.fields) config.column_modes_[field.source_id] = kDefault;
  }
  const std::string prefix(properties::kMetricsColumnPrefix);
  for (auto it = properties.lower_bound(prefix); it != properties.end(); ++it) {
    if (it->first.compare(0, prefix.size(), prefix) != 0) break;
    auto id = schema.FindFieldId(std::string_view(it->first).substr(prefix.size()));
    if (!id) continue;  // iceberg-java ignores columns that are not in the schema
    config.column_modes_[*id] = MetricsMode::Parse(it->second).value_or(kDefault);
  }
  return config;
}

MetricsMode MetricsConfig::ModeOf(int field_id) const {
  auto found = column_modes_.find(field_id);
  return found == column_modes_.end() ? default_mode_ : found->second;
}

}  // namespace floe
