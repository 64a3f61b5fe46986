// Data files for one partition of one task: rolled to the target file size on
// iceberg-java's 1000-row grid, named by the task's OutputFileFactory.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "floe/spec/location_provider.h"
#include "floe/write/data_file_writer.h"

namespace floe {

/// Names a task's data files as iceberg-java's OutputFileFactory does:
/// "%05d-%d-%s-%05d.parquet" of partition id, task attempt id, operation id and a
/// per-task counter that counts every file opened (from 1). Records every location it
/// hands out, so the task can delete them all if it fails. Thread-safe.
class OutputFileFactory {
 public:
  OutputFileFactory(std::shared_ptr<const LocationProvider> locations, int partition_id,
                    int64_t attempt_id, std::string operation_id);

  /// A new, unique data file location in `partition_path` (empty when unpartitioned),
  /// recorded as this task's. A file already at that location (another attempt that
  /// reused this one's partition and attempt ids) gives AlreadyExists and is not
  /// recorded, so this task's cleanup never deletes it; iceberg-java's
  /// OutputFile.create() refuses the same way.
  arrow::Result<std::string> NewLocation(const std::string& partition_path, FileIO& io);
  /// Every location handed out so far, in order.
  std::vector<std::string> locations() const;

 private:
  std::shared_ptr<const LocationProvider> locations_;
  int partition_id_;
  int64_t attempt_id_;
  std::string operation_id_;
  mutable std::mutex mutex_;
  int64_t file_count_ = 0;
  std::vector<std::string> handed_out_;
};

/// The rows checked between size checks (iceberg-java's RollingFileWriter.ROWS_DIVISOR).
inline constexpr int64_t kRowsDivisor = 1000;

/// Not thread-safe.
class RollingDataWriter {
 public:
  /// Opens the first file at once, as iceberg-java's RollingDataWriter does.
  static arrow::Result<std::unique_ptr<RollingDataWriter>> Make(
      std::shared_ptr<const DataWriterContext> context, OutputFileFactory* factory,
      std::string partition_path, std::vector<Value> partition, int64_t target_file_size);

  /// Writes rows, checking the current file's length every 1000 rows of that file and
  /// rolling to a new file when it reaches the target size. Rows go to Arrow in as few
  /// calls as that allows: checks that cannot fire (by ParquetFileWriter::GrowthBound the
  /// file stays below the target) are skipped, not made.
  arrow::Status Write(const arrow::RecordBatch& batch);
  /// Closes the current file; a file with no rows is deleted and not reported.
  arrow::Result<std::vector<DataFile>> Close();
  /// Abandons the open file (its location stays with the factory for cleanup).
  void Abort();

  const std::vector<Value>& partition() const { return partition_; }
  const std::string& partition_path() const { return partition_path_; }
  /// Bytes of rows the open file holds in memory (ParquetFileWriter::BufferedBytes).
  int64_t BufferedBytes() const {
    return current_ ? current_->file().BufferedBytes() : 0;
  }
  /// Writes out the open file's buffered row group (see
  /// ParquetFileWriter::FlushRowGroup).
  arrow::Status FlushRowGroup() {
    return current_ ? current_->file().FlushRowGroup() : arrow::Status::OK();
  }

 private:
  RollingDataWriter() = default;
  arrow::Status OpenFile();
  arrow::Status CloseFile();
  /// How many rows of `batch` from `offset` the current file can take in one call: to the
  /// batch's end or to a grid point, never fewer than `to_grid` (the rows up to the next
  /// grid point), and past `to_grid` only while no size check inside could say "roll".
  arrow::Result<int64_t> RowsForOneCall(const arrow::RecordBatch& batch, int64_t offset,
                                        int64_t to_grid) const;

  std::shared_ptr<const DataWriterContext> context_;
  OutputFileFactory* factory_ = nullptr;
  std::string partition_path_;
  std::vector<Value> partition_;
  int64_t target_file_size_ = 0;
  std::unique_ptr<ParquetDataWriter> current_;
  std::vector<DataFile> completed_;
};

}  // namespace floe
