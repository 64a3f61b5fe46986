#include "floe/parquet/file_writer.h"

#include <bit>
#include <cstring>
#include <functional>
#include <new>
#include <string_view>

#include "arrow/array.h"
#include "arrow/buffer.h"
#include "arrow/io/interfaces.h"
#include "arrow/io/memory.h"
#include "arrow/record_batch.h"
#include "arrow/util/bit_run_reader.h"
#include "arrow/util/byte_size.h"
#include "arrow/util/endian.h"
#include "arrow/util/hashing.h"
#include "arrow/util/key_value_metadata.h"
#include "floe/util/error.h"
#include "floe/util/java_text.h"
#include "parquet/arrow/schema.h"
#include "parquet/arrow/writer.h"
#include "parquet/exception.h"
#include "parquet/file_writer.h"
#include "parquet/metadata.h"
#include "parquet/schema.h"

namespace floe {

/// The stream a data file's Parquet writer writes to. Bytes go through to the file until
/// HoldTail(); from then on (the file's last row group, page indexes and footer) they are
/// kept, and Close writes them with the footer's empty row groups left out (their empty
/// column chunks stay as bytes no footer entry points to). Arrow's writer writes a
/// buffered row group out only by starting the next, so a file whose last rows were
/// written out early (a fanout task's memory budget) would end with an empty row group,
/// which parquet-java never writes.
class TailHoldingStream : public arrow::io::OutputStream {
 public:
  TailHoldingStream(std::shared_ptr<arrow::io::OutputStream> file, std::string location)
      : file_(std::move(file)), location_(std::move(location)) {}

  arrow::Status HoldTail() {
    ARROW_ASSIGN_OR_RAISE(held_from_, file_->Tell());
    ARROW_ASSIGN_OR_RAISE(held_, arrow::io::BufferOutputStream::Create());
    return arrow::Status::OK();
  }

  arrow::Status Write(const void* data, int64_t bytes) override {
    return held_ ? held_->Write(data, bytes) : file_->Write(data, bytes);
  }

  arrow::Result<int64_t> Tell() const override {
    if (!held_) return file_->Tell();
    ARROW_ASSIGN_OR_RAISE(int64_t held, held_->Tell());
    return held_from_ + held;
  }

  arrow::Status Flush() override { return held_ ? arrow::Status::OK() : file_->Flush(); }

  bool closed() const override { return closed_; }

  /// Writes out what was held, then closes the file; size() is then the file's length.
  arrow::Status Close() override {
    if (closed_) return arrow::Status::OK();
    closed_ = true;
    if (held_) {
      ARROW_ASSIGN_OR_RAISE(auto tail, held_->Finish());
      held_.reset();
      ARROW_RETURN_NOT_OK(WriteTail(*tail));
    }
    ARROW_ASSIGN_OR_RAISE(size_, file_->Tell());
    return file_->Close();
  }

  /// Abandons the file: nothing held is written, and the file's own stream is aborted
  /// (on object storage, its multipart upload is aborted, so no object appears).
  arrow::Status Abort() override {
    if (closed_) return arrow::Status::OK();
    closed_ = true;
    held_.reset();
    return file_->Abort();
  }

  int64_t size() const { return size_; }

 private:
  arrow::Status WriteTail(const arrow::Buffer& tail) {
    const uint8_t* bytes = tail.data();
    const int64_t length = tail.size();
    // A footer is: metadata, its 4-byte little-endian length, "PAR1".
    uint32_t metadata_length = 0;
    if (length >= 8) std::memcpy(&metadata_length, bytes + length - 8, 4);
    metadata_length = arrow::bit_util::FromLittleEndian(metadata_length);
    if (length < 8 || std::memcmp(bytes + length - 4, "PAR1", 4) != 0 ||
        metadata_length > length - 8) {
      return arrow::Status::IOError("data file ", location_,
                                    ": its Parquet writer ended without a footer");
    }
    const int64_t footer_start = length - 8 - metadata_length;
    std::string edited;
    try {
      auto metadata = parquet::FileMetaData::Make(bytes + footer_start,
                                                  static_cast<int64_t>(metadata_length));
      std::vector<int> kept;
      for (int i = 0; i < metadata->num_row_groups(); ++i) {
        if (metadata->RowGroup(i)->num_rows() > 0) kept.push_back(i);
      }
      if (static_cast<int>(kept.size()) == metadata->num_row_groups()) {
        return file_->Write(bytes, length);
      }
      edited = metadata->Subset(kept)->SerializeToString();
    } catch (const parquet::ParquetException& error) {
      return arrow::Status::IOError("data file ", location_,
                                    ": rewriting its footer: ", error.what());
    }
    // The bytes before the footer stay: the page indexes written after the last row group
    // are the kept row groups'.
    ARROW_RETURN_NOT_OK(file_->Write(bytes, footer_start));
    ARROW_RETURN_NOT_OK(file_->Write(edited.data(), static_cast<int64_t>(edited.size())));
    const uint32_t edited_length =
        arrow::bit_util::ToLittleEndian(static_cast<uint32_t>(edited.size()));
    ARROW_RETURN_NOT_OK(file_->Write(&edited_length, 4));
    return file_->Write("PAR1", 4);
  }

