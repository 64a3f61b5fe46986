// The commit protocol every snapshot-producing operation shares: new manifests, a
// manifest list, new metadata and the catalog's compare-and-swap, with iceberg-java's
// refresh-and-retry loop.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "floe/iceberg/catalog/catalog.h"
#include "floe/iceberg/commit/snapshot_summary.h"
#include "floe/iceberg/manifest/manifest.h"
#include "floe/iceberg/spec/table_properties.h"
#include "floe/util/env.h"

namespace floe::iceberg {

/// Where and how an operation commits.
struct CommitTarget {
  std::shared_ptr<Catalog> catalog;
  TableIdentifier id;
  std::shared_ptr<FileIO> io;
  /// Clocks (snapshot timestamps, retry timeouts), the retries' sleeps, and the random
  /// numbers of snapshot ids, commit ids and jitter.
  Env* env = Env::Default();
};

/// What a successful commit produced.
struct CommitReport {
  TableState state;      ///< The table after the commit.
  SnapshotPtr snapshot;  ///< The new snapshot.
  int attempts = 0;      ///< 1 when the first swap won; more after lost races.
};

/// Retry settings (commit.retry.* with iceberg-java's defaults).
struct RetryPolicy {
  int num_retries = 4;
  int64_t min_wait_ms = 100;
  int64_t max_wait_ms = 60000;
  int64_t total_timeout_ms = 1800000;
  static RetryPolicy FromProperties(const PropertyMap& properties);
};

/// After a commit of `committed`: deletes the metadata files its metadata log dropped
/// (`trimmed`, from TableMetadataBuilder::Build) when
/// write.metadata.delete-after-commit.enabled is true: only those in the table's metadata
/// folder, never through a symbolic link. Failures are logged.
void DeleteTrimmedMetadataFiles(FileIO& io, const TableMetadata& committed,
                                const std::vector<MetadataLogEntry>& trimmed);

/// iceberg-java's refresh-and-retry loop (Tasks with onlyRetryOn(CommitFailedException)):
/// runs `attempt` on `*base`; after a lost race (CommitFailed) it waits with exponential
/// backoff and jitter, reloads `*base` from the catalog and tries again, within `policy`.
/// Returns the first status that is not CommitFailed, or CommitFailed naming the
/// commit.retry.* properties once they are exhausted. `*attempts` counts the attempts.
arrow::Status RetryOnCommitFailed(
    const CommitTarget& target, const RetryPolicy& policy, TableState* base,
    const std::function<arrow::Status(const TableState&, int)>& attempt, int* attempts);

/// Base of the operations (append, overwrite, ...). Not thread-safe; commit once.
class SnapshotProducer {
 public:
  virtual ~SnapshotProducer() = default;

  /// Commits the operation, starting from `base` (the state the operation read). Retries
  /// lost races (CommitFailed) with exponential backoff and jitter, re-applying to the
  /// refreshed table; a ValidationFailed or other error ends the loop at once. On a
  /// cleanable failure the manifests and manifest lists this operation wrote are deleted;
  /// after CommitStateUnknown nothing is deleted. Data files are never rewritten.
  arrow::Result<CommitReport> Commit(const TableState& base);

  /// Adds a data file the new snapshot adds (written with spec `file.spec_id`).
  virtual void AddDataFile(DataFile file) = 0;

  /// Adds `key`=`value` to the new snapshot's summary, as iceberg-java's
  /// SnapshotUpdate.set does (a Spark writer's `spark.app.id`, a streaming query's
  /// epoch). A key floe computes itself (IsComputedSummaryKey) is InvalidInput: a
  /// caller cannot make the summary lie about what the snapshot holds.
  arrow::Status SetSummaryProperty(const std::string& key, const std::string& value);

  /// Makes every attempt refuse (ValidationFailed, naming the file and the snapshot) to
  /// add a file that a snapshot committed after `snapshot_id` (the snapshot a split
  /// write's plan was made at; nullopt for an empty table) already references: a second
  /// committer of the same plan handed the same task message (a driver retrying after a
  /// crash or a CommitStateUnknown) must not commit its files twice. Reads only the
  /// manifests the snapshots since then wrote, on the current branch's history.
  void RefuseFilesCommittedSince(std::optional<int64_t> snapshot_id);

  const CommitTarget& target() const { return target_; }
  int64_t snapshot_id() const { return snapshot_id_; }
  /// Every metadata file (manifest or manifest list) this producer wrote.
  const std::vector<std::string>& written_files() const { return written_; }

