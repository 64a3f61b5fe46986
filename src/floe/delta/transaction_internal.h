// A Delta write's commit, after its files are written: the commitInfo it carries, the
// remove actions, the commit loop (a lost race re-reads the winners and fails on a real
// conflict, as delta-spark's ConflictChecker does) and the checkpoint it may trigger.
// delta-kernel-rs splits the same work over transaction/{commit_info, ...}; delta::Write
// (write.cc) plans and writes the files, then hands a WriteTransaction here.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "floe/delta/committer.h"
#include "floe/delta/filter.h"
#include "floe/delta/log.h"
#include "floe/delta/write.h"
#include "floe/io/file_io.h"
#include "floe/util/env.h"

namespace floe::delta {

using OJson = nlohmann::ordered_json;

/// One JSON line as floe writes the log (invalid UTF-8 replaced, never thrown on).
std::string Dump(const OJson& json);
/// commitInfo.engineInfo: "floe/<version>".
std::string EngineInfo();
/// A partitionBy operation parameter: the columns as a JSON array's text.
std::string PartitionByText(const std::vector<std::string>& columns);
/// In-commit timestamps are on: the writer feature and the property both (PROTOCOL.md
/// "In-Commit Timestamps").
bool InCommitTimestamps(const Protocol& protocol,
                        const std::map<std::string, std::string>& configuration);

/// The remove actions of some files, as delta-spark's AddFile.removeWithTimestamp spells
/// them: one JSON line each.
struct RemoveActions {
  std::string lines;
  int64_t bytes = 0;
  int64_t count = 0;
};
RemoveActions MakeRemoveActions(const std::vector<const AddFile*>& files,
                                int64_t deletion_timestamp_ms, bool data_change);

/// Everything a write's commit needs, once its files are written and synced.
struct WriteTransaction {
  std::shared_ptr<FileIO> io;
  std::shared_ptr<Committer> committer;
  std::string root;   ///< The table's root, no trailing slash.
  std::string where;  ///< "Delta table <root>", for messages.
  const Snapshot* read = nullptr;
  CommitType commit_type = CommitType::kPathBasedWrite;
  Env* env = nullptr;
  const DeltaWriteOptions* options = nullptr;
  /// The table's isolation level (IsolationLevelOf).
  std::string isolation;

  bool compact = false;
  bool by_predicate = false;
  bool blind_append = false;
  /// options->app_id and app_version are set: the commit carries a txn action.
  bool idempotent = false;

  /// A write that creates its table: the new table's protocol and metaData actions (JSON
  /// lines), committed as version 0 with the rows; empty otherwise.
  std::string create_actions;

  /// The add actions (JSON lines), the files they name and their sizes.
  std::string adds;
  std::vector<std::string> written;
  std::vector<int64_t> added_sizes;
  RemoveActions removes;

  /// What a predicate write read: the predicate and the decoded locations of the files it
  /// read, for the conflict checks.
  const DeltaFilter* filter = nullptr;
  const std::set<std::string>* files_read = nullptr;
  /// The locations a compaction rewrites.
  std::set<std::string> compacted;
};

/// Commits `txn` at the version after its read, retrying on a lost race (after checking
/// every winner for a conflict) and on transient storage errors, up to
/// options->max_attempts. `acknowledge` is called once the files belong to the table (or
/// may: CommitStateUnknown). Fills result->version and result->attempts; the counters of
/// `result` go into commitInfo's operationMetrics.
arrow::Status CommitTransaction(const WriteTransaction& txn,
                                const std::function<void()>& acknowledge,
                                DeltaWriteResult* result);

/// After a commit of `result->version`: writes its checkpoint when
/// options.write_checkpoints and the table's checkpoint interval say so, and only of a
/// published version. The commit stands whatever happens here: a failure is logged, and
/// a reader replays the JSON commits.
void CheckpointIfDue(const WriteTransaction& txn, DeltaWriteResult* result);

}  // namespace floe::delta