  std::shared_ptr<arrow::io::OutputStream> file_;
  std::string location_;
  std::shared_ptr<arrow::io::BufferOutputStream> held_;
  int64_t held_from_ = 0;
  int64_t size_ = 0;
  bool closed_ = false;
};

namespace {

bool HasNanoseconds(const arrow::DataType& type) {
  if (type.id() == arrow::Type::TIMESTAMP) {
    return static_cast<const arrow::TimestampType&>(type).unit() == arrow::TimeUnit::NANO;
  }
  for (const auto& child : type.fields()) {
    if (HasNanoseconds(*child->type())) return true;
  }
  return false;
}

}  // namespace

bool HasNanosecondTimestamps(const arrow::Schema& schema) {
  for (const auto& field : schema.fields()) {
    if (HasNanoseconds(*field->type())) return true;
  }
  return false;
}

namespace {

// A copy of a Parquet schema node with the root renamed and, when `compatible`, column
// and struct field names made Avro-compatible as iceberg-java names them (list and map
// structure keeps Arrow's standard names, which are iceberg-java's too).
parquet::schema::NodePtr Renamed(const parquet::schema::Node& node,
                                 const std::string& name, bool top, bool compatible) {
  if (node.is_primitive()) {
    const auto& primitive = static_cast<const parquet::schema::PrimitiveNode&>(node);
    return parquet::schema::PrimitiveNode::Make(
        name, node.repetition(), node.logical_type(), primitive.physical_type(),
        primitive.type_length(), node.field_id());
  }
  const auto& group = static_cast<const parquet::schema::GroupNode&>(node);
  // Children of LIST and MAP groups are structural ("list", "key_value", "element", ...).
  bool structural = node.logical_type() &&
                    (node.logical_type()->is_list() || node.logical_type()->is_map());
  parquet::schema::NodeVector children;
  for (int i = 0; i < group.field_count(); ++i) {
    const auto& child = *group.field(i);
    std::string child_name =
        structural || (!top && node.repetition() == parquet::Repetition::REPEATED)
            ? child.name()
            : (compatible ? MakeCompatibleName(child.name()) : child.name());
    children.push_back(Renamed(child, child_name, false, compatible));
  }
  auto logical_type = node.logical_type();
  if (logical_type && logical_type->is_none()) logical_type = nullptr;
  return parquet::schema::GroupNode::Make(name, node.repetition(), children, logical_type,
                                          node.field_id());
}

// The bytes of a binary array's non-null values.
template <typename BinaryArrayType>
int64_t ValueBytes(const BinaryArrayType& array) {
  if (array.null_count() == 0) return array.total_values_length();
  int64_t bytes = 0;
  arrow::internal::VisitSetBitRunsVoid(
      array.null_bitmap_data(), array.offset(), array.length(),
      [&](int64_t position, int64_t length) {
        bytes += array.value_offset(position + length) - array.value_offset(position);
      });
  return bytes;
}

// Whether parquet-java keeps the dictionary of a leaf's first page: its distinct non-null
// values, keyed as parquet-java's dictionary writers key them (fastutil maps: floats by
// bit pattern, so -0.0 and 0.0 are two entries and every NaN is one), against the page
// written plain. Open addressing over the values' bytes: Arrow's Unique kernel costs
// several times more and keys decimals as 16-byte strings. The page's plain size is known
// before any value is hashed, so the trial stops once the entries found so far can no
// longer pay (for distinct 8-byte values, after about three quarters of the page), and
// values in order are counted without hashing (AddIfOrdered).
class DictionaryTrial {
 public:
  // Adds the count and plain-encoded bytes of an array's non-null values (`width` bytes
  // each when the Parquet type is fixed width, their length plus 4 when binary); false
  // when the type has no dictionary to try.
  static bool PlainSize(const arrow::Array& values, int width, int64_t* count,
                        int64_t* bytes) {
    const int64_t present = values.length() - values.null_count();
    switch (values.type_id()) {
      case arrow::Type::STRING:
      case arrow::Type::BINARY:
        *bytes +=
            4 * present + ValueBytes(static_cast<const arrow::BinaryArray&>(values));
        break;
      case arrow::Type::LARGE_STRING:
      case arrow::Type::LARGE_BINARY:
        *bytes +=
            4 * present + ValueBytes(static_cast<const arrow::LargeBinaryArray&>(values));
        break;
      case arrow::Type::FLOAT:
      case arrow::Type::DOUBLE:
      case arrow::Type::INT32:
      case arrow::Type::DATE32:
      case arrow::Type::TIME32:
      case arrow::Type::INT64:
      case arrow::Type::TIME64:
      case arrow::Type::TIMESTAMP:
      case arrow::Type::DECIMAL128:
        *bytes += width * present;
        break;
      default:
        return false;
    }
    *count += present;
    return true;
  }

