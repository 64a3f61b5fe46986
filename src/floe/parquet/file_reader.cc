#include "floe/parquet/file_reader.h"

#include <algorithm>
#include <utility>

#include "arrow/array.h"
#include "arrow/array/util.h"
#include "arrow/compute/api.h"
#include "arrow/extension_type.h"
#include "arrow/io/interfaces.h"
#include "floe/util/error.h"
#include "floe/util/field_id.h"
#include "parquet/arrow/reader.h"
#include "parquet/file_reader.h"
#include "parquet/metadata.h"
#include "parquet/statistics.h"

namespace floe {
namespace {

// A file that reports the size of every answer it reads.
class CountingFile final : public arrow::io::RandomAccessFile {
 public:
  CountingFile(std::shared_ptr<arrow::io::RandomAccessFile> inner,
               std::function<void(int64_t)> on_read)
      : inner_(std::move(inner)), on_read_(std::move(on_read)) {}
  arrow::Status Close() override { return inner_->Close(); }
  bool closed() const override { return inner_->closed(); }
  arrow::Result<int64_t> Tell() const override { return inner_->Tell(); }
  arrow::Status Seek(int64_t position) override { return inner_->Seek(position); }
  arrow::Result<int64_t> GetSize() override { return inner_->GetSize(); }
  arrow::Result<int64_t> Read(int64_t nbytes, void* out) override {
    ARROW_ASSIGN_OR_RAISE(int64_t read, inner_->Read(nbytes, out));
    on_read_(read);
    return read;
  }
  arrow::Result<std::shared_ptr<arrow::Buffer>> Read(int64_t nbytes) override {
    ARROW_ASSIGN_OR_RAISE(auto buffer, inner_->Read(nbytes));
    on_read_(buffer->size());
    return buffer;
  }
  arrow::Result<int64_t> ReadAt(int64_t position, int64_t nbytes, void* out) override {
    ARROW_ASSIGN_OR_RAISE(int64_t read, inner_->ReadAt(position, nbytes, out));
    on_read_(read);
    return read;
  }
  arrow::Result<std::shared_ptr<arrow::Buffer>> ReadAt(int64_t position,
                                                       int64_t nbytes) override {
    ARROW_ASSIGN_OR_RAISE(auto buffer, inner_->ReadAt(position, nbytes));
    on_read_(buffer->size());
    return buffer;
  }

 private:
  std::shared_ptr<arrow::io::RandomAccessFile> inner_;
  std::function<void(int64_t)> on_read_;
};

parquet::ReaderProperties VerifyingReaderProperties(bool verify) {
  parquet::ReaderProperties properties = parquet::default_reader_properties();
  // parquet-java (and floe) write a CRC-32 for every page; a page whose bytes changed
  // must fail the read, not decode into wrong values.
  properties.set_page_checksum_verification(verify);
  return properties;
}

// The batches of a file's selected row groups, one row group at a time. Arrow's reader
// over several row groups pre-buffers (when threaded) the column chunks of all of them
// before its first batch, so memory would grow with the file; one row group at a time
// still reads each group's chunks in coalesced requests. `file` outlives the reader.
class RowGroupsReader final : public arrow::RecordBatchReader {
 public:
  static arrow::Result<std::unique_ptr<RowGroupsReader>> Make(
      parquet::arrow::FileReader* file, std::vector<int> row_groups,
      std::vector<int> leaves) {
    std::unique_ptr<RowGroupsReader> reader(new RowGroupsReader());
    reader->file_ = file;
    reader->row_groups_ = std::move(row_groups);
    reader->leaves_ = std::move(leaves);
    ARROW_RETURN_NOT_OK(reader->OpenNext());  // the first group's reader gives the schema
    reader->schema_ = reader->current_->schema();
    return reader;
  }
  std::shared_ptr<arrow::Schema> schema() const override { return schema_; }
  arrow::Status ReadNext(std::shared_ptr<arrow::RecordBatch>* batch) override {
    while (true) {
      if (!current_) {
        if (next_ == row_groups_.size()) {
          *batch = nullptr;
          return arrow::Status::OK();
        }
        ARROW_RETURN_NOT_OK(OpenNext());
      }
      auto status = current_->ReadNext(batch);
      if (!status.ok()) return Diagnose(status);
      if (*batch) return arrow::Status::OK();
      current_.reset();
    }
  }

 private:
  RowGroupsReader() = default;

