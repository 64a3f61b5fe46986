// A Delta table's log, replayed into a snapshot: `_delta_log/` listed, the newest
// complete checkpoint at or before the version read (classic single-file and multi-part
// V1 ones), then every JSON commit after it, in order, reconciled as the protocol says
// (the latest protocol and metaData win; files keyed by path and deletion vector, the
// newest reference winning; the latest txn version per application). A catalog-managed
// table is read only through its catalog, which gives the log's tail (LogTail): read by
// path alone, CheckReadable refuses it, as the protocol requires.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "arrow/record_batch.h"
#include "arrow/result.h"
#include "floe/io/file_io.h"

namespace floe::delta {

struct Protocol {
  int min_reader_version = 0;
  int min_writer_version = 0;
  /// Present only at reader version 3 / writer version 7.
  std::optional<std::vector<std::string>> reader_features;
  std::optional<std::vector<std::string>> writer_features;

  bool HasReaderFeature(const std::string& name) const;
  bool HasWriterFeature(const std::string& name) const;
};

struct Metadata {
  std::string id;
  std::string name;
  std::string description;
  std::string schema_string;
  std::vector<std::string> partition_columns;
  std::map<std::string, std::string> configuration;
  std::optional<int64_t> created_time_ms;
};

/// A deletion vector's descriptor, as the log gives it.
struct DeletionVector {
  std::string storage_type;  ///< "u" (relative, UUID-named), "i" (inline), "p" (absolute)
  std::string path_or_inline;
  std::optional<int32_t> offset;
  int32_t size_in_bytes = 0;
  int64_t cardinality = 0;
  /// The unique id the protocol keys files by: storage type, path or inline data, and
  /// "@offset" when there is one.
  std::string UniqueId() const;
};

/// A live data file.
struct AddFile {
  std::string path;      ///< As the log spells it: a URI reference, encoded.
  std::string location;  ///< The file itself: `path` decoded, resolved against the root.
  std::map<std::string, std::optional<std::string>> partition_values;
  int64_t size = 0;
  int64_t modification_time_ms = 0;
  bool data_change = true;
  std::optional<std::string> stats;  ///< JSON text
  std::optional<DeletionVector> deletion_vector;
  /// add.tags, kept for checkpoints.
  std::optional<std::map<std::string, std::optional<std::string>>> tags;
};

/// A removed file the log still remembers (a tombstone): kept in checkpoints until
/// `delta.deletedFileRetentionDuration` after its deletion, so that readers of older
/// versions and VACUUM know of it.
struct RemoveFile {
  std::string path;      ///< As the log spells it.
  std::string location;  ///< Resolved, as AddFile::location.
  std::optional<int64_t> deletion_timestamp_ms;
  bool data_change = true;
  std::optional<bool> extended_file_metadata;
  std::optional<std::map<std::string, std::optional<std::string>>> partition_values;
  std::optional<int64_t> size;
  std::optional<DeletionVector> deletion_vector;
};

/// An application's latest idempotent-write marker (the txn action).
struct AppTransaction {
  int64_t version = 0;
  std::optional<int64_t> last_updated_ms;
};

/// One version of the log, as listed.
struct LogVersion {
  int64_t version = 0;
  std::string location;     ///< `_delta_log/<v>.json`
  int64_t modified_ms = 0;  ///< The commit file's modification time.
};

/// A table at one version.
struct Snapshot {
  std::string table_root;  ///< Without a trailing slash.
  int64_t version = -1;
  /// The version's commit timestamp: its in-commit timestamp when the commit carries one,
  /// else the commit file's modification time (0 when only a checkpoint holds it).
  int64_t timestamp_ms = 0;
  Protocol protocol;
  Metadata metadata;
  std::vector<AddFile> files;                   ///< In path order.
  std::map<std::string, int64_t> app_versions;  ///< txn: the latest version per appId.
  std::map<std::string, AppTransaction>
      app_transactions;  ///< The same, with lastUpdated.
  /// Removes not cancelled by a later add, in path order.
  std::vector<RemoveFile> tombstones;
  /// The checkpoint the replay started from (-1: none), and the commits read after it.
  int64_t checkpoint_version = -1;
  int64_t commits_read = 0;
  /// Read with the catalog's LogTail (a catalog-managed table read through its catalog).
  bool through_catalog = false;
};

/// The file an add's or remove's `path` names: decoded, resolved against `table_root`
/// (AddFile::location).
arrow::Result<std::string> ResolveFilePath(const std::string& table_root,
                                           const std::string& path);

/// `location` with the escapes of an RFC 2396 URI reference decoded (%XX);
/// InvalidMetadata on a broken escape.
arrow::Result<std::string> DecodeUriPath(const std::string& path);

/// Whether `table_root` holds a Delta log (a `_delta_log` folder with a commit or a
/// checkpoint in it).
arrow::Result<bool> IsDeltaTable(FileIO& io, const std::string& table_root);

struct LogTail;

/// The commits the log still has, in version order (checkpointed versions whose commits
/// were cleaned up are not listed). With a catalog-managed table's `tail`, the
/// catalog's word: published versions up to its latest that it has not ratified anew,
/// then its ratified commits (with the time its coordinator recorded).
arrow::Result<std::vector<LogVersion>> ListVersions(FileIO& io,
                                                    const std::string& table_root,
                                                    const LogTail* tail = nullptr);

/// What a catalog-managed table's commit coordinator says of its log: the commits it
/// has ratified above the latest published version (their staged files, which win over
/// any published file of the same version), and the latest ratified version, above
/// which every file in `_delta_log/` is ignored.
struct LogTail {
  std::vector<LogVersion> commits;  ///< Ascending and contiguous, ending at latest.
  int64_t latest_version = -1;
};

struct SnapshotOptions {
  /// The version to read; the latest when unset. A version the log cannot rebuild (never
  /// committed, or cleaned up with no checkpoint at or before it) is an error naming it.
  std::optional<int64_t> version;
  /// Or the latest version whose commit timestamp is at or before this (ms since epoch).
  std::optional<int64_t> as_of_ms;
  /// A catalog-managed table read through its catalog: the coordinator's tail.
  std::optional<LogTail> tail;
};

/// Replays the log of the Delta table at `table_root`. Errors name the table and the log
/// file at fault: no log (NoSuchTable), a missing commit in the range replayed, malformed
/// JSON (with its line), a checkpoint that cannot be read, no protocol or metaData.
/// Reading what the snapshot says is the caller's: CheckReadable says whether floe can.
arrow::Result<Snapshot> LoadSnapshot(FileIO& io, const std::string& table_root,
                                     const SnapshotOptions& options = {});

/// The live files of `snapshot` as one Arrow batch, one row per add in path order
/// (deltalake's `get_add_actions`, unflattened): `path` (as the log spells it),
/// `location` (the file), `size_bytes`, `modification_time` (timestamp[ms, UTC]),
/// `data_change`, `partition_values` (map<string, string>, a null value for a null
/// partition), `stats` (the JSON text, null when the add has none) and
/// `has_deletion_vector`.
arrow::Result<std::shared_ptr<arrow::RecordBatch>> AddActionsBatch(
    const Snapshot& snapshot);

/// What one commit did, for a writer that lost the race to it.
struct CommitActions {
  bool protocol = false;
  bool metadata = false;
  // Every add and remove, whatever its dataChange, as delta-spark's conflict checker
  // counts a winner's files (WinningCommitSummary.addedFiles and removedFiles): a
  // compaction's remove takes a file away from a writer that read it just as a delete's
  // does, and its add holds rows just as an append's does.
  int64_t adds = 0;
  int64_t removes = 0;
  std::optional<std::string> txn_id;  ///< commitInfo.txnId
  std::optional<bool> blind_append;   ///< commitInfo.isBlindAppend
  std::optional<int64_t> in_commit_timestamp;
  std::map<std::string, int64_t> app_versions;  ///< txn actions: appId -> version
  /// The partitionValues of each add.
  std::vector<std::map<std::string, std::optional<std::string>>> added_partition_values;
  /// The paths (as the log spells them) of the removes.
  std::set<std::string> removed_paths;
};

/// The commit `<table_root>/_delta_log/<version>.json`, summarised. NotFound when absent.
arrow::Result<CommitActions> ReadCommitActions(FileIO& io, const std::string& table_root,
                                               int64_t version);
/// The commit file at `location` (a published or a staged commit), summarised.
arrow::Result<CommitActions> ReadCommitFileActions(FileIO& io,
                                                   const std::string& location);

/// `_delta_log/<version zero-padded to 20 digits>.json` below `table_root`.
std::string CommitLocation(const std::string& table_root, int64_t version);

/// OK when floe reads `snapshot` exactly: NotSupported naming the first reader feature
/// (or the column-mapping mode) floe does not apply yet, or
/// a reader version above 3; InvalidInput for a catalog-managed table read by path
/// (without its catalog's tail).
arrow::Status CheckReadable(const Snapshot& snapshot);

}  // namespace floe::delta
