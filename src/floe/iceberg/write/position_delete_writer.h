// Position delete files written as iceberg-java's Spark writer writes them on format v2
// with file granularity (its default): one Parquet file per data file, rows (file_path,
// pos) in position order, the delete schema and "delete-type: position" in the footer,
// bounds of both columns kept whole and no value or null counts (PositionDeleteWriter).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "arrow/result.h"
#include "floe/iceberg/manifest/data_file.h"
#include "floe/iceberg/spec/table_properties.h"
#include "floe/io/file_io.h"

namespace floe::iceberg {

/// Writes the position delete file at `location` deleting `positions` (sorted, unique,
/// non-negative) of the data file `data_file`, with the table's Parquet settings
/// (write.delete.parquet.* over write.parquet.*, as iceberg-java's delete context reads
/// them). Returns it as a delete file (content, format, size, record count, metrics,
/// split offsets); the caller sets its spec and partition (the data file's). On failure
/// the partial file is deleted (best effort) and the error names the location.
arrow::Result<DataFile> WritePositionDeleteFile(const std::shared_ptr<FileIO>& io,
                                                const std::string& location,
                                                const std::string& data_file,
                                                const std::vector<int64_t>& positions,
                                                const PropertyMap& table_properties);

/// The deleted positions of one data file (sorted, unique, non-negative).
struct DataFilePositions {
  std::string data_file;
  std::vector<int64_t> positions;
};

/// As above for the deletes of several data files in one file (partition granularity):
/// rows ordered by file_path, then pos (`files` must come sorted by path). With more than
/// one data file, neither column keeps bounds or counts, as iceberg-java's
/// PositionDeleteWriter drops them for a file that references several.
arrow::Result<DataFile> WritePositionDeleteFile(
    const std::shared_ptr<FileIO>& io, const std::string& location,
    const std::vector<DataFilePositions>& files, const PropertyMap& table_properties);

}  // namespace floe::iceberg
