#include "floe/write/rolling_writer.h"

#include <algorithm>
#include <cstdio>

#include "arrow/record_batch.h"
#include "floe/util/error.h"

namespace floe {

OutputFileFactory::OutputFileFactory(std::shared_ptr<const LocationProvider> locations,
                                     int partition_id, int64_t attempt_id,
                                     std::string operation_id)
    : locations_(std::move(locations)),
      partition_id_(partition_id),
      attempt_id_(attempt_id),
      operation_id_(std::move(operation_id)) {}

arrow::Result<std::string> OutputFileFactory::NewLocation(
    const std::string& partition_path, FileIO& io) {
  std::lock_guard<std::mutex> lock(mutex_);
  char name[512];
  std::snprintf(name, sizeof(name), "%05d-%lld-%s-%05lld.parquet", partition_id_,
                static_cast<long long>(attempt_id_), operation_id_.c_str(),
                static_cast<long long>(++file_count_));
  std::string location = locations_->NewDataLocation(partition_path, name);
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
  std::lock_guard<std::mutex> lock(mutex_);
  return handed_out_;
}

arrow::Result<std::unique_ptr<RollingDataWriter>> RollingDataWriter::Make(
    std::shared_ptr<const DataWriterContext> context, OutputFileFactory* factory,
    std::string partition_path, std::vector<Value> partition, int64_t target_file_size) {
  std::unique_ptr<RollingDataWriter> writer(new RollingDataWriter());
  writer->context_ = std::move(context);
  writer->factory_ = factory;
  writer->partition_path_ = std::move(partition_path);
  writer->partition_ = std::move(partition);
  writer->target_file_size_ = target_file_size;
  ARROW_RETURN_NOT_OK(writer->OpenFile());
  return writer;
}

arrow::Status RollingDataWriter::OpenFile() {
  ARROW_ASSIGN_OR_RAISE(std::string location,
                        factory_->NewLocation(partition_path_, *context_->parquet->io));
  ARROW_ASSIGN_OR_RAISE(current_, ParquetDataWriter::Open(context_, std::move(location)));
  return arrow::Status::OK();
}

arrow::Status RollingDataWriter::CloseFile() {
  std::unique_ptr<ParquetDataWriter> writer = std::move(current_);
  if (writer->file().row_count() == 0) {
    writer->file().Abort();
    // An empty file is deleted and not reported (iceberg-java deletes it, ignoring
    // errors).
    DeleteBestEffort(*context_->parquet->io, writer->location(), "empty data file", "");
    return arrow::Status::OK();
  }
  ARROW_ASSIGN_OR_RAISE(DataFile file, writer->Close());
  file.partition = partition_;
  completed_.push_back(std::move(file));
  return arrow::Status::OK();
}

arrow::Status RollingDataWriter::Write(const arrow::RecordBatch& batch) {
  int64_t offset = 0;
  const int64_t rows = batch.num_rows();
  while (offset < rows) {
    if (!current_) ARROW_RETURN_NOT_OK(OpenFile());
    // Write up to the next multiple of 1000 rows of the current file (or further, where
    // the checks passed over cannot fire), then check its size.
    int64_t in_file = current_->file().row_count();
    int64_t to_grid = kRowsDivisor - in_file % kRowsDivisor;
    int64_t length = std::min(to_grid, rows - offset);
    if (rows - offset > to_grid) {
      ARROW_ASSIGN_OR_RAISE(length, RowsForOneCall(batch, offset, to_grid));
    }
    ARROW_RETURN_NOT_OK(current_->file().Write(*batch.Slice(offset, length)));
    offset += length;
    if (current_->file().row_count() % kRowsDivisor == 0 &&
        current_->file().Length() >= target_file_size_) {
      ARROW_RETURN_NOT_OK(CloseFile());
      // iceberg-java opens the next file immediately (using up a file number even when no
      // row follows).
      ARROW_RETURN_NOT_OK(OpenFile());
    }
  }
  return arrow::Status::OK();
}

arrow::Result<int64_t> RollingDataWriter::RowsForOneCall(const arrow::RecordBatch& batch,
                                                         int64_t offset,
                                                         int64_t to_grid) const {
  // Arrow's per-call work (per column: level building, statistics, page checks) costs as
  // much as 15% of a write made 1000 rows at a time; the size checks need no more calls
  // than the ones that could say "roll".
  // The row group's size is checked after every call too: cutting it is not tied to the
  // grid (nor to the exact byte, so hash tables growing are left out there), but a small
  // write.parquet.row-group-size-bytes must still be kept.
  const int64_t headroom = std::min(
      target_file_size_ - current_->file().Length() - current_->file().TableGrowthBound(),
      current_->file().RowGroupHeadroom());
  int64_t length = batch.num_rows() - offset;
  while (length > to_grid) {
    ARROW_ASSIGN_OR_RAISE(int64_t growth,
                          current_->file().GrowthBound(*batch.Slice(offset, length)));
    if (growth < headroom) return length;
    // Half as many rows past the first grid point, ending on the grid.
    length = to_grid + (length - to_grid) / 2 / kRowsDivisor * kRowsDivisor;
  }
  return to_grid;
}

arrow::Result<std::vector<DataFile>> RollingDataWriter::Close() {
  if (current_) ARROW_RETURN_NOT_OK(CloseFile());
  return std::move(completed_);
}

void RollingDataWriter::Abort() {
  if (current_) current_->file().Abort();
  current_.reset();
}

}  // namespace floe