  // A page whose checksum does not match fails the read with Arrow's message, which
  // names neither the column nor the row group: read the group's columns one at a time
  // to find the one that fails, and say which.
  arrow::Status Diagnose(const arrow::Status& status) {
    if (status.message().find("CRC checksum verification failed") == std::string::npos)
      return status;
    const int row_group = row_groups_[next_ - 1];
    const auto& schema = *file_->parquet_reader()->metadata()->schema();
    for (int leaf : leaves_) {
      auto single = file_->GetRecordBatchReader({row_group}, {leaf});
      arrow::Status read = single.status();
      for (std::shared_ptr<arrow::RecordBatch> batch; read.ok();) {
        read = (*single)->ReadNext(&batch);
        if (!batch) break;
      }
      if (!read.ok()) {
        return arrow::Status::IOError(
            "column ", schema.Column(leaf)->path()->ToDotString(), " (row group ",
            row_group, ") is corrupt: a page's checksum does not match its bytes (",
            read.message(), ")");
      }
    }
    return arrow::Status::IOError("row group ", row_group,
                                  " is corrupt: a page's checksum does not match its "
                                  "bytes (",
                                  status.message(), ")");
  }
  arrow::Status OpenNext() {
    current_.reset();  // its buffered chunks go before the next group's are read
    ARROW_ASSIGN_OR_RAISE(current_,
                          file_->GetRecordBatchReader({row_groups_[next_++]}, leaves_));
    return arrow::Status::OK();
  }

