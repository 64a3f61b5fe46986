// Replacing data files: delete some, add others, in one snapshot (iceberg-java's
// BaseOverwriteFiles and BaseReplacePartitions), with the validations that make a
// concurrent commit a conflict instead of a lost update.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "floe/expr/expression.h"
#include "floe/iceberg/commit/snapshot_producer.h"

namespace floe::iceberg {

enum class IsolationLevel { kSerializable, kSnapshot };

/// "serializable" or "snapshot" (any case); anything else gives InvalidInput naming
/// `property`.
arrow::Result<IsolationLevel> ParseIsolationLevel(const std::string& text,
                                                  std::string_view property);

class OverwriteFiles final : public SnapshotProducer {
 public:
  explicit OverwriteFiles(CommitTarget target) : SnapshotProducer(std::move(target)) {}

  /// A data file to add (written with spec `file.spec_id`).
  void AddDataFile(DataFile file) override { added_.push_back(std::move(file)); }
  /// A data file to remove, by path. It must still be live when the commit applies; a
  /// file a concurrent commit removed fails the commit ("Missing required files to
  /// delete").
  void DeleteFile(const std::string& path) { to_delete_.insert(path); }
  /// A delete file to add (a deletion vector or position delete file of a merge-on-read
  /// delete; iceberg-java's RowDelta.addDeletes). With `data_sequence_number` (format v2
  /// and later) its entry takes that number instead of the commit's, as iceberg-java's
  /// RewriteFiles.addFile(deleteFile, dataSequenceNumber) gives a rewritten delete file
  /// the newest number of the files it replaces.
  void AddDeleteFile(DataFile file,
                     std::optional<int64_t> data_sequence_number = std::nullopt) {
    added_deletes_.push_back(std::move(file));
    added_delete_sequences_.push_back(data_sequence_number);
  }
  /// A delete file to remove: a deletion vector the commit replaces with a merged one.
  /// It must still be live when the commit applies (else ValidationFailed: a concurrent
  /// commit removed or replaced it).
  void RemoveDeleteFile(const DataFile& file) {
    deletes_to_remove_.insert(DeleteKey(file));
  }
  /// Every live delete file in `data`'s partition (its spec and partition tuple) is
  /// removed too: a delete of whole partitions, as iceberg-java's DeleteFiles by row
  /// filter removes the delete files its filter selects by partition.
  void RemoveDeletesInPartitionOf(const DataFile& data) {
    delete_partitions_.insert(PartitionKey(data));
  }
  /// The data files the added delete files delete from: each must still be live when the
  /// commit applies (iceberg-java's validateDataFilesExist); on format v3 no other
  /// deletion vector for one of them may have been committed since the starting
  /// snapshot (validateAddedDVs).
  void ValidateDataFilesExist(std::set<std::string> paths) {
    referenced_ = std::move(paths);
  }
  /// Dynamic overwrite: every live file of the default spec whose partition tuple equals
  /// that of an added file is removed, whatever committed it ("replace-partitions"
  /// summary).
  void ReplacePartitions() { replace_partitions_ = true; }
  /// The added files hold exactly the rows of the deleted ones (compaction): the
  /// snapshot's operation is "replace", as iceberg-java's RewriteFiles commits it.
  void RewriteFiles() { rewrite_ = true; }
  /// The added data files take this data sequence number instead of the commit's
  /// (iceberg-java's RewriteFiles.dataSequenceNumber; format v2 and later): a compaction
  /// gives them its starting snapshot's, so that equality deletes committed while it ran
  /// still apply to the rows it moved.
  void DataSequenceNumber(int64_t sequence_number) { data_sequence_ = sequence_number; }
  /// `files` (data files the commit removes) must have no delete file committed since
  /// the starting snapshot that applies to them (iceberg-java's
  /// validateNoNewDeletesForDataFiles, by DeleteFileIndex's rules): their rows are being
  /// rewritten, so such a delete would be lost. With DataSequenceNumber set, equality
  /// deletes do not count: they still apply to the rewritten rows.
  void ValidateNoNewDeletesFor(std::vector<DataFile> files) {
    replaced_files_ = std::move(files);
  }

  /// The snapshot the operation read (nullopt: it read an empty table). Conflict checks
  /// look at what committed after it.
  void ValidateFromSnapshot(std::optional<int64_t> snapshot_id) {
    validate_from_ = snapshot_id;
    validate_ = true;
  }
  /// The rows the operation read, for the conflict checks: a bound, NOT-free filter over
  /// `schema` (the table's current schema). Without one every file conflicts.
  void ConflictDetectionFilter(ExpressionPtr filter, SchemaPtr schema) {
    conflict_filter_ = std::move(filter);
    conflict_schema_ = std::move(schema);
  }
  /// Serializable: data files added since the starting snapshot that might hold rows
  /// matching the conflict filter (or, for a dynamic overwrite, that fall in a replaced
  /// partition) fail the commit.
  void ValidateNoConflictingData() { no_conflicting_data_ = true; }
  /// Both levels: delete files added since the starting snapshot that might apply to the
  /// rows read fail the commit.
  void ValidateNoConflictingDeletes() { no_conflicting_deletes_ = true; }
  /// Validates as Spark's merge-on-read DELETE commits its RowDelta: delete files
  /// committed meanwhile do not conflict (validateNoConflictingDeleteFiles is for UPDATE
  /// and MERGE), a delete file to remove that a concurrent commit already removed is
  /// skipped (no validateDeletedFiles: the positions it held are in the new file too),
  /// and a data file to delete from that a concurrent delete removed does not fail
  /// ValidateDataFilesExist (its skipDeletes: only overwrites and replaces count).
  void ValidateAsMergeOnReadDelete() {
    no_conflicting_deletes_ = false;
    ignore_missing_deletes_ = true;
    data_removed_by_deletes_ok_ = true;
  }

