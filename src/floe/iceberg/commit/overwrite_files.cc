#include "floe/iceberg/commit/overwrite_files.h"

#include <algorithm>
#include <cctype>

#include "floe/expr/evaluators.h"
#include "floe/iceberg/expr/metrics_summaries_internal.h"
#include "floe/iceberg/expr/projection.h"
#include "floe/iceberg/manifest/delete_index.h"
#include "floe/iceberg/manifest/snapshot_manifests.h"
#include "floe/iceberg/transform/partition_path.h"
#include "floe/util/error.h"
#include "floe/util/text.h"

namespace floe::iceberg {

namespace {

// The snapshots committed since `validate_from`: `parent_id`'s ancestry down to it.
arrow::Result<std::vector<SnapshotPtr>> SnapshotsSince(
    const TableMetadata& base, int64_t parent_id, std::optional<int64_t> validate_from,
    const TableIdentifier& table) {
  std::vector<SnapshotPtr> newer;
  for (SnapshotPtr current = base.SnapshotById(parent_id); current;) {
    if (validate_from && current->snapshot_id == *validate_from) break;
    newer.push_back(current);
    if (!current->parent_snapshot_id) {
      if (validate_from) {
        return MakeError(
            ErrorKind::kValidationFailed,
            "cannot validate the commit to " + table.ToString() + ": snapshot " +
                std::to_string(*validate_from) +
                " it started from is no longer an ancestor of the current snapshot");
      }
      break;
    }
    current = base.SnapshotById(*current->parent_snapshot_id);
    if (!current && validate_from) {
      return MakeError(ErrorKind::kValidationFailed,
                       "cannot validate the commit to " + table.ToString() +
                           ": the history since snapshot " +
                           std::to_string(*validate_from) + " has been expired");
    }
  }
  return newer;
}

// The error for the conflicting data (or delete) `files` that `snapshot` added.
arrow::Status ConflictingFilesError(bool data, const std::vector<std::string>& files,
                                    const std::string& what, const Snapshot& snapshot,
                                    const TableIdentifier& table,
                                    std::optional<int64_t> validate_from) {
  std::string list;
  for (size_t i = 0; i < files.size() && i < 5; ++i) list += (i ? ", " : "") + files[i];
  if (files.size() > 5) list += ", ... (" + std::to_string(files.size()) + " files)";
  return MakeError(
      ErrorKind::kValidationFailed,
      std::string(data ? "Found conflicting files that can contain records matching "
                       : "Found new conflicting delete files that can apply to "
                         "records matching ") +
          what + ": snapshot " + std::to_string(snapshot.snapshot_id) + " (" +
          snapshot.summary.operation + ") committed to " + table.ToString() +
          " after snapshot " +
          (validate_from ? std::to_string(*validate_from) : std::string("none")) +
          " added " + list);
}

// Lowers `*min_data_sequence` to `sequence` unless that is negative (unknown).
void NoteDataSequence(int64_t sequence, int64_t* min_data_sequence) {
  if (sequence >= 0) *min_data_sequence = std::min(*min_data_sequence, sequence);
}

}  // namespace

arrow::Result<IsolationLevel> ParseIsolationLevel(const std::string& text,
                                                  std::string_view property) {
  const std::string lowered = AsciiLower(text);
  if (lowered == "serializable") return IsolationLevel::kSerializable;
  if (lowered == "snapshot") return IsolationLevel::kSnapshot;
  return MakeError(ErrorKind::kInvalidInput, "property " + std::string(property) +
                                                 " must be serializable or snapshot");
}

std::string OverwriteFiles::Operation() const {
  if (rewrite_) return operations::kReplace;
  if (replace_partitions_) return operations::kOverwrite;
  // iceberg-java's RowDelta: only delete files added is a delete.
  if (!added_deletes_.empty()) {
    return added_.empty() && to_delete_.empty() ? operations::kDelete
                                                : operations::kOverwrite;
  }
  if (!added_.empty() && to_delete_.empty()) return operations::kAppend;
  if (added_.empty() && !to_delete_.empty()) return operations::kDelete;
  return operations::kOverwrite;
}

std::string OverwriteFiles::PartitionKey(const DataFile& file) {
  std::string key = std::to_string(file.spec_id) + "/";
  for (const auto& value : file.partition) {
    key += std::to_string(value.index()) + ":";
    Bytes bytes;
    std::visit(
        [&](const auto& typed) {
          using T = std::decay_t<decltype(typed)>;
          if constexpr (std::is_same_v<T, std::monostate>) {
            key += "null";
          } else if constexpr (std::is_same_v<T, std::string>) {
            key += std::to_string(typed.size()) + ":" + typed;
          } else if constexpr (std::is_same_v<T, Bytes>) {
            key += std::to_string(typed.size()) + ":" +
                   std::string(typed.begin(), typed.end());
          } else if constexpr (std::is_same_v<T, Decimal>) {
            key += std::to_string(static_cast<int64_t>(typed.unscaled >> 64)) + "." +
                   std::to_string(static_cast<uint64_t>(typed.unscaled));
          } else if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
            // Partitions are told apart bitwise, as iceberg-java compares them (-0.0 !=
            // 0.0).
            key += std::to_string(
                std::bit_cast<
                    std::conditional_t<std::is_same_v<T, float>, uint32_t, uint64_t>>(
                    typed));
          } else {
            key += std::to_string(typed);
          }
        },
        value);
    key += "|";
  }
  return key;
}

