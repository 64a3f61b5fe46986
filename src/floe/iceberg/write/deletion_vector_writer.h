// Deletion vectors written as iceberg-java writes them (BaseDVFileWriter): one Puffin
// file holding a "deletion-vector-v1" blob per data file, each blob the framed 64-bit
// Roaring bitmap of the data file's deleted positions, uncompressed, with the snapshot id
// and sequence number left to inheritance (-1).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "arrow/result.h"
#include "floe/io/file_io.h"

namespace floe::iceberg {

/// The deleted positions of one data file (sorted, unique, non-negative).
struct DeletionVectorInput {
  std::string data_file;
  std::vector<int64_t> positions;
};

/// Where one vector went in the Puffin file: what the delete file's manifest entry says.
struct WrittenDeletionVector {
  std::string data_file;
  int64_t offset = 0;       ///< content_offset
  int64_t length = 0;       ///< content_size_in_bytes
  int64_t cardinality = 0;  ///< record_count
};

struct WrittenPuffinFile {
  std::string location;
  int64_t size = 0;
  std::vector<WrittenDeletionVector> vectors;  ///< In the order given.
};

/// Writes the vectors into a new Puffin file at `location` (its footer lists the blobs,
/// `created_by` as the file's created-by property). On failure the partial file is
/// deleted (best effort) and the error names the location.
arrow::Result<WrittenPuffinFile> WriteDeletionVectors(
    FileIO& io, const std::string& location,
    const std::vector<DeletionVectorInput>& vectors, const std::string& created_by);

}  // namespace floe::iceberg
