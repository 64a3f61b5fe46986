#include "floe/cli/output.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>

#include <nlohmann/json.hpp>

#include "arrow/array.h"
#include "arrow/builder.h"
#include "arrow/csv/writer.h"
#include "arrow/io/file.h"
#include "arrow/ipc/writer.h"
#include "floe/types/arrow_value.h"
#include "floe/util/date_time.h"
#include "floe/util/error.h"
#include "floe/util/java_text.h"
#include "floe/util/text.h"
#include "floe/util/uuid.h"
#include "parquet/arrow/writer.h"

namespace floe::cli {
namespace {

// An Arrow output stream that writes to a std::ostream (stdout or a file).
class StreamSink final : public arrow::io::OutputStream {
 public:
  explicit StreamSink(std::ostream* out) : out_(out) {}
  arrow::Status Close() override {
    closed_ = true;
    out_->flush();
    return arrow::Status::OK();
  }
  bool closed() const override { return closed_; }
  arrow::Result<int64_t> Tell() const override { return position_; }
  arrow::Status Write(const void* data, int64_t nbytes) override {
    out_->write(static_cast<const char*>(data), nbytes);
    position_ += nbytes;
    return out_->good() ? arrow::Status::OK()
                        : arrow::Status::IOError("write to output failed");
  }