  /// A file's spec id and partition tuple as a key: equal exactly when iceberg-java
  /// compares them equal (floats bitwise).
  static std::string PartitionKey(const DataFile& file);

  size_t added_count() const { return added_.size(); }
  size_t deleted_count() const { return to_delete_.size(); }
  size_t added_delete_count() const { return added_deletes_.size(); }

 protected:
  std::string Operation() const override;
  // iceberg-java's overwrite, replace-partitions and delete are merging producers.
  bool MergesManifests() const override { return true; }
  arrow::Result<std::vector<ManifestFile>> Apply(const TableMetadata& base,
                                                 const Snapshot* parent) override;
  void Summarize(const TableMetadata& base, SnapshotSummaryBuilder* summary) override;
  std::vector<std::string> AddedFileLocations() const override {
    std::vector<std::string> locations;
    for (const auto& file : added_) locations.push_back(file.file_path);
    for (const auto& file : added_deletes_) locations.push_back(file.file_path);
    return locations;
  }

 private:
  arrow::Status Validate(const TableMetadata& base, const Snapshot* parent);
  /// ValidateNoNewDeletesFor's check over the snapshots committed since the starting one.
  arrow::Status ValidateNoNewDeletes(const TableMetadata& base,
                                     const std::vector<SnapshotPtr>& newer);
  /// Removes the delete files iceberg-java's merging producers remove: on format v3 the
  /// deletion vector of every data file the commit removes (a DV is never left
  /// dangling), and any delete file whose data sequence number is below
  /// `min_data_sequence`, the oldest data the table keeps (it can delete nothing any
  /// more: dropDeleteFilesOlderThan), in the manifests iceberg-java's filter reads: every
  /// one when the commit removes data files, only those holding a removed delete file
  /// when it removes only delete files, none when it removes nothing (so an append or a
  /// merge-on-read delete leaves aged delete files). Rewrites the delete manifests of
  /// `manifests` at the indexes `delete_manifests` that hold such files, and adds them to
  /// removed_ for the summary (removed-delete-files, removed-dvs,
  /// removed-position-deletes).
  arrow::Status RemoveDeleteFiles(const TableMetadata& base,
                                  const std::vector<size_t>& delete_manifests,
                                  int64_t min_data_sequence,
                                  std::vector<ManifestFile>* manifests);
  /// Writes the manifests of the added data and delete files into new_manifests_.
  arrow::Status WriteNewManifests(const TableMetadata& base);
  /// The manifest that replaces a data manifest of the parent: it, or its rewrite with
  /// the files the commit removes marked deleted (added to removed_ and `found`).
  arrow::Result<ManifestFile> FilterDataManifest(const TableMetadata& base,
                                                 ManifestFile manifest,
                                                 const std::set<std::string>& replaced,
                                                 std::set<std::string>* found,
                                                 int64_t* min_data_sequence);
  bool MightConflict(const TableMetadata& base, const DataFile& file) const;
  /// A delete file's identity: a deletion vector shares its Puffin file with others, so
  /// its offset counts too.
  static std::string DeleteKey(const DataFile& file);

  std::vector<DataFile> added_;
  std::set<std::string> to_delete_;
  std::vector<DataFile> added_deletes_;
  std::vector<std::optional<int64_t>> added_delete_sequences_;  ///< One per added delete.
  std::set<std::string> deletes_to_remove_;
  std::set<std::string> delete_partitions_;  ///< PartitionKey of each.
  std::set<std::string> referenced_;
  bool replace_partitions_ = false;
  bool rewrite_ = false;
  std::optional<int64_t> data_sequence_;
  std::vector<DataFile> replaced_files_;
  bool validate_ = false;
  std::optional<int64_t> validate_from_;
  ExpressionPtr conflict_filter_;
  SchemaPtr conflict_schema_;
  bool no_conflicting_data_ = false;
  bool no_conflicting_deletes_ = false;
  bool ignore_missing_deletes_ = false;
  bool data_removed_by_deletes_ok_ = false;

  std::optional<std::vector<ManifestFile>> new_manifests_;
  /// Rewritten manifests by the path of the manifest they replace, reused across
  /// attempts.
  std::map<std::string, std::optional<ManifestFile>> rewritten_;
  /// The files the latest attempt removed (for the summary).
  std::vector<DataFile> removed_;
};

}  // namespace floe::iceberg
