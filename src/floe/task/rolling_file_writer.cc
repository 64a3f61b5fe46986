#include "floe/task/rolling_file_writer.h"

#include <algorithm>

#include "arrow/record_batch.h"
#include "floe/util/error.h"

namespace floe {

OutputFileFactory::OutputFileFactory(std::shared_ptr<const WriteFormat> format,
                                     int partition_id, int64_t attempt_id)
    : format_(std::move(format)), partition_id_(partition_id), attempt_id_(attempt_id) {}

arrow::Result<std::string> OutputFileFactory::NewLocation(const std::any& partition,
                                                          FileIO& io) {
  MutexLock lock(&mutex_);
  std::string location =
      format_->FileLocation(partition, partition_id_, attempt_id_, ++file_count_);
  ARROW_ASSIGN_OR_RAISE(bool exists, io.Exists(location));
  if (exists) {
    return MakeError(
        ErrorKind::kAlreadyExists,
        "data file " + location +
            " already exists: each attempt of a write task needs its own attempt id");
  }
  handed_out_.push_back(location);
  return location;
}

std::vector<std::string> OutputFileFactory::locations() const {
  MutexLock lock(&mutex_);
  return handed_out_;
}

arrow::Result<std::unique_ptr<RollingFileWriter>> RollingFileWriter::Make(
    std::shared_ptr<const ParquetWriteContext> context, OutputFileFactory* factory,
    std::any partition, int64_t target_file_size) {
  std::unique_ptr<RollingFileWriter> writer(new RollingFileWriter());
  writer->context_ = std::move(context);
  writer->factory_ = factory;
  writer->partition_ = std::move(partition);
  writer->target_file_size_ = target_file_size;
  ARROW_RETURN_NOT_OK(writer->OpenFile());
  return writer;
}

arrow::Status RollingFileWriter::OpenFile() {
  ARROW_ASSIGN_OR_RAISE(std::string location,
                        factory_->NewLocation(partition_, *context_->io));
  ARROW_ASSIGN_OR_RAISE(current_, ParquetFileWriter::Open(context_, std::move(location)));
  return arrow::Status::OK();
}

arrow::Status RollingFileWriter::CloseFile() {
  std::unique_ptr<ParquetFileWriter> writer = std::move(current_);
  if (writer->row_count() == 0) {
    writer->Abort();
    // An empty file is deleted and not reported (iceberg-java deletes it, ignoring
    // errors).
    DeleteBestEffort(*context_->io, writer->location(), "empty data file", "");
    return arrow::Status::OK();
  }
  ARROW_ASSIGN_OR_RAISE(WrittenParquetFile file, writer->Close());
  completed_.push_back(TaskFile{std::move(file), partition_});
  return arrow::Status::OK();
}

arrow::Status RollingFileWriter::Write(const arrow::RecordBatch& batch) {
  int64_t offset = 0;
  const int64_t rows = batch.num_rows();
  while (offset < rows) {
    if (!current_) ARROW_RETURN_NOT_OK(OpenFile());
    // Write up to the next multiple of 1000 rows of the current file (or further, where
    // the checks passed over cannot fire), then check its size.
    int64_t in_file = current_->row_count();
    int64_t to_grid = kRowsDivisor - in_file % kRowsDivisor;
    int64_t length = std::min(to_grid, rows - offset);
    if (rows - offset > to_grid) {
      ARROW_ASSIGN_OR_RAISE(length, RowsForOneCall(batch, offset, to_grid));
    }
    ARROW_RETURN_NOT_OK(current_->Write(*batch.Slice(offset, length)));
    offset += length;
    if (current_->row_count() % kRowsDivisor == 0 &&
        current_->Length() >= target_file_size_) {
      ARROW_RETURN_NOT_OK(CloseFile());
      // iceberg-java opens the next file immediately (using up a file number even when no
      // row follows).
      ARROW_RETURN_NOT_OK(OpenFile());
    }
  }
  return arrow::Status::OK();
}

arrow::Result<int64_t> RollingFileWriter::RowsForOneCall(const arrow::RecordBatch& batch,
                                                         int64_t offset,
                                                         int64_t to_grid) const {
  // Arrow's per-call work (per column: level building, statistics, page checks) costs as
  // much as 15% of a write made 1000 rows at a time; the size checks need no more calls
  // than the ones that could say "roll".
  // The row group's size is checked after every call too: cutting it is not tied to the
  // grid (nor to the exact byte, so hash tables growing are left out there), but a small
  // write.parquet.row-group-size-bytes must still be kept.
  const int64_t headroom =
      std::min(target_file_size_ - current_->Length() - current_->TableGrowthBound(),
               current_->RowGroupHeadroom());
  int64_t length = batch.num_rows() - offset;
  while (length > to_grid) {
    ARROW_ASSIGN_OR_RAISE(int64_t growth,
                          current_->GrowthBound(*batch.Slice(offset, length)));
    if (growth < headroom) return length;
    // Half as many rows past the first grid point, ending on the grid.
    length = to_grid + (length - to_grid) / 2 / kRowsDivisor * kRowsDivisor;
  }
  return to_grid;
}

arrow::Result<std::vector<TaskFile>> RollingFileWriter::Close() {
  if (current_) ARROW_RETURN_NOT_OK(CloseFile());
  return std::move(completed_);
}

void RollingFileWriter::Abort() {
  if (current_) current_->Abort();
  current_.reset();
}

}  // namespace floe
