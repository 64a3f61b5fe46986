// Classic single-file V1 checkpoints, as delta-spark 4.0 writes them: one Parquet file
// `_delta_log/<v:020>.checkpoint.parquet` holding the snapshot at v (protocol, metaData,
// txns, live adds, and the removes still within delta.deletedFileRetentionDuration as
// tombstones), one action per row in nullable struct columns, then `_last_checkpoint`
// naming it. Every file action in a checkpoint has dataChange false; removes carry no
// stats. Partitioned tables get `add.partitionValues_parsed` (typed) unless
// delta.checkpoint.writeStatsAsStruct is false; like delta-spark, no `stats_parsed`.
//
// Neither file is ever seen half-written: each is written beside its name and renamed
// into place. Two writers checkpointing one version write the same state, so the second
// keeps the first's file.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "arrow/result.h"
#include "floe/delta/log.h"
#include "floe/io/file_io.h"
#include "floe/util/env.h"

namespace floe::delta {

/// delta.checkpointInterval (10 when unset or not a positive integer).
int64_t CheckpointInterval(const std::map<std::string, std::string>& configuration);

struct CheckpointResult {
  std::string location;
  int64_t rows = 0;
  int64_t add_files = 0;
  int64_t tombstones = 0;
  int64_t size_in_bytes = 0;
};

/// Writes the checkpoint of `snapshot` (its version must be a published commit) and then
/// `_last_checkpoint`, unless that already names a newer checkpoint. Tombstones deleted
/// before `env->NowMillis()` minus delta.deletedFileRetentionDuration (a week when unset)
/// are dropped, as are txns older than delta.setTransactionRetentionDuration when set.
arrow::Result<CheckpointResult> WriteCheckpoint(const std::shared_ptr<FileIO>& io,
                                                const Snapshot& snapshot,
                                                Env* env = Env::Default());

}  // namespace floe::delta