 private:
  std::ostream* out_;
  int64_t position_ = 0;
  bool closed_ = false;
};

std::string FloatText(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "Infinity" : "-Infinity";
  char buffer[64];
  auto [end, error] = std::to_chars(buffer, buffer + sizeof(buffer), value);
  return std::string(buffer, end);
}

std::string Hex(const Bytes& bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string text;
  for (uint8_t byte : bytes) {
    text.push_back(kHex[byte >> 4]);
    text.push_back(kHex[byte & 0x0F]);
  }
  return text;
}

std::string UuidText(const Bytes& bytes) {
  std::string hex = Hex(bytes);
  if (hex.size() != 32) return hex;
  return hex.substr(0, 8) + "-" + hex.substr(8, 4) + "-" + hex.substr(12, 4) + "-" +
         hex.substr(16, 4) + "-" + hex.substr(20);
}

// A primitive value as text; `quote` wraps strings for nested displays.
std::string PrimitiveText(const Value& value, const Type& type) {
  if (IsNull(value)) return "null";
  switch (type.id()) {
    case TypeId::kFloat:
      return FloatText(std::get<float>(value));
    case TypeId::kDouble:
      return FloatText(std::get<double>(value));
    case TypeId::kTime:
      return FormatLocalTime(std::get<int64_t>(value));
    case TypeId::kTimestamp:
      return FormatIsoDateTime(std::get<int64_t>(value), 1000000);
    case TypeId::kTimestampTz:
      return FormatIsoDateTime(std::get<int64_t>(value), 1000000) + "+00:00";
    case TypeId::kTimestampNs:
      return FormatIsoDateTime(std::get<int64_t>(value), 1000000000);
    case TypeId::kTimestampTzNs:
      return FormatIsoDateTime(std::get<int64_t>(value), 1000000000) + "+00:00";
    case TypeId::kUuid:
      return UuidText(std::get<Bytes>(value));
    case TypeId::kBinary:
    case TypeId::kFixed: {
      const auto& bytes = std::get<Bytes>(value);
      return Base64Encode(
          std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
    }
    default:
      return ValueToString(value, type);
  }
}

// Width on a terminal, counting code points rather than bytes.
size_t DisplayWidth(const std::string& text) {
  size_t width = 0;
  for (char c : text) {
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++width;
  }
  return width;
}

// The longest prefix of `text` that fits `width` code points.
std::string Clip(const std::string& text, size_t width) {
  size_t count = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) {
      if (count == width) return text.substr(0, i);
      ++count;
    }
  }
  return text;
}

nlohmann::ordered_json JsonValue(const arrow::Array& array, int64_t row,
                                 const Type& type) {
  if (array.IsNull(row)) return nullptr;
  switch (type.id()) {
    case TypeId::kStruct: {
      const auto& struct_array = static_cast<const arrow::StructArray&>(array);
      nlohmann::ordered_json object = nlohmann::ordered_json::object();
      const auto& fields = static_cast<const StructType&>(type).fields();
      for (size_t i = 0; i < fields.size(); ++i) {
        object[fields[i].name] =
            JsonValue(*struct_array.field(static_cast<int>(i)), row, *fields[i].type);
      }
      return object;
    }
    case TypeId::kList: {
      const auto& list = static_cast<const arrow::ListArray&>(array);
      const auto& element = static_cast<const ListType&>(type).element();
      nlohmann::ordered_json items = nlohmann::ordered_json::array();
      for (int64_t i = list.value_offset(row); i < list.value_offset(row + 1); ++i) {
        items.push_back(JsonValue(*list.values(), i, *element.type));
      }
      return items;
    }
    case TypeId::kMap: {
      const auto& map = static_cast<const arrow::MapArray&>(array);
      const auto& map_type = static_cast<const MapType&>(type);
      nlohmann::ordered_json entries = nlohmann::ordered_json::array();
      for (int64_t i = map.value_offset(row); i < map.value_offset(row + 1); ++i) {
        nlohmann::ordered_json entry;
        entry["key"] = JsonValue(*map.keys(), i, *map_type.key().type);
        entry["value"] = JsonValue(*map.items(), i, *map_type.value().type);
        entries.push_back(std::move(entry));
      }
      return entries;
    }
    default:
      break;
  }
  auto value = ValueFromArrow(array, row, type);
  if (!value.ok()) return "?";
  switch (type.id()) {
    case TypeId::kBoolean:
      return std::get<bool>(*value);
    case TypeId::kInt:
      return std::get<int32_t>(*value);
    case TypeId::kLong:
      return std::get<int64_t>(*value);
    case TypeId::kFloat:
    case TypeId::kDouble: {
      double number = type.id() == TypeId::kFloat ? std::get<float>(*value)
                                                  : std::get<double>(*value);
      if (std::isfinite(number)) return number;
      return PrimitiveText(*value, type);
    }
    default:
      return PrimitiveText(*value, type);
  }
}

// Whether CSV output spells a column's values as the table output does (binary and fixed
// in base64, uuids in their 8-4-4-4-12 form) rather than leaving them to Arrow's CSV
// writer, which takes only UTF-8 text.
bool CsvSpellsOut(const Type& type) {
  return type.id() == TypeId::kBinary || type.id() == TypeId::kFixed ||
         type.id() == TypeId::kUuid;
}

// `batch` with the columns CsvSpellsOut names as text.
arrow::Result<std::shared_ptr<arrow::RecordBatch>> CsvReady(
    const std::shared_ptr<arrow::RecordBatch>& batch, const Schema& schema,
    const std::shared_ptr<arrow::Schema>& csv_schema) {
  arrow::ArrayVector columns = batch->columns();
  for (size_t c = 0; c < schema.fields().size(); ++c) {
    const Type& type = *schema.fields()[c].type;
    if (!CsvSpellsOut(type)) continue;
    const arrow::Array& values = *columns[c];
    arrow::StringBuilder text;
    ARROW_RETURN_NOT_OK(text.Reserve(values.length()));
    for (int64_t row = 0; row < values.length(); ++row) {
      if (values.IsNull(row)) {
        ARROW_RETURN_NOT_OK(text.AppendNull());
        continue;
      }
      ARROW_ASSIGN_OR_RAISE(auto value, ValueFromArrow(values, row, type));
      ARROW_RETURN_NOT_OK(text.Append(PrimitiveText(value, type)));
    }
    ARROW_ASSIGN_OR_RAISE(columns[c], text.Finish());
  }
  return arrow::RecordBatch::Make(csv_schema, batch->num_rows(), std::move(columns));
}

arrow::Result<int64_t> WriteTable(arrow::RecordBatchReader& reader, const Schema& schema,
                                  int64_t limit, std::ostream& out) {
  const auto& fields = schema.fields();
  std::vector<std::vector<std::string>> rows;
  int64_t total = 0;
  std::shared_ptr<arrow::RecordBatch> batch;
  while (true) {
    ARROW_RETURN_NOT_OK(reader.ReadNext(&batch));
    if (!batch) break;
    for (int64_t row = 0; row < batch->num_rows(); ++row, ++total) {
      if (total >= limit) continue;
      std::vector<std::string> cells;
      for (size_t column = 0; column < fields.size(); ++column) {
        // The text table is for a terminal: values cannot carry escape sequences to it.
        cells.push_back(Printable(FormatValue(*batch->column(static_cast<int>(column)),
                                              row, *fields[column].type)));
      }
      rows.push_back(std::move(cells));
    }
  }
  std::vector<size_t> widths;
  for (const auto& field : fields) widths.push_back(DisplayWidth(Printable(field.name)));
  for (const auto& row : rows) {
    for (size_t i = 0; i < row.size(); ++i) {
      widths[i] = std::max(widths[i], std::min<size_t>(DisplayWidth(row[i]), 60));
    }
  }
  auto print_row = [&](const std::vector<std::string>& cells) {
    for (size_t i = 0; i < cells.size(); ++i) {
      std::string cell =
          DisplayWidth(cells[i]) > 60 ? Clip(cells[i], 57) + "..." : cells[i];
      out << (i == 0 ? "" : " | ") << cell
          << std::string(widths[i] - std::min(widths[i], DisplayWidth(cell)), ' ');
    }
    out << "\n";
  };
  std::vector<std::string> header;
  for (const auto& field : fields) header.push_back(Printable(field.name));
  print_row(header);
  for (size_t i = 0; i < widths.size(); ++i)
    out << (i == 0 ? "" : "-+-") << std::string(widths[i], '-');
  out << "\n";
  for (const auto& row : rows) print_row(row);
  out << "(" << total << " row" << (total == 1 ? "" : "s");
  if (total > static_cast<int64_t>(rows.size())) out << ", showing " << rows.size();
  out << ")\n";
  return total;
}

}  // namespace