 protected:
  explicit SnapshotProducer(CommitTarget target);

  /// The operation name for the summary ("append", "overwrite", ...).
  virtual std::string Operation() const = 0;
  /// The manifests of the new snapshot on top of `base`, whose branch head is `parent`
  /// (null for the first snapshot). Runs on every attempt: validate here, and reuse
  /// manifests that do not depend on the base.
  virtual arrow::Result<std::vector<ManifestFile>> Apply(const TableMetadata& base,
                                                         const Snapshot* parent) = 0;
  /// Fills the operation's part of the summary (files added, removed, custom properties).
  virtual void Summarize(const TableMetadata& base, SnapshotSummaryBuilder* summary) = 0;
  /// The locations of the data files the new snapshot adds: made durable (their folders
  /// synced, SyncNewFiles) once, before the first attempt.
  virtual std::vector<std::string> AddedFileLocations() const = 0;

  /// Writes a manifest of `entries` to the table's metadata directory as
  /// `<commit uuid>-m<k>.avro`; its summary records this snapshot.
  arrow::Result<ManifestFile> WriteManifest(
      const TableMetadata& base, const PartitionSpec& spec,
      const std::vector<ManifestEntry>& entries,
      ManifestContent content = ManifestContent::kData);
  /// Writes `files` (of `content`) as entries ADDED by this snapshot, one manifest per
  /// partition spec (ascending spec id). A spec the table lacks gives ValidationFailed.
  /// `data_sequence_number`, when given, is written into each entry (iceberg-java's
  /// ManifestWriter.add(file, dataSequenceNumber)); otherwise the entries inherit the
  /// snapshot's.
  arrow::Result<std::vector<ManifestFile>> WriteAddedManifests(
      const TableMetadata& base, const std::vector<DataFile>& files,
      ManifestContent content = ManifestContent::kData,
      std::optional<int64_t> data_sequence_number = std::nullopt);
  /// As above, with the data sequence number of each file (`data_sequence_numbers[i]`
  /// for `files[i]`; nullopt inherits).
  arrow::Result<std::vector<ManifestFile>> WriteAddedManifests(
      const TableMetadata& base, const std::vector<DataFile>& files,
      ManifestContent content,
      const std::vector<std::optional<int64_t>>& data_sequence_numbers);
  /// Reads the manifests of a snapshot's manifest list.
  arrow::Result<std::vector<ManifestFile>> ManifestsOf(const Snapshot& snapshot);
  /// True for operations that merge manifests as iceberg-java's MergingSnapshotProducer
  /// does (merge append, overwrite, replace partitions, delete); false for fast append.
  virtual bool MergesManifests() const { return false; }
  /// Manifests of the parent this attempt replaced (rewrote or merged); the summary's
  /// manifests-replaced. Apply adds the ones it rewrites; merging adds the rest.
  int replaced_manifests_ = 0;

 private:
  arrow::Result<CommitReport> Attempt(const TableState& base, int attempt);
  /// RefuseFilesCommittedSince's check against `base`, whose branch head is `parent`.
  arrow::Status CheckNotCommittedSince(const TableMetadata& base, const Snapshot* parent);
  bool refuse_committed_ = false;
  std::optional<int64_t> committed_since_;
  /// iceberg-java's MergingSnapshotProducer.apply after filtering: drops carried
  /// manifests without live files (keeping this snapshot's own), then, when
  /// commit.manifest-merge.enabled, packs each spec's data manifests (highest spec id
  /// first) into bins of commit.manifest.target-size-bytes from the end and merges every
  /// bin of two or more, except the bin holding the first manifest while it has fewer
  /// than commit.manifest.min-count-to-merge (ManifestMergeManager). `manifests` lists
  /// the new manifests first. Merged manifests are cached by bin across attempts.
  arrow::Result<std::vector<ManifestFile>> MergeManifests(
      const TableMetadata& base, std::vector<ManifestFile> manifests);
  arrow::Result<ManifestFile> MergeBin(const TableMetadata& base, int spec_id,
                                       const std::vector<ManifestFile>& bin);
  std::map<std::vector<std::string>, ManifestFile> merged_;
  void DeleteUncommitted(const std::set<std::string>& keep);

  CommitTarget target_;
  int64_t snapshot_id_;
  std::string commit_uuid_;
  int manifest_count_ = 0;
  std::vector<std::string> written_;
  std::map<std::string, std::string> extra_summary_;
};

}  // namespace floe::iceberg