std::string OverwriteFiles::DeleteKey(const DataFile& file) {
  return file.file_path + "#" + std::to_string(file.content_offset.value_or(-1));
}

// Whether `file`, committed concurrently, might hold rows the operation read.
bool OverwriteFiles::MightConflict(const TableMetadata& base,
                                   const DataFile& file) const {
  if (!conflict_filter_) return true;
  const Schema& schema = *conflict_schema_;
  auto spec = base.SpecById(file.spec_id);
  if (spec) {
    auto projected = ProjectInclusive(conflict_filter_, *spec, schema);
    auto partition_type = spec->PartitionType(schema);
    if (projected.ok() && partition_type.ok()) {
      std::map<int, ColumnSummary> partition;
      for (size_t i = 0; i < spec->fields().size() && i < file.partition.size(); ++i) {
        partition[spec->fields()[i].field_id] =
            SummaryFromValue(file.partition[i], *(*partition_type)->fields()[i].type);
      }
      SummaryLookup lookup = [&](int id) -> const ColumnSummary* {
        auto it = partition.find(id);
        return it == partition.end() ? nullptr : &it->second;
      };
      if (!MightMatch(**projected, lookup)) return false;
    }
  }
  std::map<int, ColumnSummary> metrics;
  for (int id : ReferencedFieldIds(*conflict_filter_)) {
    if (const NestedField* field = schema.FindField(id)) {
      metrics[id] = SummaryFromMetrics(file, id, *field->type);
    }
  }
  SummaryLookup lookup = [&](int id) -> const ColumnSummary* {
    auto it = metrics.find(id);
    return it == metrics.end() ? nullptr : &it->second;
  };
  return MightMatch(*conflict_filter_, lookup);
}