  // `values` and `plain_bytes`: the page's, as PlainSize adds them up.
  DictionaryTrial(int64_t values, int64_t plain_bytes, int64_t dictionary_limit)
      : values_(values), plain_bytes_(plain_bytes), dictionary_limit_(dictionary_limit) {}

  // Adds an array's values (a type PlainSize accepts), unless the trial is already lost.
  void Add(const arrow::Array& values, int width) {
    if (lost_) return;
    const arrow::ArrayData& data = *values.data();
    switch (values.type_id()) {
      case arrow::Type::STRING:
      case arrow::Type::BINARY:
        AddBinary(static_cast<const arrow::BinaryArray&>(values));
        break;
      case arrow::Type::LARGE_STRING:
      case arrow::Type::LARGE_BINARY:
        AddBinary(static_cast<const arrow::LargeBinaryArray&>(values));
        break;
      case arrow::Type::FLOAT:
        AddFixed(data, 4, width, /*nan_mask=*/0x7fffffff, /*nan=*/0x7fc00000);
        break;
      case arrow::Type::DOUBLE:
        AddFixed(data, 8, width, 0x7fffffffffffffff, 0x7ff8000000000000);
        break;
      case arrow::Type::INT32:
      case arrow::Type::DATE32:
      case arrow::Type::TIME32:
        AddFixed(data, 4, width, 0, 0);
        break;
      case arrow::Type::DECIMAL128:
        // Only precisions up to 18 get here (wider ones are fixed-length, never with a
        // dictionary): the unscaled value fits the low 8 bytes.
        AddFixed(data, 16, width, 0, 0);
        break;
      default:
        AddFixed(data, 8, width, 0, 0);
        break;
    }
  }

  // Counts the entries of integer values (a type AddFixed keys by value, not floats) in
  // one pass when the page's values never rise or never fall: their entries are the
  // changes between neighbours, and nothing is hashed (ids, timestamps and dates often
  // arrive in order). False, having counted nothing, when the values are not in order
  // or of another type; Add then hashes them.
  bool AddIfOrdered(const arrow::ArrayVector& arrays, int width) {
    int direction = 0;  // +1 rising, -1 falling, 0 not known yet
    bool any = false;
    int64_t previous = 0;
    int64_t changes = 0;
    for (const auto& values : arrays) {
      const arrow::ArrayData& data = *values->data();
      int arrow_width = 0;
      switch (values->type_id()) {
        case arrow::Type::INT32:
        case arrow::Type::DATE32:
        case arrow::Type::TIME32:
          arrow_width = 4;
          break;
        case arrow::Type::INT64:
        case arrow::Type::TIME64:
        case arrow::Type::TIMESTAMP:
          arrow_width = 8;
          break;
        case arrow::Type::DECIMAL128:  // precision up to 18: the low 8 bytes hold it
          arrow_width = 16;
          break;
        default:
          return false;
      }
      const uint8_t* bytes = data.buffers[1]->data() + data.offset * arrow_width;
      bool ordered = true;
      arrow::internal::VisitSetBitRunsVoid(
          data.buffers[0] ? data.buffers[0]->data() : nullptr, data.offset, data.length,
          [&](int64_t position, int64_t length) {
            for (int64_t i = position; i < position + length && ordered; ++i) {
              int64_t value = 0;
              if (arrow_width == 4) {
                int32_t narrow = 0;
                std::memcpy(&narrow, bytes + i * 4, 4);
                value = narrow;
              } else {
                std::memcpy(&value, bytes + i * arrow_width, 8);
              }
              if (any && value != previous) {
                const int step = value > previous ? 1 : -1;
                if (direction == 0) direction = step;
                ordered = step == direction;
                ++changes;
              }
              any = true;
              previous = value;
            }
          });
      if (!ordered) return false;
    }
    entries_ = any ? changes + 1 : 0;
    entry_bytes_ = entries_ * width;
    lost_ = Lost();
    return true;
  }