std::string FormatValue(const arrow::Array& array, int64_t row, const Type& type) {
  if (type.is_nested()) return JsonValue(array, row, type).dump();
  auto value = ValueFromArrow(array, row, type);
  if (!value.ok()) return "?";
  return PrimitiveText(*value, type);
}

arrow::Result<int64_t> WriteRows(arrow::RecordBatchReader& reader, const Schema& schema,
                                 const OutputOptions& options, std::ostream& out) {
  int64_t limit = options.limit.value_or(std::numeric_limits<int64_t>::max());
  if (options.format == "table") {
    return WriteTable(reader, schema, options.limit.value_or(100), out);
  }
  if (options.format == "jsonl") {
    int64_t written = 0;
    std::shared_ptr<arrow::RecordBatch> batch;
    while (written < limit) {
      ARROW_RETURN_NOT_OK(reader.ReadNext(&batch));
      if (!batch) break;
      for (int64_t row = 0; row < batch->num_rows() && written < limit;
           ++row, ++written) {
        nlohmann::ordered_json object = nlohmann::ordered_json::object();
        for (size_t i = 0; i < schema.fields().size(); ++i) {
          object[schema.fields()[i].name] = JsonValue(*batch->column(static_cast<int>(i)),
                                                      row, *schema.fields()[i].type);
        }
        out << object.dump(-1, ' ', false,
                           nlohmann::ordered_json::error_handler_t::replace)
            << "\n";
      }
    }
    return written;
  }
  if (options.format == "csv") {
    for (const auto& field : schema.fields()) {
      if (field.type->is_nested()) {
        return MakeError(ErrorKind::kInvalidInput,
                         "column '" + field.name +
                             "' is nested, which CSV cannot hold: use "
                             "--format jsonl or parquet, or --columns");
      }
    }
    arrow::FieldVector csv_fields = reader.schema()->fields();
    for (size_t c = 0; c < schema.fields().size(); ++c) {
      if (CsvSpellsOut(*schema.fields()[c].type))
        csv_fields[c] = csv_fields[c]->WithType(arrow::utf8());
    }
    auto csv_schema = arrow::schema(std::move(csv_fields));
    auto sink = std::make_shared<StreamSink>(&out);
    ARROW_ASSIGN_OR_RAISE(auto writer, arrow::csv::MakeCSVWriter(sink, csv_schema));
    int64_t written = 0;
    std::shared_ptr<arrow::RecordBatch> batch;
    while (written < limit) {
      ARROW_RETURN_NOT_OK(reader.ReadNext(&batch));
      if (!batch) break;
      if (batch->num_rows() > limit - written) batch = batch->Slice(0, limit - written);
      ARROW_ASSIGN_OR_RAISE(batch, CsvReady(batch, schema, csv_schema));
      ARROW_RETURN_NOT_OK(writer->WriteRecordBatch(*batch));
      written += batch->num_rows();
    }
    ARROW_RETURN_NOT_OK(writer->Close());
    return written;
  }
  if (options.format == "parquet") {
    if (options.path.empty()) {
      return MakeError(ErrorKind::kInvalidInput, "--format parquet needs --output PATH");
    }
    for (const auto& field : schema.fields()) {
      if (field.type->id() == TypeId::kStruct &&
          static_cast<const StructType&>(*field.type).fields().empty()) {
        return MakeError(ErrorKind::kInvalidInput,
                         "column '" + field.name +
                             "' is a struct without fields (the _partition of an "
                             "unpartitioned table), which Parquet cannot hold: use "
                             "--format jsonl, or --columns");
      }
    }
    ARROW_ASSIGN_OR_RAISE(auto file, arrow::io::FileOutputStream::Open(options.path));
    ARROW_ASSIGN_OR_RAISE(auto writer,
                          parquet::arrow::FileWriter::Open(
                              *reader.schema(), arrow::default_memory_pool(), file));
    int64_t written = 0;
    std::shared_ptr<arrow::RecordBatch> batch;
    while (written < limit) {
      ARROW_RETURN_NOT_OK(reader.ReadNext(&batch));
      if (!batch) break;
      if (batch->num_rows() > limit - written) batch = batch->Slice(0, limit - written);
      ARROW_RETURN_NOT_OK(writer->WriteRecordBatch(*batch));
      written += batch->num_rows();
    }
    ARROW_RETURN_NOT_OK(writer->Close());
    ARROW_RETURN_NOT_OK(file->Close());
    return written;
  }
  return MakeError(
      ErrorKind::kInvalidInput,
      "--format must be table, csv, jsonl or parquet, not '" + options.format + "'");
}

