#include "floe/delta/write_format.h"

#include <algorithm>
#include <cstdio>
#include <utility>

#include <nlohmann/json.hpp>

#include "arrow/array.h"
#include "arrow/util/decimal.h"
#include "floe/parquet/file_reader.h"
#include "floe/task/row_groups_internal.h"
#include "floe/util/date_time.h"
#include "floe/util/error.h"
#include "floe/util/java_text.h"
#include "floe/util/text.h"
#include "parquet/metadata.h"
#include "parquet/schema.h"

namespace floe::delta {
namespace {

std::string JsonText(std::string_view text) {
  return nlohmann::json(std::string(text))
      .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// "YYYY-MM-DDTHH:MM:SS.ffffff" (micros) or ".fff" (millis) of microseconds since the
// epoch.
std::string FormatTimestamp(int64_t micros, bool millis_only) {
  const int64_t days = FloorDiv(micros, int64_t{86400} * 1000000);
  const int64_t of_day = micros - days * int64_t{86400} * 1000000;
  const int64_t seconds = of_day / 1000000;
  const int64_t fraction = of_day % 1000000;
  char time[32];
  if (millis_only) {
    std::snprintf(time, sizeof(time), "T%02d:%02d:%02d.%03d",
                  static_cast<int>(seconds / 3600), static_cast<int>(seconds / 60 % 60),
                  static_cast<int>(seconds % 60), static_cast<int>(fraction / 1000));
  } else {
    std::snprintf(time, sizeof(time), "T%02d:%02d:%02d.%06d",
                  static_cast<int>(seconds / 3600), static_cast<int>(seconds / 60 % 60),
                  static_cast<int>(seconds % 60), static_cast<int>(fraction));
  }
  return FormatDate(days) + time;
}

int64_t ToMicros(int64_t value, arrow::TimeUnit::type unit) {
  switch (unit) {
    case arrow::TimeUnit::SECOND:
      return value * 1000000;
    case arrow::TimeUnit::MILLI:
      return value * 1000;
    case arrow::TimeUnit::MICRO:
      return value;
    case arrow::TimeUnit::NANO:
      return FloorDiv(value, 1000);
  }
  return value;
}

// UTF-8 code points of `text` up to `count` of them (the byte length of that prefix).
size_t PrefixBytes(std::string_view text, size_t count) {
  size_t at = 0;
  for (size_t seen = 0; at < text.size() && seen < count; ++seen) {
    const auto lead = static_cast<unsigned char>(text[at]);
    at += lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
  }
  return std::min(at, text.size());
}

constexpr size_t kStringPrefixLength = 32;

// One level of the stats objects (minValues, maxValues, nullCount mirror the schema).
struct StatsNode {
  std::vector<std::pair<std::string, std::unique_ptr<StatsNode>>> children;
  std::string value;  // JSON text of a leaf
  StatsNode* Child(const std::string& name) {
    for (auto& [key, node] : children) {
      if (key == name) return node.get();
    }
    children.emplace_back(name, std::make_unique<StatsNode>());
    return children.back().second.get();
  }
  void Render(std::string* out) const {
    if (children.empty()) {
      *out += value;
      return;
    }
    *out += '{';
    for (size_t i = 0; i < children.size(); ++i) {
      if (i) *out += ',';
      *out += JsonText(children[i].first) + ":";
      children[i].second->Render(out);
    }
    *out += '}';
  }
};

void Set(StatsNode* root, const std::vector<std::string>& path, std::string value) {
  StatsNode* node = root;
  for (const auto& name : path) node = node->Child(name);
  node->value = std::move(value);
}

// A leaf column of the data schema, in Parquet leaf order.
struct Leaf {
  std::vector<std::string> path;
  std::shared_ptr<arrow::DataType> type;
  /// The index in `path` of the outermost list or map the leaf is below (no statistics
  /// there), or -1.
  int collection_at = -1;
  bool indexed = false;
  bool in_collection() const { return collection_at >= 0; }
};

void CollectLeaves(const arrow::Field& field, std::vector<std::string> path,
                   int collection_at, std::vector<Leaf>* leaves) {
  path.push_back(field.name());
  const auto& type = field.type();
  const int here = collection_at >= 0 ? collection_at : static_cast<int>(path.size()) - 1;
  switch (type->id()) {
    case arrow::Type::STRUCT:
      for (const auto& child : type->fields()) {
        CollectLeaves(*child, path, collection_at, leaves);
      }
      return;
    case arrow::Type::LIST:
    case arrow::Type::LARGE_LIST:
      CollectLeaves(*type->field(0), path, here, leaves);
      return;
    case arrow::Type::MAP: {
      const auto& map = static_cast<const arrow::MapType&>(*type);
      CollectLeaves(*map.key_field(), path, here, leaves);
      CollectLeaves(*map.item_field(), path, here, leaves);
      return;
    }
    default:
      leaves->push_back(Leaf{std::move(path), type, collection_at, false});
  }
}

// Whether two column names are one in Delta, which ignores case (as delta-spark's
// resolver, for delta.dataSkippingStatsColumns too).
bool SameName(const std::string& a, const std::string& b) {
  return AsciiLower(a) == AsciiLower(b);
}

// Whether `column` (a path of names) is `leaf`'s path or a struct above it.
bool Names(const std::vector<std::string>& column, const Leaf& leaf) {
  return column.size() <= leaf.path.size() &&
         std::equal(column.begin(), column.end(), leaf.path.begin(), SameName);
}

std::string Dotted(const std::vector<std::string>& path) {
  std::string dotted;
  for (const auto& name : path) dotted += (dotted.empty() ? "" : ".") + name;
  return dotted;
}

bool HasBounds(const arrow::DataType& type) {
  switch (type.id()) {
    case arrow::Type::INT8:
    case arrow::Type::INT16:
    case arrow::Type::INT32:
    case arrow::Type::INT64:
    case arrow::Type::DECIMAL128:
    case arrow::Type::DATE32:
    case arrow::Type::TIMESTAMP:
    case arrow::Type::STRING:
    case arrow::Type::LARGE_STRING:
      return true;
    default:
      // Floats and doubles come from the writer's own tracking (FloatBounds), not the
      // footer, which leaves NaN out; booleans and binaries have null counts only.
      return false;
  }
}

using Bound = ParquetLeafStats::Bound;

// A bound as a comparable number or bytes: integers (decimals included) as Decimal128.
struct Comparable {
  bool is_text = false;
  arrow::Decimal128 number;
  std::string text;
};

std::optional<Comparable> ToComparable(const Bound& bound,
                                       const ParquetLeafStats& stats) {
  Comparable out;
  if (std::holds_alternative<int32_t>(bound)) {
    out.number = arrow::Decimal128(std::get<int32_t>(bound));
  } else if (std::holds_alternative<int64_t>(bound)) {
    out.number = arrow::Decimal128(std::get<int64_t>(bound));
  } else if (std::holds_alternative<std::string>(bound)) {
    const auto& bytes = std::get<std::string>(bound);
    if (stats.logical_type && stats.logical_type->is_decimal()) {
      auto decoded =
          arrow::Decimal128::FromBigEndian(reinterpret_cast<const uint8_t*>(bytes.data()),
                                           static_cast<int32_t>(bytes.size()));
      if (!decoded.ok()) return std::nullopt;
      out.number = *decoded;
    } else {
      out.is_text = true;
      out.text = bytes;
    }
  } else {
    return std::nullopt;
  }
  return out;
}

bool Less(const Comparable& a, const Comparable& b) {
  return a.is_text ? a.text < b.text : a.number < b.number;
}

std::string RenderBound(const Comparable& value, const arrow::DataType& type,
                        bool is_max) {
  switch (type.id()) {
    case arrow::Type::DECIMAL128:
      return value.number.ToString(
          static_cast<const arrow::Decimal128Type&>(type).scale());
    case arrow::Type::DATE32:
      return JsonText(FormatDate(static_cast<int64_t>(value.number)));
    case arrow::Type::TIMESTAMP: {
      const auto& timestamp = static_cast<const arrow::TimestampType&>(type);
      // Truncated down to milliseconds, as Spark writes them (readers widen the max).
      int64_t micros = ToMicros(static_cast<int64_t>(value.number), timestamp.unit());
      micros = FloorDiv(micros, 1000) * 1000;
      return JsonText(FormatTimestamp(micros, true) +
                      (timestamp.timezone().empty() ? "" : "Z"));
    }
    case arrow::Type::STRING:
    case arrow::Type::LARGE_STRING: {
      const size_t prefix = PrefixBytes(value.text, kStringPrefixLength);
      if (prefix == value.text.size()) return JsonText(value.text);
      std::string cut = value.text.substr(0, prefix);
      if (!is_max) return JsonText(cut);
      // A max cut short gets a tie-breaker above every character that could follow.
      bool ascii = std::all_of(value.text.begin(), value.text.end(), [](char c) {
        return static_cast<unsigned char>(c) < 0x7F;
      });
      return JsonText(cut +
                      (ascii ? std::string("\x7F") : std::string("\xF4\x8F\xBF\xBF")));
    }
    default:
      return value.number.ToIntegerString();
  }
}

// A float or double bound as delta-spark writes it: a JSON number in Java's spelling, or
// the strings "NaN", "Infinity" and "-Infinity".
std::string FloatText(double value, bool is_float) {
  if (std::isnan(value)) return "\"NaN\"";
  if (std::isinf(value)) return value > 0 ? "\"Infinity\"" : "\"-Infinity\"";
  return is_float ? JavaFloatToString(static_cast<float>(value))
                  : JavaDoubleToString(value);
}

}  // namespace

namespace {

// `text` with every byte `escaped` says so written as %XX (upper-case hex).
template <typename Escaped>
std::string PercentEscape(std::string_view text, Escaped escaped) {
  std::string out;
  for (char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (escaped(c, byte)) {
      char escape[4];
      std::snprintf(escape, sizeof(escape), "%%%02X", byte);
      out += escape;
    } else {
      out.push_back(c);
    }
  }
  return out;
}

// Statistics columns must name columns delta-spark can skip by: not a list or map, nor a
// field inside one (it refuses the property:
// DELTA_COLUMN_DATA_SKIPPING_NOT_SUPPORTED_TYPE).
arrow::Status CheckStatsColumns(const std::vector<Leaf>& leaves,
                                const DeltaWriteFormatOptions& options) {
  if (!options.stats_columns) return arrow::Status::OK();
  for (const auto& column : *options.stats_columns) {
    for (const auto& leaf : leaves) {
      if (Names(column, leaf) && leaf.in_collection() &&
          leaf.collection_at < static_cast<int>(column.size())) {
        return MakeError(ErrorKind::kInvalidInput,
                         "table property delta.dataSkippingStatsColumns names column " +
                             Dotted(column) +
                             ", of a list or map type, which Delta has no "
                             "statistics for (delta-spark refuses it)");
      }
    }
  }
  return arrow::Status::OK();
}

// Marks the leaves that get statistics: those the statistics columns name, or else the
// first `indexed_columns` (a list or map column counting once, as one leaf).
void MarkIndexedLeaves(const DeltaWriteFormatOptions& options,
                       std::vector<Leaf>* leaves) {
  int counted = 0;
  std::string last_top;
  for (auto& leaf : *leaves) {
    if (options.stats_columns) {
      for (const auto& column : *options.stats_columns) {
        if (Names(column, leaf)) leaf.indexed = true;
      }
      continue;
    }
    if (leaf.in_collection()) {
      if (leaf.path.front() == last_top) continue;
      last_top = leaf.path.front();
      ++counted;
      continue;
    }
    leaf.indexed = options.indexed_columns < 0 || counted < options.indexed_columns;
    ++counted;
  }
}

// Whether a top-level list or map column gets its own null count: named by the statistics
// columns, or by its place among the counted leaves (every leaf before it, a collection
// once).
bool CollectionIndexed(const arrow::Field& field, const std::vector<Leaf>& leaves,
                       const DeltaWriteFormatOptions& options) {
  const auto id = field.type()->id();
  if (id != arrow::Type::LIST && id != arrow::Type::LARGE_LIST && id != arrow::Type::MAP)
    return false;
  if (options.stats_columns) {
    for (const auto& column : *options.stats_columns) {
      if (column.size() == 1 && SameName(column.front(), field.name())) return true;
    }
    return false;
  }
  int position = 0;
  std::string seen_top;
  for (const auto& leaf : leaves) {
    if (leaf.path.front() == field.name()) break;
    if (leaf.in_collection()) {
      if (leaf.path.front() == seen_top) continue;
      seen_top = leaf.path.front();
    }
    ++position;
  }
  return options.indexed_columns < 0 || position < options.indexed_columns;
}

}  // namespace

std::string EscapePartitionPathPart(std::string_view text) {
  static const std::string_view kEscaped = "\"#%'*/:=?\\\x7F{[]^";
  return PercentEscape(text, [](char c, unsigned char byte) {
    return (byte >= 0x01 && byte < 0x20) || kEscaped.find(c) != std::string_view::npos;
  });
}

std::string EncodeLogPath(std::string_view path) {
  static const std::string_view kEncoded = " \"#%<>?[\\]^`{|}";
  return PercentEscape(path, [](char c, unsigned char byte) {
    return byte < 0x20 || byte == 0x7F || kEncoded.find(c) != std::string_view::npos;
  });
}

arrow::Result<std::optional<std::string>> PartitionValueText(const arrow::Array& column,
                                                             int64_t row) {
  if (column.IsNull(row)) return std::optional<std::string>();
  std::string text;
  switch (column.type_id()) {
    case arrow::Type::STRING:
    case arrow::Type::BINARY:
      text = std::string(static_cast<const arrow::BinaryArray&>(column).GetView(row));
      break;
    case arrow::Type::LARGE_STRING:
    case arrow::Type::LARGE_BINARY:
      text =
          std::string(static_cast<const arrow::LargeBinaryArray&>(column).GetView(row));
      break;
    case arrow::Type::BOOL:
      text =
          static_cast<const arrow::BooleanArray&>(column).Value(row) ? "true" : "false";
      break;
    case arrow::Type::INT8:
      text = std::to_string(static_cast<const arrow::Int8Array&>(column).Value(row));
      break;
    case arrow::Type::INT16:
      text = std::to_string(static_cast<const arrow::Int16Array&>(column).Value(row));
      break;
    case arrow::Type::INT32:
      text = std::to_string(static_cast<const arrow::Int32Array&>(column).Value(row));
      break;
    case arrow::Type::INT64:
      text = std::to_string(static_cast<const arrow::Int64Array&>(column).Value(row));
      break;
    case arrow::Type::FLOAT:
      text = JavaFloatToString(static_cast<const arrow::FloatArray&>(column).Value(row));
      break;
    case arrow::Type::DOUBLE:
      text =
          JavaDoubleToString(static_cast<const arrow::DoubleArray&>(column).Value(row));
      break;
    case arrow::Type::DECIMAL128: {
      const auto& decimal = static_cast<const arrow::Decimal128Array&>(column);
      const auto& type = static_cast<const arrow::Decimal128Type&>(*column.type());
      text = arrow::Decimal128(decimal.GetValue(row)).ToString(type.scale());
      break;
    }
    case arrow::Type::DATE32:
      text = FormatDate(static_cast<const arrow::Date32Array&>(column).Value(row));
      break;
    case arrow::Type::TIMESTAMP: {
      const auto& type = static_cast<const arrow::TimestampType&>(*column.type());
      int64_t micros = ToMicros(
          static_cast<const arrow::TimestampArray&>(column).Value(row), type.unit());
      // kernel-rs's form for timestamp (UTC, with Z); Spark's for timestamp_ntz.
      if (type.timezone().empty()) {
        text = FormatTimestamp(micros, false);
        text[10] = ' ';
      } else {
        text = FormatTimestamp(micros, false) + "Z";
      }
      break;
    }
    default:
      return MakeError(
          ErrorKind::kInvalidInput,
          "Delta cannot partition by a column of type " + column.type()->ToString());
  }
  if (text.empty()) return std::optional<std::string>();  // the empty string is null
  return std::optional<std::string>(std::move(text));
}

arrow::Result<std::shared_ptr<DeltaWriteFormat>> DeltaWriteFormat::Make(
    DeltaWriteFormatOptions options) {
  std::shared_ptr<DeltaWriteFormat> format(new DeltaWriteFormat());
  const auto& schema = *options.schema;
  for (const auto& column : options.partition_columns) {
    int index = schema.GetFieldIndex(column);
    if (index < 0) {
      return MakeError(ErrorKind::kInvalidInput,
                       "partition column " + column + " is not a column of the table");
    }
    const auto id = schema.field(index)->type()->id();
    if (id == arrow::Type::STRUCT || id == arrow::Type::LIST || id == arrow::Type::MAP ||
        id == arrow::Type::LARGE_LIST) {
      return MakeError(ErrorKind::kInvalidInput, "partition column " + column +
                                                     " is nested; Delta partitions by "
                                                     "primitive columns only");
    }
    format->partition_indices_.push_back(index);
  }
  arrow::FieldVector data_fields;
  for (int i = 0; i < schema.num_fields(); ++i) {
    if (std::find(format->partition_indices_.begin(), format->partition_indices_.end(),
                  i) != format->partition_indices_.end()) {
      continue;
    }
    format->data_indices_.push_back(i);
    data_fields.push_back(schema.field(i)->RemoveMetadata());
  }
  auto data_schema = arrow::schema(std::move(data_fields));
  // Which leaves get statistics.
  std::vector<Leaf> leaves;
  for (const auto& field : data_schema->fields()) CollectLeaves(*field, {}, -1, &leaves);
  ARROW_RETURN_NOT_OK(CheckStatsColumns(leaves, options));
  MarkIndexedLeaves(options, &leaves);
  for (const auto& leaf : leaves) {
    format->leaf_has_stats_.push_back(leaf.indexed && !leaf.in_collection());
  }
  for (const auto& field : data_schema->fields()) {
    if (CollectionIndexed(*field, leaves, options))
      format->collection_has_stats_.insert(field->name());
  }
  format->any_indexed_ =
      !format->collection_has_stats_.empty() ||
      std::find(format->leaf_has_stats_.begin(), format->leaf_has_stats_.end(), true) !=
          format->leaf_has_stats_.end();

  auto context = std::make_shared<ParquetWriteContext>();
  context->io = options.io;
  context->arrow_schema = data_schema;
  context->settings = options.settings;
  context->pool = options.pool;
  context->nanosecond_timestamps = HasNanosecondTimestamps(*data_schema);
  context->root_name = "spark_schema";
  format->parquet_ = std::move(context);
  arrow::FieldVector input_fields;
  for (const auto& field : schema.fields())
    input_fields.push_back(field->RemoveMetadata());
  format->input_schema_ = arrow::schema(std::move(input_fields));
  format->options_ = std::move(options);
  return format;
}

arrow::Result<std::vector<std::vector<PartitionRows>>> DeltaWriteFormat::SplitImpl(
    const std::shared_ptr<arrow::RecordBatch>& batch, int count, std::optional<int> only,
    const PartitionOwner& owner) const {
  const size_t outputs = only ? 1 : static_cast<size_t>(count);
  ARROW_ASSIGN_OR_RAISE(auto data, batch->SelectColumns(data_indices_));
  if (partition_indices_.empty()) {
    std::vector<std::vector<PartitionRows>> result(outputs);
    PartitionRows all{"", DeltaPartition{}, data};
    const int index = only    ? 0
                      : owner ? owner(all.key, data->num_rows())
                              : PartitionShare::OwnerOf(all.key, count);
    result[static_cast<size_t>(index)].push_back(std::move(all));
    return result;
  }
  std::vector<std::shared_ptr<arrow::Array>> columns;
  for (int index : partition_indices_) columns.push_back(batch->column(index));
  ARROW_ASSIGN_OR_RAISE(auto codes, ValueCodes(columns, batch->num_rows()));
  arrow::Status failure;
  auto result = GroupRowsByKey(
      data, count, only,
      [&](int64_t row, std::string* key) {
        for (const auto& column : columns) {
          auto text = PartitionValueText(*column, row);
          if (!text.ok()) {
            failure = text.status();
            return;
          }
          if (*text) {
            key->push_back('\1');
            *key += **text;
          } else {
            key->push_back('\0');
          }
        }
      },
      [&](int64_t row) -> arrow::Result<std::any> {
        DeltaPartition partition;
        for (size_t i = 0; i < columns.size(); ++i) {
          ARROW_ASSIGN_OR_RAISE(auto text, PartitionValueText(*columns[i], row));
          const std::string& name = options_.partition_columns[i];
          partition.folder += (i ? "/" : "") + EscapePartitionPathPart(name) + "=" +
                              (text ? EscapePartitionPathPart(*text)
                                    : std::string("__HIVE_DEFAULT_PARTITION__"));
          partition.values.emplace_back(name, std::move(text));
        }
        return std::any(std::move(partition));
      },
      owner, codes ? &*codes : nullptr);
  ARROW_RETURN_NOT_OK(failure);
  return result;
}

arrow::Result<std::vector<PartitionRows>> DeltaWriteFormat::Split(
    const std::shared_ptr<arrow::RecordBatch>& batch, PartitionShare share) const {
  const int count = std::max(share.count, 1);
  ARROW_ASSIGN_OR_RAISE(
      auto shares,
      SplitImpl(batch, count, count > 1 ? std::optional<int>(share.index) : std::nullopt,
                nullptr));
  return std::move(shares.front());
}

arrow::Result<std::vector<std::vector<PartitionRows>>> DeltaWriteFormat::SplitShares(
    const std::shared_ptr<arrow::RecordBatch>& batch, int count,
    const PartitionOwner& owner) const {
  return SplitImpl(batch, std::max(count, 1), std::nullopt, owner);
}

std::string DeltaWriteFormat::FileLocation(const std::any& partition, int partition_id,
                                           int64_t attempt_id, int64_t count) const {
  const auto& delta_partition = std::any_cast<const DeltaPartition&>(partition);
  char name[160];
  std::snprintf(name, sizeof(name), "part-%05d-%s-%lld-c%03lld.%s.parquet", partition_id,
                options_.operation_id.c_str(), static_cast<long long>(attempt_id),
                static_cast<long long>(count),
                options_.settings.codec == "uncompressed"
                    ? "uncompressed"
                    : options_.settings.codec.c_str());
  std::string location = options_.table_root + "/";
  if (!delta_partition.folder.empty()) location += delta_partition.folder + "/";
  return location + name;
}

arrow::Status DeltaWriteFormat::NotClustered(const std::any& partition) const {
  return MakeError(ErrorKind::kInvalidInput,
                   "rows of partition " +
                       std::any_cast<const DeltaPartition&>(partition).folder +
                       " came after that partition's file was closed");
}

arrow::Result<std::unique_ptr<RowHolder>> DeltaWriteFormat::MakeRowHolder(
    arrow::MemoryPool*, Env*) const {
  return std::unique_ptr<RowHolder>();
}

arrow::Result<std::string> DeltaWriteFormat::Stats(const WrittenParquetFile& file) const {
  const auto& footer = *file.footer;
  const auto& schema = *footer.schema();
  std::vector<Leaf> leaves;
  for (const auto& field : parquet_->arrow_schema->fields()) {
    CollectLeaves(*field, {}, -1, &leaves);
  }
  StatsNode mins, maxes, nulls;
  const int groups = footer.num_row_groups();
  for (size_t leaf = 0;
       leaf < leaves.size() && static_cast<int>(leaf) < schema.num_columns(); ++leaf) {
    if (!leaf_has_stats_[leaf]) continue;
    std::optional<int64_t> null_count = 0;
    std::optional<Comparable> low, high;
    bool bounds = HasBounds(*leaves[leaf].type);
    for (int g = 0; g < groups; ++g) {
      auto chunk = footer.RowGroup(g)->ColumnChunk(static_cast<int>(leaf));
      auto stats = DecodeLeafStats(*chunk, *schema.Column(static_cast<int>(leaf)));
      if (!stats || !stats->null_count) {
        null_count.reset();
        bounds = false;
        break;
      }
      *null_count += *stats->null_count;
      if (!bounds || stats->value_count == 0) continue;
      if (!stats->min || !stats->max) {
        bounds = false;
        continue;
      }
      auto min = ToComparable(*stats->min, *stats);
      auto max = ToComparable(*stats->max, *stats);
      if (!min || !max) {
        bounds = false;
        continue;
      }
      if (!low || Less(*min, *low)) low = std::move(min);
      if (!high || Less(*high, *max)) high = std::move(max);
    }
    if (null_count) Set(&nulls, leaves[leaf].path, std::to_string(*null_count));
    const auto type_id = leaves[leaf].type->id();
    if (null_count && (type_id == arrow::Type::FLOAT || type_id == arrow::Type::DOUBLE)) {
      // Spark's min and max order NaN above every number: the max is NaN when one is
      // there; the min is NaN only when nothing else is. The writer tracked them (the
      // footer leaves NaN out).
      auto tracked = file.float_stats.find(static_cast<int>(leaf));
      if (tracked != file.float_stats.end()) {
        const FloatLeafStats& floats = tracked->second;
        const bool is_float = type_id == arrow::Type::FLOAT;
        const double nan = std::numeric_limits<double>::quiet_NaN();
        // The zeros compare equal in Spark, which keeps the first it met.
        auto spark_zero = [&](double bound) {
          if (bound != 0 || !floats.first_zero_negative) return bound;
          return *floats.first_zero_negative ? -0.0 : 0.0;
        };
        if (floats.lower || floats.nan_count > 0) {
          Set(&mins, leaves[leaf].path,
              FloatText(floats.lower ? spark_zero(*floats.lower) : nan, is_float));
          Set(&maxes, leaves[leaf].path,
              FloatText(floats.nan_count > 0 ? nan : spark_zero(*floats.upper),
                        is_float));
        }
      }
    }
    if (bounds && low && high) {
      Set(&mins, leaves[leaf].path, RenderBound(*low, *leaves[leaf].type, false));
      Set(&maxes, leaves[leaf].path, RenderBound(*high, *leaves[leaf].type, true));
    }
  }
  // A list or map column's own nulls (no leaf's statistics give them), for the top-level
  // ones among the indexed columns.
  const auto& fields = parquet_->arrow_schema->fields();
  for (size_t i = 0; i < fields.size() && i < file.column_null_counts.size(); ++i) {
    if (collection_has_stats_.count(fields[i]->name()) == 0) continue;
    Set(&nulls, {fields[i]->name()}, std::to_string(file.column_null_counts[i]));
  }
  std::string out = "{\"numRecords\":" + std::to_string(file.rows);
  // No column indexed: delta-spark's statistics are the record count alone.
  if (!any_indexed_) return out + "}";
  auto add = [&](const char* name, const StatsNode& node) {
    out += ",\"";
    out += name;
    out += "\":";
    if (node.children.empty()) {
      out += "{}";
    } else {
      node.Render(&out);
    }
  };
  add("minValues", mins);
  add("maxValues", maxes);
  add("nullCount", nulls);
  out += "}";
  return out;
}

arrow::Result<std::string> DeltaWriteFormat::AddAction(const TaskFile& file) const {
  const auto& partition = std::any_cast<const DeltaPartition&>(file.partition);
  std::string relative = file.file.location.substr(options_.table_root.size() + 1);
  nlohmann::ordered_json add;
  add["path"] = EncodeLogPath(relative);
  nlohmann::ordered_json values = nlohmann::ordered_json::object();
  for (const auto& [name, value] : partition.values) {
    values[name] = value ? nlohmann::ordered_json(*value) : nlohmann::ordered_json();
  }
  add["partitionValues"] = std::move(values);
  add["size"] = file.file.size;
  add["modificationTime"] = options_.modification_time_ms;
  add["dataChange"] = options_.data_change;
  ARROW_ASSIGN_OR_RAISE(std::string stats, Stats(file.file));
  add["stats"] = std::move(stats);
  return add.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

arrow::Result<std::string> DeltaWriteFormat::EncodeFiles(
    const std::vector<TaskFile>& files) const {
  std::string out;
  for (const auto& file : files) {
    ARROW_ASSIGN_OR_RAISE(std::string add, AddAction(file));
    out += "{\"add\":" + add + "}\n";
  }
  return out;
}

}  // namespace floe::delta