  // Once every value is in: whether the dictionary-encoded page plus its dictionary is
  // smaller than the plain page, and the dictionary within its limit. A page without
  // values has no dictionary page.
  bool Pays() const { return values_ > 0 && !Lost(); }

 private:
  // The dictionary cannot pay: it outgrew its limit, or the entries so far plus every
  // value's index at their bit width already reach the plain size (entries only grow).
  // The indices are costed bit-packed as parquet-java's hybrid encoder writes them: the
  // bit width, groups of 8 values padded, one header byte per run of up to 63 groups.
  bool Lost() const {
    if (entry_bytes_ > dictionary_limit_) return true;
    const int64_t groups = (values_ + 7) / 8;
    const int64_t bit_width =
        std::bit_width(static_cast<uint64_t>(entries_ > 0 ? entries_ - 1 : 0));
    return entry_bytes_ + 1 + groups * bit_width + (groups + 62) / 63 >= plain_bytes_;
  }

  // Counts a new entry of `bytes`; looks at whether the trial is lost every 64 entries.
  void NewEntry(int64_t bytes) {
    ++entries_;
    entry_bytes_ += bytes;
    if ((entries_ & 63) == 0) lost_ = Lost();
  }

  static uint64_t Mix(uint64_t key) { return key * 0x9E3779B97F4A7C15ULL; }

  // Values of `arrow_width` bytes, keyed by their first (low) 8 at most, costing `width`.
  void AddFixed(const arrow::ArrayData& data, int arrow_width, int width,
                uint64_t nan_mask, uint64_t nan) {
    const uint8_t* bytes = data.buffers[1]->data() + data.offset * arrow_width;
    const int key_width = std::min(arrow_width, 8);
    const bool floating = nan_mask != 0;
    const uint64_t infinity = nan_mask == 0x7fffffff ? 0x7f800000 : 0x7ff0000000000000;
    arrow::internal::VisitSetBitRunsVoid(
        data.buffers[0] ? data.buffers[0]->data() : nullptr, data.offset, data.length,
        [&](int64_t position, int64_t length) {
          for (int64_t i = position; i < position + length && !lost_; ++i) {
            uint64_t key = 0;
            std::memcpy(&key, bytes + i * arrow_width, key_width);
            if (floating && (key & nan_mask) > infinity) key = nan;
            InsertKey(key, width);
          }
        });
  }

  void InsertKey(uint64_t key, int width) {
    if (key == 0) {  // the empty slots' marker has its own flag
      if (!has_zero_) {
        has_zero_ = true;
        NewEntry(width);
      }
      return;
    }
    if ((keys_size_ + 1) * 2 > keys_.size()) {
      Grow(&keys_, &shift_, [](uint64_t slot) { return slot; });
    }
    const uint64_t mask = keys_.size() - 1;
    for (uint64_t slot = Mix(key) >> shift_;; slot = (slot + 1) & mask) {
      if (keys_[slot] == key) return;
      if (keys_[slot] == 0) {
        keys_[slot] = key;
        ++keys_size_;
        NewEntry(width);
        return;
      }
    }
  }

  template <typename BinaryArrayType>
  void AddBinary(const BinaryArrayType& array) {
    arrow::internal::VisitSetBitRunsVoid(
        array.null_bitmap_data(), array.offset(), array.length(),
        [&](int64_t position, int64_t length) {
          for (int64_t i = position; i < position + length && !lost_; ++i) {
            InsertView(array.GetView(i));
          }
        });
  }