arrow::Status OverwriteFiles::Validate(const TableMetadata& base,
                                       const Snapshot* parent) {
  if (!validate_ || parent == nullptr) return arrow::Status::OK();
  if (validate_from_ && parent->snapshot_id == *validate_from_)
    return arrow::Status::OK();
  ARROW_ASSIGN_OR_RAISE(
      std::vector<SnapshotPtr> newer,
      SnapshotsSince(base, parent->snapshot_id, validate_from_, target().id));
  if (!replaced_files_.empty()) {
    ARROW_RETURN_NOT_OK(ValidateNoNewDeletes(base, newer));
  }
  std::set<std::string> replaced;
  if (replace_partitions_) {
    for (const auto& file : added_) replaced.insert(PartitionKey(file));
  }
  // The first failure of each check, reported in the order iceberg-java's RowDelta runs
  // them: missing data files, conflicting data files, conflicting delete files, and last
  // a concurrently added deletion vector.
  std::optional<arrow::Status> missing_data, data_conflict, delete_conflict, dv_conflict;
  for (const auto& snapshot : newer) {
    ARROW_ASSIGN_OR_RAISE(auto manifests, ManifestsOf(*snapshot));
    std::vector<std::string> conflicts;         // data files
    std::vector<std::string> delete_conflicts;  // delete files
    for (const auto& manifest : manifests) {
      if (manifest.added_snapshot_id != snapshot->snapshot_id) continue;
      const bool deletes = manifest.content == ManifestContent::kDeletes;
      // What this manifest is read for: conflicting files of either kind, and for a
      // merge-on-read delete, the data files it deletes from being removed (data) or
      // given another deletion vector (deletes, format v3).
      const bool conflicts_checked =
          deletes ? no_conflicting_deletes_ : no_conflicting_data_;
      const bool referenced_checked =
          !referenced_.empty() &&
          (deletes ? base.format_version >= 3
                   : manifest.deleted_files_count.value_or(1) > 0);
      if (!conflicts_checked && !referenced_checked) continue;
      ARROW_ASSIGN_OR_RAISE(auto contents,
                            ReadTableManifest(*target().io, base, manifest));
      for (const auto& entry : contents.entries) {
        if (entry.snapshot_id != snapshot->snapshot_id) continue;
        const DataFile& file = entry.data_file;
        if (referenced_checked && !deletes && entry.status == EntryStatus::kDeleted &&
            referenced_.count(file.file_path) &&
            !(data_removed_by_deletes_ok_ && snapshot->summary.operation == "delete") &&
            !missing_data) {
          missing_data =
              MakeError(ErrorKind::kValidationFailed,
                        "Cannot commit, missing data files: " + file.file_path +
                            " was removed from " + target().id.ToString() +
                            " by snapshot " + std::to_string(snapshot->snapshot_id) +
                            " (" + snapshot->summary.operation + ")");
        }
        if (entry.status != EntryStatus::kAdded) continue;
        if (referenced_checked && deletes && file.file_format == FileFormat::kPuffin &&
            file.referenced_data_file && referenced_.count(*file.referenced_data_file) &&
            !dv_conflict) {
          dv_conflict = MakeError(
              ErrorKind::kValidationFailed,
              "Found concurrently added DV for " + *file.referenced_data_file + ": " +
                  file.file_path + " (snapshot " + std::to_string(snapshot->snapshot_id) +
                  " committed to " + target().id.ToString() + ")");
        }
        if (!conflicts_checked) continue;
        bool conflict = replace_partitions_ && !deletes
                            ? replaced.count(PartitionKey(file)) > 0
                            : MightConflict(base, file);
        if (conflict) (deletes ? delete_conflicts : conflicts).push_back(file.file_path);
      }
    }
    // In iceberg-java's words for each kind.
    for (bool data : {true, false}) {
      const auto& files = data ? conflicts : delete_conflicts;
      auto& first = data ? data_conflict : delete_conflict;
      if (files.empty() || first) continue;
      std::string what = conflict_filter_
                             ? conflict_filter_->ToString()
                             : (replace_partitions_ ? "the replaced partitions" : "TRUE");
      first = ConflictingFilesError(data, files, what, *snapshot, target().id,
                                    validate_from_);
    }
  }
  for (const auto* failure :
       {&missing_data, &data_conflict, &delete_conflict, &dv_conflict}) {
    if (*failure) return **failure;
  }
  return arrow::Status::OK();
}