arrow::Result<std::unique_ptr<ReplacingOutput>> ReplacingOutput::Make(
    const std::string& target) {
  namespace fs = std::filesystem;
  std::error_code error;
  const auto status = fs::status(target, error);  // follows links
  if (fs::is_directory(status)) {
    return MakeError(ErrorKind::kInvalidInput, "--output " + target + " is a directory");
  }
  if (fs::exists(status) && !fs::is_regular_file(status)) {
    // A device, FIFO or socket (/dev/null, a pipe): written in place, never replaced.
    return std::unique_ptr<ReplacingOutput>(new ReplacingOutput(target, target, false));
  }
  // An existing file is replaced where it really is (a link to it stays a link).
  fs::path path = fs::exists(status) ? fs::canonical(target, error) : fs::path(target);
  if (error) path = target;
  fs::path directory = path.has_parent_path() ? path.parent_path() : fs::path(".");
  if (!fs::is_directory(directory, error)) {
    return MakeError(ErrorKind::kInvalidInput, "cannot write --output " + target +
                                                   ": directory " + directory.string() +
                                                   " does not exist");
  }
  std::string temporary = (directory / ("." + path.filename().string() + "." +
                                        Uuid::Random().ToString() + ".floe-tmp"))
                              .string();
  return std::unique_ptr<ReplacingOutput>(
      new ReplacingOutput(path.string(), temporary, true));
}

ReplacingOutput::~ReplacingOutput() {
  if (committed_ || !replaces_) return;
  std::error_code ignored;  // best effort: the file is ours alone
  std::filesystem::remove(temporary_, ignored);
}

arrow::Status ReplacingOutput::Commit() {
  if (!replaces_) return arrow::Status::OK();
  std::error_code error;
  // The replacement keeps the replaced file's permissions.
  auto old = std::filesystem::status(target_, error);
  if (!error && std::filesystem::exists(old))
    std::filesystem::permissions(temporary_, old.permissions(), error);
  std::filesystem::rename(temporary_, target_, error);
  if (error) {
    return arrow::Status::IOError("cannot replace ", target_,
                                  " with the scan's output: ", error.message());
  }
  committed_ = true;
  return arrow::Status::OK();
}

arrow::Status WriteFailed(const std::string& where) {
  int error = errno;
  return arrow::Status::IOError("writing to ", where, " failed",
                                error ? std::string(": ") + std::strerror(error) : "");
}