  void InsertView(std::string_view value) {
    if ((views_size_ + 1) * 2 > views_.size()) {
      Grow(&views_, &view_shift_, [](const View& slot) { return slot.hash; });
    }
    const uint64_t mask = views_.size() - 1;
    // The hash's top bit marks a used slot.
    const uint64_t hash = arrow::internal::ComputeStringHash<0>(
                              value.data(), static_cast<int64_t>(value.size())) |
                          (uint64_t{1} << 63);
    for (uint64_t slot = Mix(hash) >> view_shift_;; slot = (slot + 1) & mask) {
      View& view = views_[slot];
      if (view.hash == hash && view.value == value) return;
      if (view.hash == 0) {
        view = View{hash, value};
        ++views_size_;
        NewEntry(4 + static_cast<int64_t>(value.size()));
        return;
      }
    }
  }

  struct View {
    uint64_t hash = 0;
    std::string_view value;
  };

  // Doubles an open-addressing table (1024 slots to begin with), whose slots with a zero
  // hash are empty.
  template <typename Slot, typename HashOf>
  static void Grow(std::vector<Slot>* slots, int* shift, HashOf hash_of) {
    std::vector<Slot> old = std::move(*slots);
    const size_t capacity = old.empty() ? 1024 : old.size() * 2;
    slots->assign(capacity, Slot{});
    *shift = 64 - std::countr_zero(capacity);
    for (const Slot& slot : old) {
      const uint64_t hash = hash_of(slot);
      if (hash == 0) continue;
      uint64_t at = Mix(hash) >> *shift;
      while (hash_of((*slots)[at]) != 0) at = (at + 1) & (capacity - 1);
      (*slots)[at] = slot;
    }
  }