  parquet::arrow::FileReader* file_ = nullptr;
  std::vector<int> row_groups_;
  std::vector<int> leaves_;
  size_t next_ = 0;
  std::unique_ptr<arrow::RecordBatchReader> current_;
  std::shared_ptr<arrow::Schema> schema_;
};

void CollectLeaves(const parquet::arrow::SchemaField& field, std::vector<int>* leaves) {
  if (field.is_leaf()) {
    leaves->push_back(field.column_index);
    return;
  }
  for (const auto& child : field.children) CollectLeaves(child, leaves);
}

void Reannotate(parquet::arrow::SchemaField* node,
                const std::shared_ptr<arrow::Field>& annotated) {
  node->field = annotated;
  for (size_t i = 0;
       i < node->children.size() && static_cast<int>(i) < annotated->type()->num_fields();
       ++i) {
    Reannotate(&node->children[i], annotated->type()->field(static_cast<int>(i)));
  }
}

bool AnyFieldId(const std::vector<parquet::arrow::SchemaField>& fields) {
  for (const auto& field : fields) {
    if (ArrowFieldId(*field.field) >= 0 || AnyFieldId(field.children)) return true;
  }
  return false;
}

// The type a field is asked for as: an extension type's storage.
const arrow::DataType& Storage(const arrow::DataType& type) {
  if (type.id() == arrow::Type::EXTENSION)
    return *static_cast<const arrow::ExtensionType&>(type).storage_type();
  return type;
}

bool IsList(arrow::Type::type id) {
  return id == arrow::Type::LIST || id == arrow::Type::LARGE_LIST ||
         id == arrow::Type::LIST_VIEW || id == arrow::Type::LARGE_LIST_VIEW;
}

bool IsNested(arrow::Type::type id) {
  return id == arrow::Type::STRUCT || id == arrow::Type::MAP || IsList(id);
}

arrow::Result<std::shared_ptr<arrow::Array>> ProjectStruct(
    const std::shared_ptr<arrow::Array>& array, const arrow::Field& target,
    ParquetColumnMatch match, const std::string& path) {
  const auto& target_type = target.type();
  const auto& source = static_cast<const arrow::StructArray&>(*array);
  const auto& source_type = static_cast<const arrow::StructType&>(*array->type());
  arrow::ArrayVector children;
  for (const auto& child : target_type->fields()) {
    std::shared_ptr<arrow::Array> column;
    for (int i = 0; i < source_type.num_fields(); ++i) {
      if (MatchesField(*source_type.field(i), *child, match)) column = source.field(i);
    }
    if (!column) {
      ARROW_ASSIGN_OR_RAISE(column,
                            arrow::MakeArrayOfNull(child->type(), source.length()));
    } else {
      ARROW_ASSIGN_OR_RAISE(
          column, ProjectColumn(column, *child, match, path + "." + child->name()));
    }
    children.push_back(std::move(column));
  }
  auto data = arrow::ArrayData::Make(
      target_type, source.length(),
      {source.null_count() > 0 ? source.data()->buffers[0] : nullptr},
      source.null_count(), source.offset());
  // Children of field() are already offset-adjusted; rebase the parent at offset 0.
  if (source.offset() != 0 && source.null_count() > 0) {
    ARROW_ASSIGN_OR_RAISE(auto valid, arrow::compute::IsValid(array));
    data->buffers[0] = valid.make_array()->data()->buffers[1];
  }
  data->offset = 0;
  for (const auto& child : children) data->child_data.push_back(child->data());
  return arrow::MakeArray(data);
}

arrow::Result<std::shared_ptr<arrow::Array>> ProjectListOrMap(
    const std::shared_ptr<arrow::Array>& array, const arrow::Field& target,
    ParquetColumnMatch match, const std::string& path) {
  const auto& target_type = target.type();
  // Files written from large or view lists read back as those types (the footer keeps
  // the writer's Arrow schema); bring them to the 32-bit offsets asked for.
  if (array->type_id() != target_type->id()) {
    std::shared_ptr<arrow::DataType> plain = target_type->id() == arrow::Type::LIST
                                                 ? arrow::list(array->type()->field(0))
                                                 : array->type();
    ARROW_ASSIGN_OR_RAISE(auto converted, arrow::compute::Cast(*array, plain));
    return ProjectColumn(converted, target, match, path);
  }
  const auto& source = static_cast<const arrow::ListArray&>(*array);
  std::shared_ptr<arrow::Array> values;
  if (target_type->id() == arrow::Type::LIST) {
    ARROW_ASSIGN_OR_RAISE(values, ProjectColumn(source.values(), *target_type->field(0),
                                                match, path + ".element"));
  } else {
    const auto& entries = static_cast<const arrow::StructArray&>(*source.values());
    const auto& map = static_cast<const arrow::MapType&>(*target_type);
    ARROW_ASSIGN_OR_RAISE(auto keys, ProjectColumn(entries.field(0), *map.key_field(),
                                                   match, path + ".key"));
    ARROW_ASSIGN_OR_RAISE(auto items, ProjectColumn(entries.field(1), *map.item_field(),
                                                    match, path + ".value"));
    ARROW_ASSIGN_OR_RAISE(
        values, arrow::StructArray::Make({keys, items}, map.value_type()->fields()));
  }
  auto data = array->data()->Copy();
  data->type = target_type;
  data->child_data = {values->data()};
  return arrow::MakeArray(data);
}

// A numeric or boolean chunk's bounds, as its typed statistics hold them.
template <typename Typed>
void SetBounds(const parquet::Statistics& statistics, ParquetLeafStats* stats) {
  const auto& typed = static_cast<const Typed&>(statistics);
  stats->min = typed.min();
  stats->max = typed.max();
}

}  // namespace

int64_t RowGroupStart(const parquet::RowGroupMetaData& row_group) {
  if (row_group.num_columns() == 0) return 0;
  auto first = row_group.ColumnChunk(0);
  int64_t start = first->data_page_offset();
  if (first->has_dictionary_page() && first->dictionary_page_offset() > 0) {
    start = std::min(start, first->dictionary_page_offset());
  }
  return start;
}

std::optional<ParquetLeafStats> DecodeLeafStats(const parquet::ColumnChunkMetaData& chunk,
                                                const parquet::ColumnDescriptor& column) {
  if (!chunk.is_stats_set()) return std::nullopt;
  auto statistics = chunk.statistics();
  if (!statistics) return std::nullopt;
  ParquetLeafStats stats;
  if (statistics->HasNullCount()) stats.null_count = statistics->null_count();
  stats.value_count = statistics->num_values();
  stats.physical_type = column.physical_type();
  stats.logical_type = column.logical_type();
  stats.type_length = column.type_length();
  if (!statistics->HasMinMax()) return stats;
  auto bytes = [](const uint8_t* data, size_t size) {
    return std::string(reinterpret_cast<const char*>(data), size);
  };
  switch (column.physical_type()) {
    case parquet::Type::BOOLEAN:
      SetBounds<parquet::BoolStatistics>(*statistics, &stats);
      break;
    case parquet::Type::INT32:
      SetBounds<parquet::Int32Statistics>(*statistics, &stats);
      break;
    case parquet::Type::INT64:
      SetBounds<parquet::Int64Statistics>(*statistics, &stats);
      break;
    case parquet::Type::FLOAT:
      SetBounds<parquet::FloatStatistics>(*statistics, &stats);
      break;
    case parquet::Type::DOUBLE:
      SetBounds<parquet::DoubleStatistics>(*statistics, &stats);
      break;
    case parquet::Type::BYTE_ARRAY: {
      const auto& typed = static_cast<const parquet::ByteArrayStatistics&>(*statistics);
      stats.min = bytes(typed.min().ptr, typed.min().len);
      stats.max = bytes(typed.max().ptr, typed.max().len);
      break;
    }
    case parquet::Type::FIXED_LEN_BYTE_ARRAY: {
      const auto& typed = static_cast<const parquet::FLBAStatistics&>(*statistics);
      const auto length = static_cast<size_t>(column.type_length());
      stats.min = bytes(typed.min().ptr, length);
      stats.max = bytes(typed.max().ptr, length);
      break;
    }
    default:  // INT96 and anything newer: no bounds
      break;
  }
  return stats;
}

arrow::Result<std::unique_ptr<ParquetFileReader>> ParquetFileReader::Open(
    FileIO& io, const std::string& location, const ParquetReadOptions& options) {
  std::unique_ptr<ParquetFileReader> file(new ParquetFileReader());
  file->location_ = location;
  auto opened = options.file_size ? io.OpenInputOfSize(location, *options.file_size)
                                  : io.OpenInput(location);
  if (!opened.ok())
    return WithContext(opened.status(), "reading a data file of the table");
  std::shared_ptr<arrow::io::RandomAccessFile> input = *opened;
  if (options.on_read) input = std::make_shared<CountingFile>(input, options.on_read);
  parquet::arrow::FileReaderBuilder builder;
  FLOE_RETURN_NOT_OK_CONTEXT(
      builder.Open(input, VerifyingReaderProperties(options.verify_page_checksums)),
      "data file " + location);
  parquet::ArrowReaderProperties properties;
  properties.set_batch_size(options.batch_size);
  properties.set_use_threads(options.use_threads);
  properties.set_pre_buffer(options.use_threads);
  builder.properties(properties);
  FLOE_RETURN_NOT_OK_CONTEXT(builder.Build(&file->reader_), "data file " + location);
  file->fields_ = file->reader_->manifest().schema_fields;
  return file;
}

ParquetFileReader::~ParquetFileReader() = default;

const parquet::FileMetaData& ParquetFileReader::metadata() const {
  return *reader_->parquet_reader()->metadata();
}

bool ParquetFileReader::HasFieldIds() const { return AnyFieldId(fields_); }

void ParquetFileReader::Annotate(const std::function<std::shared_ptr<arrow::Field>(
                                     const std::shared_ptr<arrow::Field>&)>& annotate) {
  for (auto& field : fields_) Reannotate(&field, annotate(field.field));
}

arrow::Result<std::unique_ptr<arrow::RecordBatchReader>> ParquetFileReader::ReadRowGroups(
    std::vector<int> row_groups, std::vector<int> leaves) {
  if (row_groups.empty() || leaves.empty()) {
    return arrow::Status::Invalid("reading data file ", location_,
                                  ": no row group or no column selected");
  }
  auto reader =
      RowGroupsReader::Make(reader_.get(), std::move(row_groups), std::move(leaves));
  if (!reader.ok()) return WithContext(reader.status(), "data file " + location_);
  return std::unique_ptr<arrow::RecordBatchReader>(std::move(*reader));
}

bool MatchesField(const arrow::Field& file_field, const arrow::Field& wanted,
                  ParquetColumnMatch match) {
  if (match == ParquetColumnMatch::kName) return file_field.name() == wanted.name();
  const int id = ArrowFieldId(wanted);
  return id >= 0 && ArrowFieldId(file_field) == id;
}

void SelectLeaves(const parquet::arrow::SchemaField& file_field,
                  const arrow::Field& wanted, ParquetColumnMatch match,
                  std::vector<int>* leaves) {
  if (file_field.is_leaf()) {
    leaves->push_back(file_field.column_index);
    return;
  }
  const arrow::DataType& type = Storage(*wanted.type());
  switch (type.id()) {
    case arrow::Type::STRUCT: {
      size_t before = leaves->size();
      for (const auto& child : file_field.children) {
        for (const auto& wanted_child : type.fields()) {
          if (MatchesField(*child.field, *wanted_child, match))
            SelectLeaves(child, *wanted_child, match, leaves);
        }
      }
      if (leaves->size() == before && !file_field.children.empty()) {
        const parquet::arrow::SchemaField* first = &file_field.children.front();
        while (!first->is_leaf() && !first->children.empty())
          first = &first->children.front();
        if (first->is_leaf()) leaves->push_back(first->column_index);
      }
      return;
    }
    case arrow::Type::LIST:
      if (file_field.children.size() == 1) {
        SelectLeaves(file_field.children[0], *type.field(0), match, leaves);
        return;
      }
      break;
    case arrow::Type::MAP: {
      const parquet::arrow::SchemaField* entries =
          file_field.children.size() == 1 ? &file_field.children[0] : &file_field;
      if (entries->children.size() == 2) {
        const auto& map = static_cast<const arrow::MapType&>(type);
        CollectLeaves(entries->children[0], leaves);  // keys, always whole
        SelectLeaves(entries->children[1], *map.item_field(), match, leaves);
        return;
      }
      break;
    }
    default:
      break;
  }
  CollectLeaves(file_field, leaves);
}

int FindLeafColumn(const std::vector<parquet::arrow::SchemaField>& fields, int field_id) {
  for (const auto& field : fields) {
    if (field.is_leaf() && ArrowFieldId(*field.field) == field_id)
      return field.column_index;
    // Filters never reach into lists or maps: only descend through structs.
    if (!field.is_leaf() && field.field->type()->id() == arrow::Type::STRUCT) {
      int found = FindLeafColumn(field.children, field_id);
      if (found >= 0) return found;
    }
  }
  return -1;
}

int FindLeafColumn(const std::vector<parquet::arrow::SchemaField>& fields,
                   const std::vector<std::string>& path) {
  const std::vector<parquet::arrow::SchemaField>* level = &fields;
  for (size_t depth = 0; depth < path.size(); ++depth) {
    const parquet::arrow::SchemaField* next = nullptr;
    for (const auto& field : *level) {
      if (field.field->name() == path[depth]) next = &field;
    }
    if (next == nullptr) return -1;
    const bool last = depth + 1 == path.size();
    if (last) return next->is_leaf() ? next->column_index : -1;
    if (next->is_leaf() || next->field->type()->id() != arrow::Type::STRUCT) return -1;
    level = &next->children;
  }
  return -1;
}

arrow::Result<std::shared_ptr<arrow::Array>> ProjectColumn(
    const std::shared_ptr<arrow::Array>& array, const arrow::Field& target,
    ParquetColumnMatch match, const std::string& path) {
  const auto& target_type = target.type();
  if (target_type->id() == arrow::Type::EXTENSION) {
    const auto& extension = static_cast<const arrow::ExtensionType&>(*target_type);
    std::shared_ptr<arrow::Array> storage = array;
    if (storage->type_id() == arrow::Type::EXTENSION) {
      storage = static_cast<const arrow::ExtensionArray&>(*storage).storage();
    }
    ARROW_ASSIGN_OR_RAISE(
        storage,
        ProjectColumn(storage, *target.WithType(extension.storage_type()), match, path));
    return arrow::ExtensionType::WrapArray(target_type, storage);
  }
  // A nested column must be nested the same way in the file: a file whose column holds
  // another shape (a foreign or corrupt writer) is an error, not a cast.
  const arrow::Type::type source_id = array->type_id();
  const arrow::Type::type target_id = target_type->id();
  const bool same_shape = target_id == arrow::Type::STRUCT
                              ? source_id == arrow::Type::STRUCT
                          : target_id == arrow::Type::LIST ? IsList(source_id)
                          : target_id == arrow::Type::MAP  ? source_id == arrow::Type::MAP
                                                           : !IsNested(source_id);
  if (!same_shape) {
    return MakeError(ErrorKind::kInvalidMetadata,
                     "column " + path + " has type " + array->type()->ToString() +
                         " in the data file, which cannot be read as " +
                         target_type->ToString());
  }
  switch (target_id) {
    case arrow::Type::STRUCT:
      return ProjectStruct(array, target, match, path);
    case arrow::Type::LIST:
    case arrow::Type::MAP:
      return ProjectListOrMap(array, target, match, path);
    default: {
      if (array->type()->Equals(*target_type)) return array;
      auto cast =
          arrow::compute::Cast(*array, target_type, arrow::compute::CastOptions::Safe());
      if (!cast.ok()) return WithContext(cast.status(), "column " + path);
      return *cast;
    }
  }
}

}  // namespace floe