arrow::Status CheckOutputOutsideTables(const std::string& path,
                                       const std::vector<std::string>& protected_folders,
                                       const std::vector<std::string>& protected_files) {
  namespace fs = std::filesystem;
  std::error_code error;
  // Where the bytes would land: an existing file (through any links) or the new name in
  // its folder (through any links).
  fs::path target = fs::weakly_canonical(fs::absolute(path, error), error);
  if (error) target = fs::absolute(path, error);
  auto refuse = [&](const std::string& what) {
    return MakeError(ErrorKind::kInvalidInput,
                     "--output " + Printable(path) + " would overwrite " + what +
                         ": write the rows outside every table's folders");
  };
  auto resolved = [&](const std::string& location) {
    std::error_code ignored;
    fs::path local = location.starts_with("file://") ? fs::path(location.substr(7))
                                                     : fs::path(location);
    fs::path canonical = fs::weakly_canonical(fs::absolute(local, ignored), ignored);
    return ignored ? local : canonical;
  };
  auto within = [](const fs::path& folder, const fs::path& file) {
    auto relative = file.lexically_relative(folder);
    return !relative.empty() && *relative.begin() != "..";
  };
  for (const auto& file : protected_files) {
    if (file.find("://") != std::string::npos && !file.starts_with("file://")) continue;
    const fs::path database = resolved(file);
    for (const char* suffix : {"", "-wal", "-shm", "-journal"}) {
      if (target == fs::path(database.string() + suffix))
        return refuse("the catalog's file " + Printable(database.string() + suffix));
    }
  }
  // Scan output is never a database: whatever SQLite database it would replace (a
  // catalog's, when the catalog was not opened for this scan) stays. Only a regular file
  // is looked into (opening a FIFO to read would wait for a writer).
  std::error_code regular_error;
  if (fs::is_regular_file(target, regular_error)) {
    std::ifstream existing(target, std::ios::binary);
    char header[16] = {};
    existing.read(header, sizeof(header));
    if (existing.gcount() == sizeof(header) &&
        std::string_view(header, sizeof(header)) ==
            std::string_view("SQLite format 3\0", 16)) {
      return refuse("a SQLite database (" + Printable(target.string()) + ")");
    }
  }
  for (const auto& folder : protected_folders) {
    if (folder.empty()) continue;
    if (folder.find("://") != std::string::npos && !folder.starts_with("file://"))
      continue;
    const fs::path root = resolved(folder);
    if (within(root, target)) return refuse("a file inside " + Printable(root.string()));
  }
  for (fs::path folder = target.parent_path(); !folder.empty();
       folder = folder.parent_path()) {
    std::error_code ignored;
    if (fs::is_directory(folder / "_delta_log", ignored))
      return refuse("a file of the Delta table at " + Printable(folder.string()));
    if (fs::is_directory(folder / "metadata", ignored)) {
      for (fs::directory_iterator it(folder / "metadata", ignored), end;
           !ignored && it != end; it.increment(ignored)) {
        const std::string name = it->path().filename().string();
        if (name.ends_with(".metadata.json") || name.ends_with(".metadata.json.gz") ||
            name == "version-hint.text") {
          return refuse("a file of the Iceberg table at " + Printable(folder.string()));
        }
      }
    }
    if (folder == folder.root_path()) break;
  }
  return arrow::Status::OK();
}

arrow::Result<int64_t> WriteScanOutput(arrow::RecordBatchReader& reader,
                                       const Schema& schema, OutputOptions options) {
  std::unique_ptr<ReplacingOutput> replacing;
  if (!options.path.empty()) {
    ARROW_RETURN_NOT_OK(CheckOutputOutsideTables(options.path, options.protected_folders,
                                                 options.protected_files));
    ARROW_ASSIGN_OR_RAISE(replacing, ReplacingOutput::Make(options.path));
    options.path = replacing->temporary();
  }
  arrow::Result<int64_t> rows;
  if (replacing && options.format != "parquet") {
    std::ofstream file(options.path, std::ios::binary);
    if (!file) return MakeError(ErrorKind::kInvalidInput, "cannot write " + options.path);
    rows = WriteRows(reader, schema, options, file);
    file.close();
    if (rows.ok() && !file) rows = WriteFailed(replacing->target());
  } else {
    rows = WriteRows(reader, schema, options, std::cout);
    std::cout.flush();
    if (rows.ok() && !std::cout) rows = WriteFailed("standard output");
  }
  ARROW_RETURN_NOT_OK(rows.status());
  if (replacing) ARROW_RETURN_NOT_OK(replacing->Commit());
  return rows;
}

}  // namespace floe::cli
