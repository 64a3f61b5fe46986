// Data files for one partition of one task: rolled to the target file size on
// iceberg-java's 1000-row grid, located by the task's OutputFileFactory. Format-neutral:
// the table format names the files and describes their partition (WriteFormat).
#pragma once

#include <any>
#include <memory>
#include <string>
#include <vector>

#include "floe/io/file_io.h"
#include "floe/parquet/file_writer.h"
#include "floe/task/write_format.h"
#include "floe/util/mutex.h"

namespace floe {

/// Hands out a task's data file locations (WriteFormat::FileLocation of the task's
/// partition id and attempt id and a per-task counter that counts every file opened,
/// from 1), as iceberg-java's OutputFileFactory does. Records every location it hands
/// out, so the task can delete them all if it fails. Thread-safe.
class OutputFileFactory {
 public:
  OutputFileFactory(std::shared_ptr<const WriteFormat> format, int partition_id,
                    int64_t attempt_id);

  /// A new, unique data file location for `partition`, recorded as this task's. A file
  /// already at that location (another attempt that reused this one's partition and
  /// attempt ids) gives AlreadyExists and is not recorded, so this task's cleanup never
  /// deletes it; iceberg-java's OutputFile.create() refuses the same way.
  arrow::Result<std::string> NewLocation(const std::any& partition, FileIO& io);
  /// Every location handed out so far, in order.
  std::vector<std::string> locations() const;

 private:
  std::shared_ptr<const WriteFormat> format_;
  int partition_id_;
  int64_t attempt_id_;
  mutable Mutex mutex_;
  int64_t file_count_ FLOE_GUARDED_BY(mutex_) = 0;
  std::vector<std::string> handed_out_ FLOE_GUARDED_BY(mutex_);
};

/// The rows checked between size checks (iceberg-java's RollingFileWriter.ROWS_DIVISOR).
inline constexpr int64_t kRowsDivisor = 1000;

/// Not thread-safe.
class RollingFileWriter {
 public:
  /// Opens the first file at once, as iceberg-java's RollingDataWriter does.
  static arrow::Result<std::unique_ptr<RollingFileWriter>> Make(
      std::shared_ptr<const ParquetWriteContext> context, OutputFileFactory* factory,
      std::any partition, int64_t target_file_size);

  /// Writes rows, checking the current file's length every 1000 rows of that file and
  /// rolling to a new file when it reaches the target size. Rows go to Arrow in as few
  /// calls as that allows: checks that cannot fire (by ParquetFileWriter::GrowthBound the
  /// file stays below the target) are skipped, not made.
  arrow::Status Write(const arrow::RecordBatch& batch);
  /// Closes the current file and returns every file written; a file with no rows is
  /// deleted and not reported.
  arrow::Result<std::vector<TaskFile>> Close();
  /// Abandons the open file (its location stays with the factory for cleanup).
  void Abort();

  /// Bytes of rows the open file holds in memory (ParquetFileWriter::BufferedBytes).
  int64_t BufferedBytes() const { return current_ ? current_->BufferedBytes() : 0; }
  /// Writes out the open file's buffered row group (see
  /// ParquetFileWriter::FlushRowGroup).
  arrow::Status FlushRowGroup() {
    return current_ ? current_->FlushRowGroup() : arrow::Status::OK();
  }

 private:
  RollingFileWriter() = default;
  arrow::Status OpenFile();
  arrow::Status CloseFile();
  /// How many rows of `batch` from `offset` the current file can take in one call: to the
  /// batch's end or to a grid point, never fewer than `to_grid` (the rows up to the next
  /// grid point), and past `to_grid` only while no size check inside could say "roll".
  arrow::Result<int64_t> RowsForOneCall(const arrow::RecordBatch& batch, int64_t offset,
                                        int64_t to_grid) const;

  std::shared_ptr<const ParquetWriteContext> context_;
  OutputFileFactory* factory_ = nullptr;
  std::any partition_;
  int64_t target_file_size_ = 0;
  std::unique_ptr<ParquetFileWriter> current_;
  std::vector<TaskFile> completed_;
};

}  // namespace floe
