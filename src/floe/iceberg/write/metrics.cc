#include "floe/iceberg/write/metrics.h"

#include <cmath>
#include <cstring>
#include <set>

#include "arrow/array.h"
#include "arrow/record_batch.h"
#include "floe/parquet/file_reader.h"
#include "floe/types/value.h"
#include "floe/util/error.h"
#include "parquet/metadata.h"
#include "parquet/schema.h"
#include "parquet/statistics.h"

namespace floe::iceberg {
namespace {

// Byte length of the UTF-8 sequence starting with `lead`.
size_t SequenceLength(unsigned char lead) {
  if (lead < 0x80) return 1;
  if ((lead >> 5) == 0x6) return 2;
  if ((lead >> 4) == 0xE) return 3;
  if ((lead >> 3) == 0x1E) return 4;
  return 1;  // invalid byte: count it alone
}

// Byte offsets of the first `count` code points (offsets.size() - 1 code points found).
std::vector<size_t> CodePointOffsets(const std::string& value, size_t count) {
  std::vector<size_t> offsets = {0};
  size_t position = 0;
  while (position < value.size() && offsets.size() <= count) {
    position =
        std::min(value.size(),
                 position + SequenceLength(static_cast<unsigned char>(value[position])));
    offsets.push_back(position);
  }
  return offsets;
}

uint32_t DecodeCodePoint(const std::string& value, size_t offset, size_t length) {
  auto byte = [&](size_t i) {
    return static_cast<uint32_t>(static_cast<unsigned char>(value[offset + i]));
  };
  switch (length) {
    case 1:
      return byte(0);
    case 2:
      return ((byte(0) & 0x1F) << 6) | (byte(1) & 0x3F);
    case 3:
      return ((byte(0) & 0x0F) << 12) | ((byte(1) & 0x3F) << 6) | (byte(2) & 0x3F);
    default:
      return ((byte(0) & 0x07) << 18) | ((byte(1) & 0x3F) << 12) |
             ((byte(2) & 0x3F) << 6) | (byte(3) & 0x3F);
  }
}

std::string EncodeCodePoint(uint32_t code_point) {
  std::string out;
  if (code_point < 0x80) {
    out.push_back(static_cast<char>(code_point));
  } else if (code_point < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (code_point >> 6)));
    out.push_back(static_cast<char>(0x80 | (code_point & 0x3F)));
  } else if (code_point < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (code_point >> 12)));
    out.push_back(static_cast<char>(0x80 | ((code_point >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (code_point & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (code_point >> 18)));
    out.push_back(static_cast<char>(0x80 | ((code_point >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((code_point >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (code_point & 0x3F)));
  }
  return out;
}

// Field ids whose values sit inside a list or map (no counts or bounds for them).
std::set<int> IdsInsideRepeated(const Schema& schema) {
  std::set<int> ids;
  for (int id : schema.AllFieldIds()) {
    std::optional<int> parent = schema.FindParentId(id);
    while (parent) {
      const NestedField* field = schema.FindField(*parent);
      if (field &&
          (field->type->id() == TypeId::kList || field->type->id() == TypeId::kMap)) {
        ids.insert(id);
        break;
      }
      parent = schema.FindParentId(*parent);
    }
  }
  return ids;
}

// A Parquet plain-encoded statistic as an Iceberg value of `type`.
arrow::Result<Value> StatisticToValue(const std::string& encoded,
                                      parquet::Type::type physical, const Type& type) {
  const auto* data = reinterpret_cast<const uint8_t*>(encoded.data());
  if (type.id() == TypeId::kDecimal) {
    __int128 unscaled = 0;
    if (physical == parquet::Type::INT32 && encoded.size() == 4) {
      int32_t value;
      std::memcpy(&value, data, 4);
      unscaled = value;
    } else if (physical == parquet::Type::INT64 && encoded.size() == 8) {
      int64_t value;
      std::memcpy(&value, data, 8);
      unscaled = value;
    } else {
      ARROW_ASSIGN_OR_RAISE(unscaled, DecimalFromBytes(data, encoded.size()));
    }
    return Value(Decimal{unscaled});
  }
  if (type.id() == TypeId::kBoolean) return Value(!encoded.empty() && (data[0] & 1) != 0);
  if (type.id() == TypeId::kLong && physical == parquet::Type::INT32 &&
      encoded.size() == 4) {
    int32_t value;
    std::memcpy(&value, data, 4);
    return Value(int64_t{value});
  }
  return FromBinary(data, encoded.size(), type);
}

}  // namespace

std::string TruncateStringLower(const std::string& value, int length) {
  auto offsets = CodePointOffsets(value, static_cast<size_t>(length));
  if (offsets.size() <= static_cast<size_t>(length)) return value;  // fewer code points
  return value.substr(0, offsets[static_cast<size_t>(length)]);
}

std::optional<std::string> TruncateStringUpper(const std::string& value, int length) {
  auto offsets = CodePointOffsets(value, static_cast<size_t>(length));
  if (offsets.size() <= static_cast<size_t>(length) ||
      offsets[static_cast<size_t>(length)] == value.size()) {
    return value;  // at most `length` code points: kept unchanged
  }
  for (int i = length - 1; i >= 0; --i) {
    size_t start = offsets[static_cast<size_t>(i)];
    size_t size = offsets[static_cast<size_t>(i) + 1] - start;
    uint32_t code_point = DecodeCodePoint(value, start, size);
    uint32_t next = code_point == 0xD7FF ? 0xE000 : code_point + 1;  // skip surrogates
    if (code_point == 0x10FFFF) continue;  // overflow: move left
    return value.substr(0, start) + EncodeCodePoint(next);
  }
  return std::nullopt;
}

std::string TruncateBinaryLower(const std::string& value, int length) {
  return value.size() <= static_cast<size_t>(length)
             ? value
             : value.substr(0, static_cast<size_t>(length));
}

std::optional<std::string> TruncateBinaryUpper(const std::string& value, int length) {
  if (value.size() <= static_cast<size_t>(length)) return value;
  std::string truncated = value.substr(0, static_cast<size_t>(length));
  for (int i = length - 1; i >= 0; --i) {
    auto byte = static_cast<unsigned char>(truncated[static_cast<size_t>(i)]);
    if (byte != 0xFF) {
      truncated[static_cast<size_t>(i)] = static_cast<char>(byte + 1);
      return truncated.substr(0, static_cast<size_t>(i) + 1);
    }
  }
  return std::nullopt;
}

namespace {

// One leaf's sizes, counts and bounds over a file's row groups.
struct Accumulated {
  int64_t size = 0;
  int64_t values = 0;
  int64_t nulls = 0;
  bool stats_complete = true;
  std::optional<Value> lower;
  std::optional<Value> upper;
  parquet::Type::type physical = parquet::Type::BOOLEAN;
};

// The footer's statistics per leaf field id of `schema`, over the row groups that hold
// rows; each such row group's start offset in `split_offsets`, sorted.
std::map<int, Accumulated> AccumulateFooter(const parquet::FileMetaData& footer,
                                            const Schema& schema,
                                            std::vector<int64_t>* split_offsets) {
  const auto* parquet_schema = footer.schema();
  std::map<int, Accumulated> columns;
  split_offsets->clear();
  for (int group = 0; group < footer.num_row_groups(); ++group) {
    auto row_group = footer.RowGroup(group);
    if (row_group->num_rows() == 0) continue;  // carries no values or statistics
    if (row_group->num_columns() > 0) split_offsets->push_back(RowGroupStart(*row_group));
    for (int column = 0; column < row_group->num_columns(); ++column) {
      int field_id = parquet_schema->Column(column)->schema_node()->field_id();
      const NestedField* field = schema.FindField(field_id);
      if (field == nullptr) continue;
      auto chunk = row_group->ColumnChunk(column);
      Accumulated& accumulated = columns[field_id];
      accumulated.physical = chunk->type();
      accumulated.size += chunk->total_compressed_size();
      accumulated.values += chunk->num_values();
      auto statistics = chunk->statistics();
      if (statistics == nullptr || !statistics->HasNullCount()) {
        accumulated.stats_complete = false;
        continue;
      }
      accumulated.nulls += statistics->null_count();
      if (statistics->HasMinMax()) {
        auto lower =
            StatisticToValue(statistics->EncodeMin(), chunk->type(), *field->type);
        auto upper =
            StatisticToValue(statistics->EncodeMax(), chunk->type(), *field->type);
        if (lower.ok() &&
            (!accumulated.lower || CompareValues(*lower, *accumulated.lower) < 0)) {
          accumulated.lower = *lower;
        }
        if (upper.ok() &&
            (!accumulated.upper || CompareValues(*upper, *accumulated.upper) > 0)) {
          accumulated.upper = *upper;
        }
      }
    }
  }
  std::sort(split_offsets->begin(), split_offsets->end());
  return columns;
}

// A float or double leaf: iceberg-java takes its counts and bounds from its value
// writers, not the footer.
void SetFloatMetrics(int field_id, const Type& type, const MetricsMode& mode,
                     const std::map<int, FloatLeafStats>& floats, DataFile* file) {
  auto found = floats.find(field_id);
  const FloatLeafStats empty;
  const auto& stats = found == floats.end() ? empty : found->second;
  file->value_counts[field_id] = stats.value_count;
  file->null_value_counts[field_id] = stats.null_count;
  file->nan_value_counts[field_id] = stats.nan_count;
  if (mode.kind == MetricsMode::Kind::kCounts || !stats.lower) return;
  if (type.id() == TypeId::kFloat) {
    file->lower_bounds[field_id] =
        ToBinary(Value(static_cast<float>(*stats.lower)), type);
    file->upper_bounds[field_id] =
        ToBinary(Value(static_cast<float>(*stats.upper)), type);
  } else {
    file->lower_bounds[field_id] = ToBinary(Value(*stats.lower), type);
    file->upper_bounds[field_id] = ToBinary(Value(*stats.upper), type);
  }
}

// Any other leaf: counts and bounds from the footer, strings and binary truncated under
// truncate(n).
void SetFooterMetrics(int field_id, const Type& type, const MetricsMode& mode,
                      const Accumulated& accumulated, DataFile* file) {
  if (!accumulated.stats_complete) return;
  file->value_counts[field_id] = accumulated.values;
  file->null_value_counts[field_id] = accumulated.nulls;
  if (mode.kind == MetricsMode::Kind::kCounts || !accumulated.lower || !accumulated.upper)
    return;
  Bytes lower = ToBinary(*accumulated.lower, type);
  Bytes upper = ToBinary(*accumulated.upper, type);
  if (mode.kind == MetricsMode::Kind::kTruncate &&
      (type.id() == TypeId::kString || type.id() == TypeId::kBinary)) {
    std::string lower_text(lower.begin(), lower.end());
    std::string upper_text(upper.begin(), upper.end());
    bool text = type.id() == TypeId::kString;
    std::string truncated_lower = text ? TruncateStringLower(lower_text, mode.length)
                                       : TruncateBinaryLower(lower_text, mode.length);
    auto truncated_upper = text ? TruncateStringUpper(upper_text, mode.length)
                                : TruncateBinaryUpper(upper_text, mode.length);
    file->lower_bounds[field_id] = Bytes(truncated_lower.begin(), truncated_lower.end());
    if (truncated_upper)
      file->upper_bounds[field_id] =
          Bytes(truncated_upper->begin(), truncated_upper->end());
    return;
  }
  file->lower_bounds[field_id] = std::move(lower);
  file->upper_bounds[field_id] = std::move(upper);
}

}  // namespace

arrow::Status ComputeMetrics(const parquet::FileMetaData& footer, const Schema& schema,
                             const MetricsConfig& config,
                             const std::map<int, FloatLeafStats>& floats,
                             DataFile* file) {
  std::set<int> inside_repeated = IdsInsideRepeated(schema);
  const std::map<int, Accumulated> columns =
      AccumulateFooter(footer, schema, &file->split_offsets);
  for (const auto& [field_id, accumulated] : columns) {
    MetricsMode mode = config.ModeOf(field_id);
    if (mode.kind == MetricsMode::Kind::kNone) continue;
    file->column_sizes[field_id] = accumulated.size;
    if (inside_repeated.count(field_id)) continue;  // iceberg-java ≥ 1.9: sizes only
    const Type& type = *schema.FindField(field_id)->type;
    if (type.id() == TypeId::kFloat || type.id() == TypeId::kDouble) {
      SetFloatMetrics(field_id, type, mode, floats, file);
    } else {
      SetFooterMetrics(field_id, type, mode, accumulated, file);
    }
  }
  return arrow::Status::OK();
}

}  // namespace floe::iceberg
