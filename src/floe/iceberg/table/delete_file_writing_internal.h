// Writing the delete files of a row-level operation or a rewrite of delete files, as
// iceberg-java's Spark writer writes them: deletion vectors on format v3, Parquet
// position delete files (one per data file) on v2. Internal to the table layer.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "arrow/result.h"
#include "floe/iceberg/commit/snapshot_producer.h"
#include "floe/iceberg/manifest/data_file.h"
#include "floe/iceberg/spec/partition_spec.h"
#include "floe/iceberg/spec/table_properties.h"
#include "floe/io/file_io.h"

namespace floe::iceberg {

class Table;

/// The deletes of one data file: what one deletion vector or position delete file holds.
struct DeleteTarget {
  const DataFile* data = nullptr;  ///< The data file (its path, spec id and partition).
  PartitionSpecPtr spec;           ///< The spec it was written with.
  std::vector<int64_t> positions;  ///< Sorted, unique, non-negative.
};

/// What WriteDeletes wrote.
struct WrittenDeletes {
  /// The delete files with their spec id and partition (their data files'): one per
  /// target, in order, or with partition granularity one per partition.
  std::vector<DataFile> files;
  /// The files written (a Puffin file holds many vectors): whoever commits them deletes
  /// these if the commit fails, unless its outcome is unknown.
  std::vector<std::string> locations;
};

/// Writes the delete files of `targets` into `table`: on format v3 one Puffin file at the
/// data location's top holding a deletion vector per target (iceberg-java's DV writer
/// places it there), on v2 Parquet position delete files in the partition folders: one
/// per target (iceberg-java's file granularity, its default), or with
/// PartitionGranularity(`properties`) one per spec and partition holding its targets'
/// deletes ordered by data file path. `properties`: the table's, overlaid with the
/// operation's options. On failure or cancellation nothing it wrote is left and the error
/// says so.
arrow::Result<WrittenDeletes> WriteDeletes(const Table& table,
                                           const std::vector<DeleteTarget>& targets,
                                           const PropertyMap& properties);

/// Whether position delete files span the data files of a partition on `table`:
/// write.delete.granularity is "partition" (any case) on a format-v2 table (deletion
/// vectors are always one data file's). iceberg-java then neither merges a data file's
/// earlier deletes into a new file nor removes them.
bool PartitionGranularity(const Table& table, const PropertyMap& properties);

/// Deletes, best effort, the delete files at `locations` (their commit failed).
void DeleteWritten(FileIO& io, const std::vector<std::string>& locations);

/// Commits `producer` onto `state`, whose delete files are at `written` (in `io`): unless
/// a signal asked to stop (then Cancelled, saying that `what`, e.g. "deleting rows of
/// db.t", committed nothing) or the commit fails, when the files are deleted again (not
/// after CommitStateUnknown: the commit may have happened).
arrow::Result<CommitReport> CommitWithDeleteFiles(SnapshotProducer& producer,
                                                  const TableState& state, FileIO& io,
                                                  const std::vector<std::string>& written,
                                                  const std::string& what);

}  // namespace floe::iceberg
