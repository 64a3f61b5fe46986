// Delete files: what they delete (positions from position-delete files and deletion
// vectors, keys from equality-delete files).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "arrow/record_batch.h"
#include "floe/iceberg/manifest/data_file.h"
#include "floe/iceberg/manifest/delete_index.h"
#include "floe/iceberg/spec/name_mapping.h"
#include "floe/iceberg/spec/partition_spec.h"
#include "floe/io/file_io.h"
#include "floe/types/schema.h"

namespace floe::iceberg {

struct ScanStats;

/// The keys of the rows an equality-delete file deletes: each row's values of the
/// equality fields, encoded by EqualityKeys.
struct EqualityDeletes {
  std::vector<int> field_ids;
  std::unordered_set<std::string> keys;
};

/// What the delete files of one data file delete from it.
struct FileDeletes {
  std::vector<int64_t> positions;  ///< Sorted, unique row positions.
  std::vector<std::shared_ptr<const EqualityDeletes>> equality;
  bool empty() const { return positions.empty() && equality.empty(); }
};

/// One key per row of `batch` over the top-level columns with `field_ids`
/// (PARQUET:field_id), equal exactly when iceberg-java's equality deletes consider the
/// rows equal: null equals null, floats compare by bits with NaN canonical (so -0.0 and
/// 0.0 differ, NaN matches NaN). A field missing from the batch gives InvalidInput.
arrow::Result<std::vector<std::string>> EqualityKeys(const arrow::RecordBatch& batch,
                                                     const std::vector<int>& field_ids);

/// Reads delete files, each once per scan (several data files may share one).
class DeleteLoader {
 public:
  /// `schema`: the table schema equality-delete files are read with. The bytes and
  /// requests of delete-file reads are added to `stats` (optional).
  DeleteLoader(std::shared_ptr<FileIO> io, SchemaPtr schema,
               std::shared_ptr<const NameMapping> name_mapping,
               std::shared_ptr<ScanStats> stats = nullptr);

  /// What `deletes` delete from the data file at `data_path`. A delete file that cannot
  /// be read gives an error naming it (never rows that should be gone).
  arrow::Result<FileDeletes> Load(
      const std::vector<std::shared_ptr<const DeleteFileEntry>>& deletes,
      const std::string& data_path);
  /// Load's result to hand to ReadDataFile: null when `deletes` is empty.
  arrow::Result<std::shared_ptr<const FileDeletes>> LoadShared(
      const std::vector<std::shared_ptr<const DeleteFileEntry>>& deletes,
      const std::string& data_path);

  /// Row positions by data file path.
  using PositionsByFile = std::map<std::string, std::vector<int64_t>>;
  /// Everything the position delete file or deletion vector `entry` deletes: a Parquet
  /// file's rows by their file_path (positions in the file's order), or a vector's
  /// positions (sorted) under its referenced_data_file. Anything else is InvalidInput.
  arrow::Result<std::shared_ptr<const PositionsByFile>> Positions(
      const DeleteFileEntry& entry);

 private:
  arrow::Result<std::shared_ptr<const PositionsByFile>> PositionFile(
      const DeleteFileEntry& entry);
  arrow::Result<std::vector<int64_t>> DeletionVector(const DeleteFileEntry& entry);
  arrow::Result<std::shared_ptr<const EqualityDeletes>> EqualityFile(
      const DeleteFileEntry& entry);

  std::shared_ptr<FileIO> io_;
  SchemaPtr schema_;
  std::shared_ptr<const NameMapping> name_mapping_;
  std::shared_ptr<ScanStats> stats_;
  std::map<std::string, std::shared_ptr<const PositionsByFile>> position_files_;
  std::map<std::string, std::shared_ptr<const EqualityDeletes>> equality_files_;
};

/// The row positions of a deletion vector blob ("deletion-vector-v1" in a Puffin file):
/// its length and magic checked, the 64-bit Roaring bitmap (portable format) decoded, the
/// CRC-32 verified. More than `max_positions` positions (the delete file's record_count)
/// or malformed input gives InvalidMetadata naming `where`.
arrow::Result<std::vector<int64_t>> DecodeDeletionVector(std::string_view blob,
                                                         const std::string& where,
                                                         int64_t max_positions);

}  // namespace floe::iceberg
