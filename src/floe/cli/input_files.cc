#include "floe/cli/input_files.h"

#include <cerrno>
#include <cstring>
#include <functional>

#include <sys/stat.h>

#include "arrow/csv/api.h"
#include "arrow/io/api.h"
#include "floe/iceberg/write/batch_conformer.h"
#include "floe/types/arrow_schema.h"
#include "floe/util/error.h"
#include "floe/util/text.h"
#include "parquet/arrow/reader.h"

namespace floe::cli {
namespace {

bool EndsWith(const std::string& text, const std::string& suffix) {
  if (text.size() < suffix.size()) return false;
  return AsciiLower(std::string_view(text).substr(text.size() - suffix.size())) == suffix;
}

// Members are destroyed in reverse order: the reader before what it reads from.
struct OpenedFile {
  std::unique_ptr<arrow::util::Codec> codec;
  std::unique_ptr<parquet::arrow::FileReader> parquet;
  std::shared_ptr<arrow::RecordBatchReader> reader;
};

arrow::Result<OpenedFile> OpenOne(const std::string& path, const std::string& format,
                                  const arrow::Schema& target) {
  ARROW_ASSIGN_OR_RAISE(auto file, arrow::io::ReadableFile::Open(path));
  bool csv = format == "csv" ||
             (format == "auto" && (EndsWith(path, ".csv") || EndsWith(path, ".csv.gz")));
  OpenedFile opened;
  if (!csv) {
    parquet::arrow::FileReaderBuilder builder;
    // A corrupt input must fail the append, not become wrong rows in the table: pages
    // that carry a checksum are verified.
    parquet::ReaderProperties verifying = parquet::default_reader_properties();
    verifying.set_page_checksum_verification(true);
    ARROW_RETURN_NOT_OK(builder.Open(file, verifying));
    parquet::ArrowReaderProperties properties;
    properties.set_batch_size(65536);
    // Row group by row group: pre-buffering (Arrow's default) reads every row group's
    // bytes up front, so memory would grow with the file.
    properties.set_pre_buffer(false);
    builder.properties(properties);
    ARROW_RETURN_NOT_OK(builder.Build(&opened.parquet));
    ARROW_ASSIGN_OR_RAISE(auto reader, opened.parquet->GetRecordBatchReader());
    opened.reader = std::move(reader);
    return opened;
  }
  auto read_options = arrow::csv::ReadOptions::Defaults();
  read_options.block_size = 4 << 20;
  read_options.use_threads = false;
  auto parse_options = arrow::csv::ParseOptions::Defaults();
  auto convert_options = arrow::csv::ConvertOptions::Defaults();
  // Parse straight into the table's types so a value that does not fit fails with its
  // row.
  for (const auto& field : target.fields()) {
    if (field->type()->num_fields() == 0)
      convert_options.column_types[field->name()] = field->type();
  }
  // Only empty and NULL are nulls: "NaN" stays a NaN.
  convert_options.null_values = {"", "NULL", "null"};
  convert_options.strings_can_be_null = true;
  convert_options.quoted_strings_can_be_null = false;
  std::shared_ptr<arrow::io::InputStream> stream = file;
  if (EndsWith(path, ".gz")) {
    ARROW_ASSIGN_OR_RAISE(opened.codec,
                          arrow::util::Codec::Create(arrow::Compression::GZIP));
    ARROW_ASSIGN_OR_RAISE(
        stream, arrow::io::CompressedInputStream::Make(opened.codec.get(), file));
  }
  ARROW_ASSIGN_OR_RAISE(opened.reader, arrow::csv::StreamingReader::Make(
                                           arrow::io::default_io_context(), stream,
                                           read_options, parse_options, convert_options));
  return opened;
}

class InputFilesReader final : public arrow::RecordBatchReader {
 public:
  InputFilesReader(std::vector<std::string> paths, std::string format, SchemaPtr schema,
                   std::shared_ptr<arrow::Schema> target, std::string table_name,
                   std::function<void(const std::string&)> on_file,
                   std::vector<std::string> required_columns)
      : paths_(std::move(paths)),
        format_(std::move(format)),
        schema_(std::move(schema)),
        target_(std::move(target)),
        table_name_(std::move(table_name)),
        on_file_(std::move(on_file)),
        required_columns_(std::move(required_columns)) {}