arrow::Status OverwriteFiles::ValidateNoNewDeletes(
    const TableMetadata& base, const std::vector<SnapshotPtr>& newer) {
  // Format v1 has no delete files.
  if (base.format_version < 2) return arrow::Status::OK();
  DeleteIndex added;
  std::map<std::string, int64_t> committed_by;  // delete file path -> snapshot id
  for (const auto& snapshot : newer) {
    ARROW_ASSIGN_OR_RAISE(auto manifests, ManifestsOf(*snapshot));
    for (const auto& manifest : manifests) {
      if (manifest.content != ManifestContent::kDeletes ||
          manifest.added_snapshot_id != snapshot->snapshot_id)
        continue;
      ARROW_ASSIGN_OR_RAISE(auto contents,
                            ReadTableManifest(*target().io, base, manifest));
      for (auto& entry : contents.entries) {
        if (entry.status != EntryStatus::kAdded ||
            entry.snapshot_id != snapshot->snapshot_id)
          continue;
        committed_by[entry.data_file.file_path] = snapshot->snapshot_id;
        added.Add(DeleteFileEntry{
            std::move(entry.data_file),
            entry.sequence_number.value_or(snapshot->sequence_number), contents.spec});
      }
    }
  }
  if (added.empty()) return arrow::Status::OK();
  int64_t starting_sequence = 0;
  if (validate_from_) {
    if (auto starting = base.SnapshotById(*validate_from_)) {
      starting_sequence = starting->sequence_number;
    }
  }
  for (const auto& file : replaced_files_) {
    auto spec = base.SpecById(file.spec_id);
    if (!spec) continue;
    for (const auto& deletes : added.For(file, starting_sequence, *spec)) {
      if (data_sequence_ && deletes->file.content == FileContent::kEqualityDeletes) {
        continue;
      }
      return MakeError(
          ErrorKind::kValidationFailed,
          "Cannot commit, found new delete for replaced data file: " + file.file_path +
              " (delete file " + deletes->file.file_path + ", snapshot " +
              std::to_string(committed_by[deletes->file.file_path]) + " committed to " +
              target().id.ToString() + ")");
    }
  }
  return arrow::Status::OK();
}

arrow::Result<std::vector<ManifestFile>> OverwriteFiles::Apply(const TableMetadata& base,
                                                               const Snapshot* parent) {
  ARROW_RETURN_NOT_OK(Validate(base, parent));
  if (!new_manifests_) ARROW_RETURN_NOT_OK(WriteNewManifests(base));
  std::set<std::string> replaced;
  if (replace_partitions_) {
    for (const auto& file : added_) replaced.insert(PartitionKey(file));
  }
  std::vector<ManifestFile> manifests = *new_manifests_;
  removed_.clear();
  std::set<std::string> found;
  // Delete manifests, by their place in `manifests`: seen once every removed data file
  // and the oldest data left are known.
  std::vector<size_t> delete_manifests;
  // The smallest data sequence number of the data the parent's manifests still hold
  // after this commit (iceberg-java's MergingSnapshotProducer: over the filtered data
  // manifests, not the new ones, from the table's last sequence number down).
  int64_t min_data_sequence = base.last_sequence_number;
  if (parent != nullptr) {
    ARROW_ASSIGN_OR_RAISE(auto existing, ManifestsOf(*parent));
    for (auto& manifest : existing) {
      if (manifest.content == ManifestContent::kDeletes) {
        delete_manifests.push_back(manifests.size());
        manifests.push_back(std::move(manifest));
        continue;
      }
      if (to_delete_.empty() && replaced.empty()) {
        NoteDataSequence(manifest.min_sequence_number, &min_data_sequence);
        manifests.push_back(std::move(manifest));
        continue;
      }
      ARROW_ASSIGN_OR_RAISE(
          auto kept, FilterDataManifest(base, std::move(manifest), replaced, &found,
                                        &min_data_sequence));
      manifests.push_back(std::move(kept));
    }
  }
  for (const auto& path : to_delete_) {
    if (!found.count(path)) {
      return MakeError(ErrorKind::kValidationFailed,
                       "Missing required files to delete: " + path +
                           " is no longer in table " + target().id.ToString() +
                           " (a concurrent commit removed it)");
    }
  }
  ARROW_RETURN_NOT_OK(
      RemoveDeleteFiles(base, delete_manifests, min_data_sequence, &manifests));
  return manifests;
}

