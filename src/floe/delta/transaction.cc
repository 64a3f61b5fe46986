#include <algorithm>
#include <variant>

#include "floe/delta/checkpoint.h"
#include "floe/delta/transaction_internal.h"
#include "floe/util/cancel.h"
#include "floe/util/error.h"
#include "floe/util/location.h"
#include "floe/util/log.h"
#include "floe/util/number_text.h"
#include "floe/util/test_hooks_internal.h"
#include "floe/util/uuid.h"

namespace floe::delta {

std::string Dump(const OJson& json) {
  return json.dump(-1, ' ', false, OJson::error_handler_t::replace);
}

std::string EngineInfo() { return std::string("floe/") + FLOE_VERSION; }

std::string PartitionByText(const std::vector<std::string>& columns) {
  OJson list = OJson::array();
  for (const auto& column : columns) list.push_back(column);
  return Dump(list);
}

bool InCommitTimestamps(const Protocol& protocol,
                        const std::map<std::string, std::string>& configuration) {
  auto enabled = configuration.find("delta.enableInCommitTimestamps");
  return protocol.HasWriterFeature("inCommitTimestamp") &&
         enabled != configuration.end() && ParseJavaBoolean(enabled->second);
}

RemoveActions MakeRemoveActions(const std::vector<const AddFile*>& files,
                                int64_t deletion_timestamp_ms, bool data_change) {
  RemoveActions out;
  for (const AddFile* file : files) {
    OJson values = OJson::object();
    for (const auto& [name, value] : file->partition_values) {
      values[name] = value ? OJson(*value) : OJson();
    }
    OJson remove = {
        {"path", file->path},        {"deletionTimestamp", deletion_timestamp_ms},
        {"dataChange", data_change}, {"extendedFileMetadata", true},
        {"partitionValues", values}, {"size", file->size}};
    if (file->tags) {
      OJson tags = OJson::object();
      for (const auto& [name, value] : *file->tags) {
        tags[name] = value ? OJson(*value) : OJson();
      }
      remove["tags"] = std::move(tags);
    }
    if (file->stats) remove["stats"] = *file->stats;
    out.lines += Dump({{"remove", remove}}) + "\n";
    out.bytes += file->size;
    ++out.count;
  }
  return out;
}

namespace {

// commitInfo.operationMetrics, as delta-spark names them for each operation.
OJson OperationMetrics(const WriteTransaction& txn, const DeltaWriteResult& result) {
  const std::string removed_bytes = std::to_string(txn.removes.bytes);
  if (txn.compact) {
    // delta-spark's OPTIMIZE metrics: the added files' sizes at its percentiles.
    std::vector<int64_t> sizes = txn.added_sizes;
    std::sort(sizes.begin(), sizes.end());
    const size_t n = sizes.size();
    return {{"numRemovedFiles", std::to_string(result.files_removed)},
            {"numRemovedBytes", removed_bytes},
            {"p25FileSize", std::to_string(sizes[n / 4])},
            {"numDeletionVectorsRemoved", "0"},
            {"minFileSize", std::to_string(sizes.front())},
            {"numAddedFiles", std::to_string(result.files_added)},
            {"maxFileSize", std::to_string(sizes.back())},
            {"p75FileSize", std::to_string(sizes[n * 3 / 4])},
            {"p50FileSize", std::to_string(sizes[n / 2])},
            {"numAddedBytes", std::to_string(result.bytes)}};
  }
  if (txn.options->mode == DeltaWriteMode::kDelete) {
    return {{"numRemovedFiles", std::to_string(result.files_removed)},
            {"numRemovedBytes", removed_bytes},
            {"numCopiedRows", std::to_string(result.rows_copied)},
            {"numDeletedRows", std::to_string(result.rows_deleted)},
            {"numAddedFiles", std::to_string(result.files_added)},
            {"numAddedBytes", std::to_string(result.bytes)},
            {"numDeletionVectorsAdded", "0"},
            {"numAddedChangeFiles", "0"}};
  }
  OJson metrics = {{"numFiles", std::to_string(result.files_added)},
                   {"numOutputRows", std::to_string(result.rows)},
                   {"numOutputBytes", std::to_string(result.bytes)}};
  if (!txn.blind_append)
    metrics["numRemovedFiles"] = std::to_string(result.files_removed);
  if (txn.by_predicate) {
    metrics["numRemovedBytes"] = removed_bytes;
    metrics["numCopiedRows"] = std::to_string(result.rows_copied);
    metrics["numDeletedRows"] = std::to_string(result.rows_deleted);
  }
  return metrics;
}

// commitInfo.operationParameters.
OJson OperationParameters(const WriteTransaction& txn) {
  const DeltaWriteOptions& options = *txn.options;
  // delta-spark writes the predicate as a JSON array of its SQL text.
  const std::string predicates =
      OJson::array({options.predicate.value_or(std::string())}).dump();
  if (txn.compact) {
    return {{"predicate", options.predicate ? predicates : "[]"},
            {"zOrderBy", "[]"},
            {"clusterBy", "[]"},
            {"auto", false}};
  }
  if (options.mode == DeltaWriteMode::kDelete) return {{"predicate", predicates}};
  OJson parameters = {
      {"mode", txn.blind_append ? "Append" : "Overwrite"},
      {"partitionBy", PartitionByText(txn.read->metadata.partition_columns)}};
  if (txn.by_predicate) parameters["predicate"] = predicates;
  return parameters;
}

// The commit's text: commitInfo (at `timestamp`, with `txn_id`), the adds, the txn action
// of an idempotent write, the removes.
std::string CommitText(const WriteTransaction& txn, const DeltaWriteResult& result,
                       int64_t timestamp, bool ict, const std::string& txn_id) {
  const DeltaWriteOptions& options = *txn.options;
  OJson commit_info = OJson::object();
  if (ict) commit_info["inCommitTimestamp"] = timestamp;
  commit_info["timestamp"] = timestamp;
  commit_info.update(
      OJson{{"operation", txn.compact                               ? "OPTIMIZE"
                          : options.mode == DeltaWriteMode::kDelete ? "DELETE"
                                                                    : "WRITE"},
            {"operationParameters", OperationParameters(txn)}});
  // A commit that creates its table read no version.
  if (txn.create_actions.empty()) commit_info["readVersion"] = txn.read->version;
  commit_info.update(OJson{
      // A commit that changes no data takes SnapshotIsolation (delta-spark's
      // canDowngradeToSnapshotIsolation).
      {"isolationLevel", txn.compact ? "SnapshotIsolation" : txn.isolation},
      {"isBlindAppend", txn.blind_append},
      {"operationMetrics", OperationMetrics(txn, result)},
      {"engineInfo", EngineInfo()},
      {"txnId", txn_id}});
  std::string text =
      Dump({{"commitInfo", commit_info}}) + "\n" + txn.create_actions + txn.adds;
  if (txn.idempotent) {
    OJson action = {{"appId", options.app_id},
                    {"version", *options.app_version},
                    {"lastUpdated", timestamp}};
    text += Dump({{"txn", action}}) + "\n";
  }
  return text + txn.removes.lines;
}

// A winner's version `version` checked against what this commit read, in delta-spark's
// ConflictChecker's order: ValidationFailed on a real conflict.
arrow::Status CheckWinner(const WriteTransaction& txn, const CommitActions& winner,
                          int64_t version) {
  const DeltaWriteOptions& options = *txn.options;
  const std::string& where = txn.where;
  // Under WriteSerializable a winner's blind append conflicts with nothing this commit
  // read (delta-spark's checkForAddedFilesThatShouldHaveBeenReadByCurrentTxn; floe's
  // writes change no metadata).
  const bool exempt_blind_append =
      txn.isolation == "WriteSerializable" && winner.blind_append == true;
  if (winner.protocol || winner.metadata) {
    return MakeError(ErrorKind::kValidationFailed,
                     where + " changed its protocol or metadata in version " +
                         std::to_string(version) +
                         ", committed concurrently; nothing "
                         "was committed");
  }
  if (txn.compact) {
    // SnapshotIsolation: no add conflicts with a compaction; a remove of a file it
    // rewrites does (delta-spark's OPTIMIZE retries only while every file it
    // compacted is still in the table).
    for (const auto& path : winner.removed_paths) {
      auto location = ResolveFilePath(txn.root, path);
      if (location.ok() && txn.compacted.count(*location) > 0) {
        return MakeError(ErrorKind::kValidationFailed,
                         "version " + std::to_string(version) + " of " + where +
                             " removed " + path +
                             ", which this compaction rewrites (delta-spark's "
                             "ConcurrentDeleteReadException); nothing was committed");
      }
    }
  } else if (txn.by_predicate) {
    // delta-spark's checks for a transaction that read the predicate's files, in
    // its ConflictChecker's order (a winner that does both is reported as the
    // first): a concurrent add into what the predicate reads (not a blind
    // append's under WriteSerializable), then a concurrent remove of a file it read.
    const bool partitioned = !txn.read->metadata.partition_columns.empty();
    for (const auto& values : winner.added_partition_values) {
      if (!exempt_blind_append &&
          (!partitioned || txn.filter->MightMatchPartition(values))) {
        return MakeError(
            ErrorKind::kValidationFailed,
            "version " + std::to_string(version) + " of " + where +
                " added files that the predicate " + options.predicate.value_or("") +
                " may select (delta-spark's ConcurrentAppendException); nothing "
                "was committed");
      }
    }
    for (const auto& path : winner.removed_paths) {
      auto location = ResolveFilePath(txn.root, path);
      if (location.ok() && txn.files_read->count(*location) > 0) {
        return MakeError(ErrorKind::kValidationFailed,
                         "version " + std::to_string(version) + " of " + where +
                             " removed " + path +
                             ", which this write read (delta-spark's "
                             "ConcurrentDeleteReadException); nothing was committed");
      }
    }
  } else if (!txn.blind_append &&
             ((winner.adds > 0 && !exempt_blind_append) || winner.removes > 0)) {
    return MakeError(ErrorKind::kValidationFailed,
                     "version " + std::to_string(version) + " of " + where +
                         " changed the files this overwrite replaces (a concurrent "
                         "append or delete, as delta-spark's ConcurrentAppendException "
                         "says); nothing was committed");
  }
  if (txn.idempotent) {
    auto same = winner.app_versions.find(options.app_id);
    if (same != winner.app_versions.end() && same->second >= *options.app_version) {
      return MakeError(ErrorKind::kValidationFailed,
                       "version " + std::to_string(version) + " of " + where +
                           " committed application " + options.app_id + "'s version " +
                           std::to_string(same->second) +
                           " concurrently (delta-spark's "
                           "ConcurrentTransactionException); nothing was committed");
    }
  }
  return arrow::Status::OK();
}

// After a lost race: reads every version committed since `*version` (a catalog-managed
// table's winners are the ones its catalog ratified: their staged files until they are
// published), fails on a real conflict, and leaves `*version` at the first version not
// yet taken and `*previous_timestamp` at or after every winner's in-commit timestamp.
arrow::Status CheckWinners(const WriteTransaction& txn, int64_t* version,
                           int64_t* previous_timestamp) {
  ARROW_ASSIGN_OR_RAISE(auto tail, txn.committer->Tail());
  for (;; ++*version) {
    std::string winner_location = CommitLocation(txn.root, *version);
    if (tail) {
      if (*version > tail->latest_version) break;
      for (const auto& ratified : tail->commits) {
        if (ratified.version == *version) winner_location = ratified.location;
      }
    }
    auto winner = ReadCommitFileActions(*txn.io, winner_location);
    if (!winner.ok()) {
      if (KindOf(winner.status()) == ErrorKind::kNotFound || winner.status().IsIOError())
        break;
      return winner.status();
    }
    ARROW_RETURN_NOT_OK(CheckWinner(txn, *winner, *version));
    if (winner->in_commit_timestamp)
      *previous_timestamp = std::max(*previous_timestamp, *winner->in_commit_timestamp);
  }
  return arrow::Status::OK();
}

}  // namespace

arrow::Status CommitTransaction(const WriteTransaction& txn,
                                const std::function<void()>& acknowledge,
                                DeltaWriteResult* result) {
  const DeltaWriteOptions& options = *txn.options;
  const Snapshot& read = *txn.read;
  Env* env = txn.env;
  const bool ict = InCommitTimestamps(read.protocol, read.metadata.configuration);
  // The previous commit's timestamp: every in-commit timestamp exceeds it.
  int64_t previous_timestamp = read.timestamp_ms;
  int64_t version = read.version + 1;
  const std::string txn_id = Uuid::Random(env).ToString();
  constexpr int kTransientRetries = 3;
  int io_failures = 0;
  TestPausePoint("delta-commit");  // the files written, the first attempt not yet made
  for (int attempt = 1;; ++attempt) {
    ARROW_RETURN_NOT_OK(CheckCancelled("the Delta commit"));
    result->attempts = attempt;
    const int64_t now = env->NowMillis();
    const int64_t timestamp = ict ? std::max(now, previous_timestamp + 1) : now;
    const std::string text = CommitText(txn, *result, timestamp, ict, txn_id);
    // Right before the log names them: every file is still there (a vacuum told to skip
    // its retention check may have deleted a running write's files).
    ARROW_RETURN_NOT_OK(
        WithContext(CheckFilesExist(*txn.io, txn.written), "the commit to " + txn.where));
    CommitMetadata commit(txn.root, version, txn.commit_type, timestamp, read.version,
                          env);
    auto response = txn.committer->Commit(text, commit);
    if (!response.ok()) {
      if (KindOf(response.status()) == ErrorKind::kCommitStateUnknown) {
        acknowledge();  // the files stay for the version that may hold them
        return response.status();
      }
      // Transient storage: the same version again, a few times (a persistent failure,
      // such as a log folder floe may not write, is reported, not retried for ever).
      if (response.status().IsIOError() && ++io_failures <= kTransientRetries &&
          attempt < options.max_attempts) {
        Log(LogLevel::kWarning, txn.where + ": committing version " +
                                    std::to_string(version) + " failed (" +
                                    response.status().message() + "); retrying");
        env->SleepForMicros(int64_t{10'000} << io_failures);
        continue;
      }
      return WithContext(
          response.status(),
          "committing version " + std::to_string(version) + " of " + txn.where);
    }
    if (std::holds_alternative<Committed>(*response)) {
      acknowledge();
      result->version = version;
      return arrow::Status::OK();
    }
    if (!txn.create_actions.empty()) {
      return MakeError(ErrorKind::kAlreadyExists,
                       "a Delta table was created at " + txn.root +
                           " by another writer first; nothing was committed");
    }
    // Lost the race: read every version committed since, fail on a real conflict.
    ARROW_RETURN_NOT_OK(CheckWinners(txn, &version, &previous_timestamp));
    if (attempt >= options.max_attempts) {
      return MakeError(ErrorKind::kCommitFailed,
                       txn.where + ": lost the race to commit " +
                           std::to_string(attempt) + " times; nothing was committed");
    }
    Log(LogLevel::kInfo, txn.where +
                             ": version taken by another writer; retrying at version " +
                             std::to_string(version));
  }
}

void CheckpointIfDue(const WriteTransaction& txn, DeltaWriteResult* result) {
  const Snapshot& read = *txn.read;
  if (!txn.options->write_checkpoints || result->version <= 0 ||
      result->version % CheckpointInterval(read.metadata.configuration) != 0) {
    return;
  }
  // Of a published version only: a catalog-managed table's version may still wait in
  // the catalog's tail.
  SnapshotOptions at{result->version, {}, {}};
  arrow::Status written = arrow::Status::OK();
  auto tail = txn.committer->Tail();
  if (!tail.ok()) {
    written = tail.status();
  } else if (*tail && !(*tail)->commits.empty() &&
             (*tail)->commits.front().version <= result->version) {
    written = MakeError(ErrorKind::kInvalidInput, "the version is not published yet");
  } else {
    at.tail = *tail;
  }
  auto snapshot = written.ok() ? LoadSnapshot(*txn.io, txn.root, at)
                               : arrow::Result<Snapshot>(written);
  written = snapshot.status();
  if (snapshot.ok()) written = WriteCheckpoint(txn.io, *snapshot, txn.env).status();
  if (written.ok()) {
    result->checkpoint_version = result->version;
  } else {
    Log(LogLevel::kWarning, txn.where + ": the checkpoint of version " +
                                std::to_string(result->version) +
                                " was not written: " + written.message());
  }
}

}  // namespace floe::delta