  std::shared_ptr<arrow::Schema> schema() const override { return target_; }

  arrow::Status ReadNext(std::shared_ptr<arrow::RecordBatch>* out) override {
    while (true) {
      if (!current_.reader) {
        if (next_ >= paths_.size()) {
          *out = nullptr;
          return arrow::Status::OK();
        }
        path_ = paths_[next_++];
        if (on_file_) on_file_(path_);
        auto opened = OpenOne(path_, format_, *target_);
        if (!opened.ok()) return WithContext(opened.status(), "input file " + path_);
        current_ = std::move(*opened);
        for (const auto& column : required_columns_) {
          if (current_.reader->schema()->GetFieldIndex(column) < 0) {
            return MakeError(ErrorKind::kInvalidInput,
                             "input file " + path_ + " has no column " + column +
                                 ", which writing " + table_name_ + " needs");
          }
        }
        auto conformer = iceberg::MakeBatchConformer(*current_.reader->schema(), *schema_,
                                                     table_name_);
        if (!conformer.ok())
          return WithContext(conformer.status(), "input file " + path_);
        conformer_ = std::move(*conformer);
      }
      std::shared_ptr<arrow::RecordBatch> batch;
      auto status = current_.reader->ReadNext(&batch);
      if (!status.ok()) {
        return MakeError(ErrorKind::kInvalidInput,
                         "input file " + path_ + ": " + status.message());
      }
      if (!batch) {
        current_ = OpenedFile();
        continue;
      }
      auto conformed = conformer_->Conform(*batch);
      if (!conformed.ok()) return WithContext(conformed.status(), "input file " + path_);
      *out = std::move(*conformed);
      return arrow::Status::OK();
    }
  }

 private:
  std::vector<std::string> paths_;
  std::string format_;
  SchemaPtr schema_;
  std::shared_ptr<arrow::Schema> target_;
  std::string table_name_;
  std::function<void(const std::string&)> on_file_;
  std::vector<std::string> required_columns_;
  size_t next_ = 0;
  std::string path_;
  OpenedFile current_;
  std::unique_ptr<BatchConformer> conformer_;
};

}  // namespace

arrow::Status CheckInputFile(const std::string& path) {
  struct stat info;
  if (::stat(path.c_str(), &info) != 0) {
    int error = errno;
    return MakeError(error == ENOENT ? ErrorKind::kNotFound : ErrorKind::kInvalidInput,
                     "input file " + path + ": " + std::strerror(error));
  }
  if (S_ISREG(info.st_mode)) return arrow::Status::OK();
  const char* kind = S_ISDIR(info.st_mode)                            ? "a directory"
                     : S_ISFIFO(info.st_mode)                         ? "a FIFO"
                     : S_ISSOCK(info.st_mode)                         ? "a socket"
                     : S_ISCHR(info.st_mode) || S_ISBLK(info.st_mode) ? "a device"
                                                                      : "not a file";
  return MakeError(ErrorKind::kInvalidInput, "input file " + path + " is " + kind +
                                                 "; floe reads only regular files");
}

arrow::Result<std::shared_ptr<arrow::RecordBatchReader>> OpenInputFiles(
    const std::vector<std::string>& paths, const std::string& format,
    SchemaPtr table_schema, const std::string& table_name,
    std::function<void(const std::string&)> on_file,
    std::vector<std::string> required_columns) {
  if (format != "auto" && format != "parquet" && format != "csv") {
    return MakeError(ErrorKind::kInvalidInput,
                     "--input-format must be auto, parquet or csv");
  }
  // Every input is checked before any is read, so a bad one fails the write before any
  // data file exists.
  for (const auto& path : paths) ARROW_RETURN_NOT_OK(CheckInputFile(path));
  ARROW_ASSIGN_OR_RAISE(auto target, ToArrowSchema(*table_schema));
  return std::shared_ptr<arrow::RecordBatchReader>(std::make_shared<InputFilesReader>(
      paths, format, std::move(table_schema), std::move(target), table_name,
      std::move(on_file), std::move(required_columns)));
}

}  // namespace floe::cli