arrow::Status OverwriteFiles::WriteNewManifests(const TableMetadata& base) {
  // Sequence numbers exist from format v2 on.
  std::optional<int64_t> sequence;
  if (base.format_version >= 2) sequence = data_sequence_;
  ARROW_ASSIGN_OR_RAISE(
      new_manifests_,
      WriteAddedManifests(base, added_, ManifestContent::kData, sequence));
  ARROW_ASSIGN_OR_RAISE(
      auto delete_manifests,
      WriteAddedManifests(base, added_deletes_, ManifestContent::kDeletes,
                          base.format_version >= 2 ? added_delete_sequences_
                                                   : std::vector<std::optional<int64_t>>(
                                                         added_deletes_.size())));
  for (auto& manifest : delete_manifests) new_manifests_->push_back(std::move(manifest));
  return arrow::Status::OK();
}

arrow::Result<ManifestFile> OverwriteFiles::FilterDataManifest(
    const TableMetadata& base, ManifestFile manifest,
    const std::set<std::string>& replaced, std::set<std::string>* found,
    int64_t* min_data_sequence) {
  auto cached = rewritten_.find(manifest.manifest_path);
  ARROW_ASSIGN_OR_RAISE(auto contents, ReadTableManifest(*target().io, base, manifest));
  const PartitionSpecPtr spec = contents.spec;
  std::vector<ManifestEntry> entries;
  for (auto& entry : contents.entries) {
    // A rewritten manifest drops the deletions of earlier snapshots.
    if (entry.status == EntryStatus::kDeleted) continue;
    const std::string& path = entry.data_file.file_path;
    bool remove =
        to_delete_.count(path) > 0 ||
        (!replaced.empty() && replaced.count(PartitionKey(entry.data_file)) > 0);
    if (remove) {
      found->insert(path);
      removed_.push_back(entry.data_file);
      entry.status = EntryStatus::kDeleted;
      entry.snapshot_id = snapshot_id();
    } else {
      entry.status = EntryStatus::kExisting;
      if (entry.sequence_number) {
        NoteDataSequence(*entry.sequence_number, min_data_sequence);
      }
    }
    entries.push_back(std::move(entry));
  }
  bool touched = std::any_of(entries.begin(), entries.end(), [](const ManifestEntry& e) {
    return e.status == EntryStatus::kDeleted;
  });
  if (!touched) {
    NoteDataSequence(manifest.min_sequence_number, min_data_sequence);
    return manifest;  // nothing of ours: keep it as it is
  }
  ++replaced_manifests_;
  if (cached != rewritten_.end() && cached->second) return *cached->second;
  if (!spec) {
    return MakeError(ErrorKind::kInvalidMetadata, "manifest " + manifest.manifest_path +
                                                      " uses an unknown partition spec");
  }
  ARROW_ASSIGN_OR_RAISE(auto rewritten, WriteManifest(base, *spec, entries));
  rewritten_[manifest.manifest_path] = rewritten;
  return rewritten;
}