  const int64_t values_;
  const int64_t plain_bytes_;
  const int64_t dictionary_limit_;
  int64_t entries_ = 0;
  int64_t entry_bytes_ = 0;
  bool lost_ = false;
  std::vector<uint64_t> keys_;
  size_t keys_size_ = 0;
  int shift_ = 0;
  bool has_zero_ = false;
  std::vector<View> views_;
  size_t views_size_ = 0;
  int view_shift_ = 0;
};

// A leaf's values in `column` (a top-level column's array), found by walking the leaf's
// Parquet path below the column: struct fields take their parents' nulls, lists and maps
// give their elements and entries (null and empty ones give none). Null when the arrays
// do not have the shape the path expects. Flattening allocates from `pool`.
arrow::Result<std::shared_ptr<arrow::Array>> LeafValues(
    std::shared_ptr<arrow::Array> values,
    const std::vector<const parquet::schema::Node*>& path, arrow::MemoryPool* pool) {
  for (size_t depth = 0; depth + 1 < path.size();) {
    const parquet::schema::Node& node = *path[depth];
    const auto& logical = node.logical_type();
    if (logical && (logical->is_list() || logical->is_map())) {
      // LIST and MAP groups hold one repeated group, whose children are the elements'
      // (or the entries') fields.
      if (values->type_id() != arrow::Type::LIST &&
          values->type_id() != arrow::Type::MAP) {
        return nullptr;
      }
      ARROW_ASSIGN_OR_RAISE(values,
                            static_cast<const arrow::ListArray&>(*values).Flatten(pool));
      if (depth + 2 >= path.size()) return nullptr;
      if (logical->is_list()) {
        depth += 2;  // the element
        continue;
      }
      depth += 1;  // the key_value group: the entries' struct
    }
    if (values->type_id() != arrow::Type::STRUCT) return nullptr;
    const auto& group = static_cast<const parquet::schema::GroupNode&>(*path[depth]);
    const int field = group.FieldIndex(*path[depth + 1]);
    const auto& fields = static_cast<const arrow::StructArray&>(*values);
    if (field < 0 || field >= fields.num_fields()) return nullptr;
    ARROW_ASSIGN_OR_RAISE(values, fields.GetFlattenedField(field));
    depth += 1;
  }
  return values;
}

// The columns parquet-java writes without a dictionary, as Parquet column paths:
// - fixed-length byte arrays (fixed, uuid, decimals past precision 18): its format-1.0
//   writer never gives them one;
// - columns whose first page, encoded as dictionary indices, plus the dictionary would
//   not be smaller than the page written plain (FallbackValuesWriter and
//   DictionaryValuesWriter.isCompressionSatisfying), or whose first page's dictionary
//   outgrows write.parquet.dict-size-bytes (it falls back before writing any page). A
//   first page ends at write.parquet.page-row-limit rows or write.parquet.page-size-bytes
//   of values; `first` holds the file's first rows, in pieces. The indices are costed
//   bit-packed (RLE runs of repeated values can only make them smaller, so a borderline
//   column may go plain where parquet-java keeps one).
// Arrow would keep every dictionary until it outgrows its page limit.
arrow::Result<std::vector<std::string>> ColumnsWithoutDictionary(
    const std::vector<std::shared_ptr<arrow::RecordBatch>>& first,
    const parquet::SchemaDescriptor& descriptor, const ParquetSettings& settings,
    arrow::MemoryPool* pool) {
  int64_t first_rows = 0;
  for (const auto& piece : first) first_rows += piece->num_rows();
  std::vector<std::string> plain;
  for (int leaf = 0; leaf < descriptor.num_columns(); ++leaf) {
    const parquet::ColumnDescriptor* column = descriptor.Column(leaf);
    const parquet::Type::type physical = column->physical_type();
    if (physical == parquet::Type::FIXED_LEN_BYTE_ARRAY) {
      plain.push_back(column->path()->ToDotString());
      continue;
    }
    if (first_rows == 0 || physical == parquet::Type::BOOLEAN) continue;  // no dictionary
    // The leaf's path from its top-level column down.
    std::vector<const parquet::schema::Node*> path;
    for (const parquet::schema::Node* node = column->schema_node().get();
         node->parent() != nullptr; node = node->parent()) {
      path.insert(path.begin(), node);
    }
    const int top = descriptor.group_node()->FieldIndex(*path.front());
    if (top < 0 || top >= first.front()->num_columns()) continue;
    const int width =
        physical == parquet::Type::INT32 || physical == parquet::Type::FLOAT ? 4 : 8;
    // The leaf's values in the first `rows` rows, with their count and plain size; false
    // when there is no dictionary to try.
    arrow::ArrayVector values;
    int64_t count = 0;
    int64_t plain_bytes = 0;
    auto gather = [&](int64_t rows) -> arrow::Result<bool> {
      values.clear();
      count = 0;
      plain_bytes = 0;
      for (const auto& piece : first) {
        if (rows <= 0) break;
        const int64_t taken = std::min(rows, piece->num_rows());
        rows -= taken;
        ARROW_ASSIGN_OR_RAISE(
            auto leaf_values,
            LeafValues(piece->column(top)->Slice(0, taken), path, pool));
        if (!leaf_values ||
            !DictionaryTrial::PlainSize(*leaf_values, width, &count, &plain_bytes)) {
          return false;
        }
        values.push_back(std::move(leaf_values));
      }
      return true;
    };
    int64_t rows = std::min(first_rows, settings.page_row_limit);
    ARROW_ASSIGN_OR_RAISE(bool known, gather(rows));
    if (!known) continue;
    if (plain_bytes > settings.page_size_bytes) {
      // The page fills up by size first: look at the rows that fit in it.
      rows = std::max<int64_t>(1, rows * settings.page_size_bytes / plain_bytes);
      ARROW_ASSIGN_OR_RAISE(known, gather(rows));
      if (!known) continue;
    }
    DictionaryTrial trial(count, plain_bytes, settings.dict_size_bytes);
    if (!trial.AddIfOrdered(values, width)) {
      for (const auto& array : values) trial.Add(*array, width);
    }
    if (!trial.Pays()) plain.push_back(column->path()->ToDotString());
  }
  return plain;
}

// Runs a call into Arrow's Parquet writer, turning an allocation refused by the write's
// memory limit into OutOfMemory: some of its buffers (std::vector with Arrow's pool
// allocator) report a refusal by throwing.
template <typename Call>
arrow::Status Guarded(Call&& call) {
  try {
    return call();
  } catch (const std::bad_alloc& error) {
    return arrow::Status::OutOfMemory(error.what());
  }
}

}  // namespace

arrow::Result<std::unique_ptr<ParquetFileWriter>> ParquetFileWriter::Open(
    std::shared_ptr<const ParquetWriteContext> context, std::string location) {
  std::unique_ptr<ParquetFileWriter> writer(new ParquetFileWriter());
  writer->context_ = std::move(context);
  writer->location_ = std::move(location);
  const auto& ctx = *writer->context_;
  ARROW_ASSIGN_OR_RAISE(auto file, ctx.io->OpenOutput(writer->location_));
  writer->stream_ =
      std::make_shared<TailHoldingStream>(std::move(file), writer->location_);
  // A pool of its own, so the open row group's buffered bytes can be measured.
  writer->pool_ = std::make_unique<arrow::ProxyMemoryPool>(ctx.pool);
  auto arrow_properties = parquet::ArrowWriterProperties::Builder().build();
  auto properties =
      ctx.settings.ToWriterProperties(ctx.nanosecond_timestamps, writer->pool_.get());
  // The Parquet schema: the context's root name, names Avro-compatible if it asks.
  std::shared_ptr<parquet::SchemaDescriptor> descriptor;
  FLOE_RETURN_NOT_OK_CONTEXT(
      parquet::arrow::ToParquetSchema(ctx.arrow_schema.get(), *properties,
                                      *arrow_properties, &descriptor),
      "data file " + writer->location_);
  writer->leaf_columns_ = descriptor->num_columns();
  writer->root_ = std::static_pointer_cast<parquet::schema::GroupNode>(
      Renamed(*descriptor->schema_root(), ctx.root_name, /*top=*/true,
              ctx.avro_compatible_names));
  writer->descriptor_ = std::make_shared<parquet::SchemaDescriptor>();
  try {
    writer->descriptor_->Init(writer->root_);
  } catch (const parquet::ParquetException& error) {
    return arrow::Status::IOError("opening data file ", writer->location_, ": ",
                                  error.what());
  }
  writer->floats_ = std::make_unique<FloatStatsTracker>(*ctx.arrow_schema);
  return writer;
}

arrow::Status ParquetFileWriter::StartWriting(
    const std::vector<std::shared_ptr<arrow::RecordBatch>>& first) {
  const auto& ctx = *context_;
  auto chosen = ColumnsWithoutDictionary(first, *descriptor_, ctx.settings, pool_.get());
  if (!chosen.ok()) return WithContext(chosen.status(), "data file " + location_);
  const std::vector<std::string>& plain_columns = *chosen;
  auto properties = ctx.settings.ToWriterProperties(ctx.nanosecond_timestamps,
                                                    pool_.get(), plain_columns);
  auto arrow_properties = parquet::ArrowWriterProperties::Builder().build();
  std::unique_ptr<parquet::ParquetFileWriter> file_writer;
  try {
    file_writer =
        parquet::ParquetFileWriter::Open(stream_, root_, properties, ctx.footer_metadata);
  } catch (const parquet::ParquetException& error) {
    return arrow::Status::IOError("opening data file ", location_, ": ", error.what());
  }
  FLOE_RETURN_NOT_OK_CONTEXT(Guarded([&] {
                               return parquet::arrow::FileWriter::Make(
                                   pool_.get(), std::move(file_writer), ctx.arrow_schema,
                                   arrow_properties, &writer_);
                             }),
                             "opening data file " + location_);
  FLOE_RETURN_NOT_OK_CONTEXT(Guarded([&] { return writer_->NewBufferedRowGroup(); }),
                             "data file " + location_);
  empty_row_group_bytes_ = pool_->bytes_allocated();
  return arrow::Status::OK();
}

ParquetFileWriter::~ParquetFileWriter() {
  if (!closed_) Abort();
}

arrow::Status ParquetFileWriter::Write(const arrow::RecordBatch& batch) {
  if (batch.num_rows() == 0) return arrow::Status::OK();
  row_count_ += batch.num_rows();
  if (writer_) return WriteRows(batch);
  // Until the file's first page of rows is in, its rows wait (copied into the file's
  // pool, so its length and buffered bytes count them), to choose the columns without a
  // dictionary from them as parquet-java does from its first page.
  ARROW_ASSIGN_OR_RAISE(
      auto copy,
      arrow::ConcatenateRecordBatches(
          {arrow::RecordBatch::Make(batch.schema(), batch.num_rows(), batch.columns())},
          pool_.get()));
  pending_.push_back(std::move(copy));
  pending_rows_ += batch.num_rows();
  if (pending_rows_ < context_->settings.page_row_limit) return arrow::Status::OK();
  return WritePending();
}

arrow::Status ParquetFileWriter::WritePending() {
  std::vector<std::shared_ptr<arrow::RecordBatch>> rows = std::move(pending_);
  pending_.clear();
  pending_rows_ = 0;
  ARROW_RETURN_NOT_OK(StartWriting(rows));
  for (const auto& piece : rows) ARROW_RETURN_NOT_OK(WriteRows(*piece));
  return arrow::Status::OK();
}

arrow::Status ParquetFileWriter::WriteRows(const arrow::RecordBatch& batch) {
  if (row_group_full_) {
    // Started only when rows follow, so no file ends with an empty row group.
    FLOE_RETURN_NOT_OK_CONTEXT(Guarded([&] { return writer_->NewBufferedRowGroup(); }),
                               "writing data file " + location_);
    row_group_full_ = false;
    row_group_rows_ = 0;
    empty_row_group_bytes_ = pool_->bytes_allocated();
  }
  floats_->Update(batch);
  column_nulls_.resize(static_cast<size_t>(batch.num_columns()), 0);
  for (int i = 0; i < batch.num_columns(); ++i) {
    column_nulls_[static_cast<size_t>(i)] += batch.column(i)->null_count();
  }
  FLOE_RETURN_NOT_OK_CONTEXT(Guarded([&] { return writer_->WriteRecordBatch(batch); }),
                             "writing data file " + location_);
  row_group_rows_ += batch.num_rows();
  // Cut the row group once its buffered bytes reach the target (iceberg-java checks its
  // buffered size the same way, at intervals).
  row_group_full_ = pool_->bytes_allocated() >= context_->settings.row_group_size_bytes;
  return arrow::Status::OK();
}

arrow::Status ParquetFileWriter::FlushRowGroup() {
  // Rows still waiting for their first page are written now, choosing from them.
  if (!writer_ && pending_rows_ > 0) ARROW_RETURN_NOT_OK(WritePending());
  if (!writer_ || row_group_rows_ == 0 || row_group_full_) return arrow::Status::OK();
  // Arrow writes the buffered row group out and opens the next one at once; if no row
  // follows, Close leaves that empty row group out of the footer.
  FLOE_RETURN_NOT_OK_CONTEXT(Guarded([&] { return writer_->NewBufferedRowGroup(); }),
                             "writing data file " + location_);
  row_group_rows_ = 0;
  empty_row_group_bytes_ = pool_->bytes_allocated();
  return arrow::Status::OK();
}

arrow::Result<int64_t> ParquetFileWriter::GrowthBound(
    const arrow::RecordBatch& rows) const {
  ARROW_ASSIGN_OR_RAISE(int64_t referenced, arrow::util::ReferencedBufferSize(rows));
  return 4 * referenced + 32 * leaf_columns_ * rows.num_rows() + (int64_t{1} << 20);
}

int64_t ParquetFileWriter::Length() const {
  auto position = stream_->Tell();
  return (position.ok() ? *position : 0) + pool_->bytes_allocated();
}

arrow::Result<WrittenParquetFile> ParquetFileWriter::Close() {
  if (!writer_) {
    // A file smaller than a page chooses from all its rows.
    ARROW_RETURN_NOT_OK(pending_rows_ > 0 ? WritePending() : StartWriting({}));
  }
  closed_ = true;
  // The open row group is empty when the last rows were written out early: its footer
  // entry is dropped (see TailHoldingStream).
  if (row_group_rows_ == 0 && !row_group_full_) ARROW_RETURN_NOT_OK(stream_->HoldTail());
  FLOE_RETURN_NOT_OK_CONTEXT(Guarded([&] { return writer_->Close(); }),
                             "closing data file " + location_);
  FLOE_RETURN_NOT_OK_CONTEXT(stream_->Close(), "closing data file " + location_);
  WrittenParquetFile file;
  file.location = location_;
  file.size = stream_->size();
  file.rows = row_count_;
  file.footer = writer_->metadata();
  file.float_stats = floats_->stats();
  file.column_null_counts = column_nulls_;
  file.column_null_counts.resize(
      static_cast<size_t>(context_->arrow_schema->num_fields()), 0);
  return file;
}

void ParquetFileWriter::Abort() {
  closed_ = true;
  pending_.clear();
  // Deliberately ignored: the file is being abandoned and its owner deletes whatever
  // reached storage (a stream that failed to abort says so itself: S3OutputStream logs
  // the upload it leaves). No stream when opening it was what failed.
  if (stream_) (void)stream_->Abort();
}

}  // namespace floe