arrow::Status OverwriteFiles::RemoveDeleteFiles(
    const TableMetadata& base, const std::vector<size_t>& delete_manifests,
    int64_t min_data_sequence, std::vector<ManifestFile>* manifests) {
  // iceberg-java's ManifestFilterManager reads delete manifests only for a commit that
  // removes something, and drops the aged delete files of each manifest it reads. A
  // commit that removes data files (or a partition's deletes) reads them all; one that
  // removes only delete files reads just the manifests holding them (it trusts the
  // manifest each was read from); one that removes nothing (an append, a merge-on-read
  // delete that only adds delete files) reads none, and aged delete files stay.
  const bool removes_data = !removed_.empty() || !delete_partitions_.empty();
  if (!removes_data && deletes_to_remove_.empty()) return arrow::Status::OK();
  std::set<std::string> found;  // of deletes_to_remove_
  std::set<std::string> removed_data;
  if (base.format_version >= 3) {
    for (const auto& file : removed_) removed_data.insert(file.file_path);
  }
  for (size_t index : delete_manifests) {
    ManifestFile& manifest = (*manifests)[index];
    // Only a manifest that may hold either kind is read.
    const bool may_be_old = manifest.min_sequence_number >= 0 &&
                            manifest.min_sequence_number < min_data_sequence;
    if (removed_data.empty() && !may_be_old && deletes_to_remove_.empty() &&
        delete_partitions_.empty())
      continue;
    ARROW_ASSIGN_OR_RAISE(auto contents, ReadTableManifest(*target().io, base, manifest));
    const bool drops_aged =
        removes_data ||
        std::any_of(contents.entries.begin(), contents.entries.end(),
                    [&](const ManifestEntry& entry) {
                      return entry.status != EntryStatus::kDeleted &&
                             deletes_to_remove_.count(DeleteKey(entry.data_file)) > 0;
                    });
    std::vector<ManifestEntry> entries;
    bool touched = false;
    for (auto& entry : contents.entries) {
      if (entry.status == EntryStatus::kDeleted) continue;
      const DataFile& file = entry.data_file;
      const int64_t sequence = entry.sequence_number.value_or(0);
      // Older than every data file left: it can delete nothing any more (iceberg-java's
      // dropDeleteFilesOlderThan).
      const bool too_old = drops_aged && sequence > 0 && sequence < min_data_sequence;
      const bool dangling_vector = file.file_format == FileFormat::kPuffin &&
                                   file.referenced_data_file &&
                                   removed_data.count(*file.referenced_data_file) > 0;
      const bool replaced = deletes_to_remove_.count(DeleteKey(file)) > 0;
      if (replaced) found.insert(DeleteKey(file));
      const bool in_removed_partition =
          !delete_partitions_.empty() && delete_partitions_.count(PartitionKey(file)) > 0;
      if (too_old || dangling_vector || replaced || in_removed_partition) {
        removed_.push_back(file);
        entry.status = EntryStatus::kDeleted;
        entry.snapshot_id = snapshot_id();
        touched = true;
      } else {
        entry.status = EntryStatus::kExisting;
      }
      entries.push_back(std::move(entry));
    }
    if (!touched) continue;  // kept as it is
    if (!contents.spec) {
      return MakeError(
          ErrorKind::kInvalidMetadata,
          "manifest " + manifest.manifest_path + " uses an unknown partition spec");
    }
    ++replaced_manifests_;
    ARROW_ASSIGN_OR_RAISE(manifest, WriteManifest(base, *contents.spec, entries,
                                                  ManifestContent::kDeletes));
  }
  for (const auto& key : deletes_to_remove_) {
    if (!found.count(key) && !ignore_missing_deletes_) {
      return MakeError(
          ErrorKind::kValidationFailed,
          "Missing required files to delete: " + key.substr(0, key.rfind('#')) +
              ", a delete file no longer in table " + target().id.ToString() +
              " (a concurrent commit removed or replaced it)");
    }
  }
  return arrow::Status::OK();
}

void OverwriteFiles::Summarize(const TableMetadata& base,
                               SnapshotSummaryBuilder* summary) {
  if (replace_partitions_) summary->Set("replace-partitions", "true");
  auto schema = base.CurrentSchema();
  auto path_of = [&](const DataFile& file) {
    std::string path;
    auto spec = base.SpecById(file.spec_id);
    if (spec != nullptr && !spec->fields().empty()) {
      auto type = spec->PartitionType(*schema);
      if (type.ok()) path = PartitionToPath(*spec, **type, file.partition);
    }
    return path;
  };
  for (const auto& file : added_) summary->AddedFile(file, path_of(file));
  for (const auto& file : added_deletes_) summary->AddedFile(file, path_of(file));
  for (const auto& file : removed_) summary->RemovedFile(file, path_of(file));
}

}  // namespace floe::iceberg
