#include "floe/iceberg/commit/snapshot_producer.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "floe/iceberg/manifest/snapshot_manifests.h"
#include "floe/iceberg/spec/location_provider.h"
#include "floe/util/error.h"
#include "floe/util/location.h"
#include "floe/util/log.h"
#include "floe/util/uuid.h"

namespace floe::iceberg {

RetryPolicy RetryPolicy::FromProperties(const PropertyMap& properties) {
  RetryPolicy policy;
  policy.num_retries = static_cast<int>(
      std::max<int64_t>(0, properties::kCommitNumRetries.Get(properties)));
  policy.min_wait_ms =
      std::max<int64_t>(0, properties::kCommitMinRetryWaitMs.Get(properties));
  policy.max_wait_ms =
      std::max<int64_t>(0, properties::kCommitMaxRetryWaitMs.Get(properties));
  policy.total_timeout_ms =
      std::max<int64_t>(0, properties::kCommitTotalRetryTimeMs.Get(properties));
  return policy;
}

SnapshotProducer::SnapshotProducer(CommitTarget target)
    : target_(std::move(target)),
      snapshot_id_(NewSnapshotId(target_.env)),
      commit_uuid_(Uuid::Random(target_.env).ToString()) {}

arrow::Status SnapshotProducer::SetSummaryProperty(const std::string& key,
                                                   const std::string& value) {
  if (key.empty() || IsComputedSummaryKey(key)) {
    return MakeError(ErrorKind::kInvalidInput,
                     "snapshot summary property '" + key +
                         "' cannot be set: floe computes it for every snapshot");
  }
  extra_summary_[key] = value;
  return arrow::Status::OK();
}

arrow::Result<ManifestFile> SnapshotProducer::WriteManifest(
    const TableMetadata& base, const PartitionSpec& spec,
    const std::vector<ManifestEntry>& entries, ManifestContent content) {
  ManifestWriteOptions options;
  options.format_version = base.format_version;
  options.schema = base.CurrentSchema();
  options.spec = base.SpecById(spec.spec_id());
  if (options.spec == nullptr) {
    return MakeError(
        ErrorKind::kValidationFailed,
        "partition spec " + std::to_string(spec.spec_id()) + " is not in the table");
  }
  options.content = content;
  options.snapshot_id = snapshot_id_;
  // iceberg-java's SnapshotProducer.manifestWriterProperties: the table's manifest codec.
  ARROW_RETURN_NOT_OK(
      ManifestCodecFromProperties(base.properties, &options.codec, &options.codec_level));
  ARROW_ASSIGN_OR_RAISE(auto writer, ManifestWriter::Make(options));
  for (const auto& entry : entries) ARROW_RETURN_NOT_OK(writer->Add(entry));
  ARROW_ASSIGN_OR_RAISE(auto encoded, writer->Finish());
  LocationProvider locations(base.location, base.properties);
  std::string location = locations.NewMetadataLocation(
      commit_uuid_ + "-m" + std::to_string(manifest_count_++) + ".avro");
  written_.push_back(location);
  ARROW_RETURN_NOT_OK(target_.io->WriteAll(location, encoded.bytes));
  encoded.summary.manifest_path = location;
  return encoded.summary;
}

arrow::Result<std::vector<ManifestFile>> SnapshotProducer::WriteAddedManifests(
    const TableMetadata& base, const std::vector<DataFile>& files,
    ManifestContent content, std::optional<int64_t> data_sequence_number) {
  return WriteAddedManifests(
      base, files, content,
      std::vector<std::optional<int64_t>>(files.size(), data_sequence_number));
}

arrow::Result<std::vector<ManifestFile>> SnapshotProducer::WriteAddedManifests(
    const TableMetadata& base, const std::vector<DataFile>& files,
    ManifestContent content,
    const std::vector<std::optional<int64_t>>& data_sequence_numbers) {
  if (data_sequence_numbers.size() != files.size()) {
    return arrow::Status::Invalid("WriteAddedManifests: ", files.size(), " files but ",
                                  data_sequence_numbers.size(), " sequence numbers");
  }
  std::map<int, std::vector<ManifestEntry>> by_spec;
  for (size_t i = 0; i < files.size(); ++i) {
    const DataFile& file = files[i];
    ManifestEntry entry;
    entry.status = EntryStatus::kAdded;
    entry.snapshot_id = snapshot_id_;
    entry.sequence_number = data_sequence_numbers[i];
    entry.data_file = file;
    by_spec[file.spec_id].push_back(std::move(entry));
  }
  std::vector<ManifestFile> written;
  for (const auto& [spec_id, entries] : by_spec) {
    auto spec = base.SpecById(spec_id);
    if (spec == nullptr) {
      return MakeError(ErrorKind::kValidationFailed,
                       "cannot write to " + target_.id.ToString() + ": partition spec " +
                           std::to_string(spec_id) + " is not in the table");
    }
    ARROW_ASSIGN_OR_RAISE(auto manifest, WriteManifest(base, *spec, entries, content));
    written.push_back(std::move(manifest));
  }
  return written;
}

arrow::Result<std::vector<ManifestFile>> SnapshotProducer::ManifestsOf(
    const Snapshot& snapshot) {
  return ReadSnapshotManifests(*target_.io, snapshot);
}

arrow::Result<std::vector<ManifestFile>> SnapshotProducer::MergeManifests(
    const TableMetadata& base, std::vector<ManifestFile> manifests) {
  // Only manifests with live files, or written by this snapshot, are carried.
  std::erase_if(manifests, [&](const ManifestFile& manifest) {
    bool has_added = !manifest.added_files_count || *manifest.added_files_count > 0;
    bool has_existing =
        !manifest.existing_files_count || *manifest.existing_files_count > 0;
    return !has_added && !has_existing && manifest.added_snapshot_id != snapshot_id_;
  });
  std::vector<ManifestFile> data, deletes;
  for (auto& manifest : manifests) {
    (manifest.content == ManifestContent::kData ? data : deletes)
        .push_back(std::move(manifest));
  }
  const PropertyMap& props = base.properties;
  if (!properties::kManifestMergeEnabled.Get(props) || data.empty()) {
    data.insert(data.end(), deletes.begin(), deletes.end());
    return data;
  }
  const int64_t target_size = properties::kManifestTargetSizeBytes.Get(props);
  const int64_t min_count = properties::kManifestMinMergeCount.Get(props);
  const std::string first = data.front().manifest_path;
  // Groups by spec, highest spec id first, each in list order.
  std::map<int, std::vector<ManifestFile>, std::greater<>> groups;
  for (auto& manifest : data) groups[manifest.partition_spec_id].push_back(manifest);
  std::vector<ManifestFile> merged;
  for (const auto& [spec_id, group] : groups) {
    // ListPacker.packEnd with a lookback of 1: fill bins walking back from the last
    // manifest, so the under-filled bin is the one holding the newest manifests.
    std::vector<std::vector<ManifestFile>> bins;
    int64_t weight = 0;
    for (auto it = group.rbegin(); it != group.rend(); ++it) {
      if (bins.empty() || weight + it->manifest_length > target_size) {
        bins.emplace_back();
        weight = 0;
      }
      bins.back().insert(bins.back().begin(), *it);
      weight += it->manifest_length;
    }
    std::reverse(bins.begin(), bins.end());
    for (const auto& bin : bins) {
      bool holds_first = std::any_of(bin.begin(), bin.end(), [&](const ManifestFile& m) {
        return m.manifest_path == first;
      });
      if (bin.size() == 1 ||
          (holds_first && static_cast<int64_t>(bin.size()) < min_count)) {
        merged.insert(merged.end(), bin.begin(), bin.end());
        continue;
      }
      ARROW_ASSIGN_OR_RAISE(auto manifest, MergeBin(base, spec_id, bin));
      merged.push_back(std::move(manifest));
      for (const auto& m : bin) {
        if (m.added_snapshot_id != snapshot_id_) ++replaced_manifests_;
      }
    }
  }
  merged.insert(merged.end(), deletes.begin(), deletes.end());
  return merged;
}

arrow::Result<ManifestFile> SnapshotProducer::MergeBin(
    const TableMetadata& base, int spec_id, const std::vector<ManifestFile>& bin) {
  std::vector<std::string> key;
  for (const auto& manifest : bin) key.push_back(manifest.manifest_path);
  if (auto cached = merged_.find(key); cached != merged_.end()) return cached->second;
  auto spec = base.SpecById(spec_id);
  if (spec == nullptr) {
    return MakeError(ErrorKind::kInvalidMetadata,
                     "manifests of " + target_.id.ToString() + " use partition spec " +
                         std::to_string(spec_id) + ", which the table does not have");
  }
  std::vector<ManifestEntry> entries;
  for (const auto& manifest : bin) {
    // Manifests this snapshot wrote are not committed yet: their entries' row ids are
    // already what they should be (none for this snapshot's adds).
    ARROW_ASSIGN_OR_RAISE(
        auto contents,
        ReadTableManifest(*target_.io, base, manifest,
                          /*committed=*/manifest.added_snapshot_id != snapshot_id_));
    for (auto& entry : contents.entries) {
      const bool ours = entry.snapshot_id == snapshot_id_;
      if (entry.status == EntryStatus::kDeleted) {
        if (ours) entries.push_back(std::move(entry));  // only this snapshot's deletes
      } else if (entry.status == EntryStatus::kAdded && ours) {
        // Still an add; its sequence numbers are assigned when the snapshot commits.
        entry.sequence_number.reset();
        entry.file_sequence_number.reset();
        entries.push_back(std::move(entry));
      } else {
        entry.status = EntryStatus::kExisting;
        entries.push_back(std::move(entry));
      }
    }
  }
  ARROW_ASSIGN_OR_RAISE(auto merged, WriteManifest(base, *spec, entries));
  merged_[key] = merged;
  return merged;
}

arrow::Result<CommitReport> SnapshotProducer::Attempt(const TableState& base,
                                                      int attempt) {
  const TableMetadata& metadata = *base.metadata;
  SnapshotPtr parent = metadata.BranchHead(kMainBranch);
  while (metadata.SnapshotById(snapshot_id_) != nullptr) snapshot_id_ = NewSnapshotId();
  replaced_manifests_ = 0;
  // First: a plan's files committed already explain a refusal better than any conflict
  // they would cause.
  ARROW_RETURN_NOT_OK(CheckNotCommittedSince(metadata, parent.get()));
  ARROW_ASSIGN_OR_RAISE(auto manifests, Apply(metadata, parent.get()));
  if (MergesManifests()) {
    ARROW_ASSIGN_OR_RAISE(manifests, MergeManifests(metadata, std::move(manifests)));
  }

  auto snapshot = std::make_shared<Snapshot>();
  snapshot->snapshot_id = snapshot_id_;
  if (parent) snapshot->parent_snapshot_id = parent->snapshot_id;
  snapshot->sequence_number = metadata.NextSequenceNumber();
  snapshot->timestamp_ms = target_.env->NowMillis();
  snapshot->schema_id = metadata.current_schema_id;

  ManifestListWriteOptions list_options;
  list_options.format_version = metadata.format_version;
  list_options.snapshot_id = snapshot_id_;
  list_options.parent_snapshot_id = snapshot->parent_snapshot_id;
  list_options.sequence_number = snapshot->sequence_number;
  if (metadata.format_version >= 3)
    list_options.first_row_id = metadata.next_row_id.value_or(0);
  ARROW_ASSIGN_OR_RAISE(auto list, WriteManifestList(list_options, manifests));
  if (metadata.format_version >= 3) {
    snapshot->first_row_id = metadata.next_row_id.value_or(0);
    snapshot->added_rows = list.assigned_rows;
  }
  LocationProvider locations(metadata.location, metadata.properties);
  snapshot->manifest_list = locations.NewMetadataLocation(
      "snap-" + std::to_string(snapshot_id_) + "-" + std::to_string(attempt) + "-" +
      commit_uuid_ + ".avro");
  written_.push_back(snapshot->manifest_list);
  ARROW_RETURN_NOT_OK(target_.io->WriteAll(snapshot->manifest_list, list.bytes));
  // The manifests and the list are durable before the catalog may name them
  // (docs/storage.md, "Durability"): their bytes when they closed, their names now.
  ARROW_RETURN_NOT_OK(SyncNewFiles(*target_.io, written_));

  SnapshotSummaryBuilder summary;
  summary.SetPartitionSummaryLimit(
      properties::kSummaryPartitionLimit.Get(metadata.properties));
  int created = 0;
  int kept = 0;
  for (const auto& manifest : list.manifests) {
    (manifest.added_snapshot_id == snapshot_id_ ? created : kept) += 1;
  }
  summary.Set("manifests-created", std::to_string(created));
  summary.Set("manifests-kept", std::to_string(kept));
  summary.Set("manifests-replaced", std::to_string(replaced_manifests_));
  Summarize(metadata, &summary);
  for (const auto& [key, value] : extra_summary_) summary.Set(key, value);
  snapshot->summary.operation = Operation();
  snapshot->summary.properties = summary.Build(parent ? &parent->summary : nullptr);

  std::vector<MetadataLogEntry> removed_logs;
  auto updated = TableMetadataBuilder(metadata, base.metadata_location, target_.env)
                     .AddSnapshot(snapshot)
                     .Build(&removed_logs);
  // Last, right before the swap: every file the snapshot adds is still there (a
  // remove-orphans given too short an age may have deleted one while the write ran).
  std::vector<std::string> added = AddedFileLocations();
  std::sort(added.begin(), added.end());
  added.erase(std::unique(added.begin(), added.end()), added.end());
  ARROW_RETURN_NOT_OK(WithContext(CheckFilesExist(*target_.io, added),
                                  "the commit to " + target_.id.ToString()));
  ARROW_ASSIGN_OR_RAISE(auto state,
                        target_.catalog->CommitTable(target_.id, base, *updated));
  DeleteTrimmedMetadataFiles(*target_.io, *updated, removed_logs);
  CommitReport report;
  report.state = std::move(state);
  report.snapshot = snapshot;
  report.attempts = attempt;
  std::set<std::string> keep;
  keep.insert(snapshot->manifest_list);
  for (const auto& manifest : list.manifests) keep.insert(manifest.manifest_path);
  DeleteUncommitted(keep);
  return report;
}

void SnapshotProducer::RefuseFilesCommittedSince(std::optional<int64_t> snapshot_id) {
  refuse_committed_ = true;
  committed_since_ = snapshot_id;
}

arrow::Status SnapshotProducer::CheckNotCommittedSince(const TableMetadata& base,
                                                       const Snapshot* parent) {
  if (!refuse_committed_ || parent == nullptr) return arrow::Status::OK();
  std::set<std::string> ours;
  for (auto& location : AddedFileLocations()) ours.insert(CanonicalLocation(location));
  if (ours.empty()) return arrow::Status::OK();
  // The files of a plan exist only after it was made, so only snapshots since its base
  // can hold them: the branch's history down to that snapshot (all of what is left of
  // it, when it was expired).
  for (SnapshotPtr current = base.SnapshotById(parent->snapshot_id); current;) {
    if (committed_since_ && current->snapshot_id == *committed_since_) break;
    ARROW_ASSIGN_OR_RAISE(auto manifests, ManifestsOf(*current));
    for (const auto& manifest : manifests) {
      if (manifest.added_snapshot_id != current->snapshot_id) continue;
      ARROW_ASSIGN_OR_RAISE(auto contents,
                            ReadTableManifest(*target_.io, base, manifest));
      for (const auto& entry : contents.entries) {
        if (!ours.contains(CanonicalLocation(entry.data_file.file_path))) continue;
        return MakeError(ErrorKind::kValidationFailed,
                         "file " + entry.data_file.file_path +
                             " was already committed to " + target_.id.ToString() +
                             " by snapshot " + std::to_string(current->snapshot_id) +
                             ": a plan's files are committed once (was the same task "
                             "message handed to a second committer?); nothing committed");
      }
    }
    if (!current->parent_snapshot_id) break;
    current = base.SnapshotById(*current->parent_snapshot_id);
  }
  return arrow::Status::OK();
}

void SnapshotProducer::DeleteUncommitted(const std::set<std::string>& keep) {
  for (const auto& location : written_) {
    if (keep.count(location)) continue;
    DeleteBestEffort(*target_.io, location, "uncommitted metadata file", "");
  }
}

void DeleteTrimmedMetadataFiles(FileIO& io, const TableMetadata& committed,
                                const std::vector<MetadataLogEntry>& trimmed) {
  if (!properties::kMetadataDeleteAfterCommit.Get(committed.properties)) return;
  const std::string folder =
      LocationProvider(committed.location, committed.properties).metadata_location();
  for (const auto& entry : trimmed) {
    // The log is only metadata: an entry naming a file outside the table's metadata
    // folder (another table's, or anyone's) is never deleted.
    if (!IsLocationUnder(entry.metadata_file, folder)) {
      Log(LogLevel::kInfo, "not deleting old metadata file " + entry.metadata_file +
                               ": it is outside the metadata folder " + folder);
      continue;
    }
    // Already gone is fine: a REST server trims and deletes on its side.
    DeleteWithinBestEffort(io, folder, entry.metadata_file, "old metadata file");
  }
}

arrow::Status RetryOnCommitFailed(
    const CommitTarget& target, const RetryPolicy& policy, TableState* base,
    const std::function<arrow::Status(const TableState&, int)>& attempt, int* attempts) {
  Env* env = target.env;
  const int64_t began = env->MonotonicMicros();
  for (int k = 1;; ++k) {
    *attempts = k;
    arrow::Status status = attempt(*base, k);
    if (status.ok() || KindOf(status) != ErrorKind::kCommitFailed) return status;
    const int64_t elapsed = (env->MonotonicMicros() - began) / 1000;
    if (k > policy.num_retries || elapsed >= policy.total_timeout_ms) {
      return WithContext(status, "gave up after " + std::to_string(k) +
                                     " attempts (commit.retry.num-retries=" +
                                     std::to_string(policy.num_retries) +
                                     ", commit.retry.total-timeout-ms=" +
                                     std::to_string(policy.total_timeout_ms) +
                                     "; raise them for many concurrent writers)");
    }
    // min(min_wait * 2^(k-1), max_wait) plus up to 10% jitter (iceberg-java's Tasks).
    double wait =
        std::min(static_cast<double>(policy.max_wait_ms),
                 static_cast<double>(policy.min_wait_ms) * std::pow(2.0, k - 1));
    // Uniform in [0, 1): the top 53 bits of a random 64-bit number.
    const double jitter =
        wait * 0.1 * static_cast<double>(env->RandomUint64() >> 11) * 0x1.0p-53;
    // Lost races are routine among concurrent writers (info); a lock that keeps the
    // catalog busy is reported where it is waited for.
    Log(LogLevel::kInfo, "commit attempt " + std::to_string(k) + " to " +
                             target.id.ToString() + " failed (" + status.message() +
                             "); retrying");
    // The properties may hold any long: the wait is bounded before it becomes one.
    const double bounded = std::clamp(wait + jitter, 0.0, 0x1.0p40);
    ARROW_RETURN_NOT_OK(
        env->SleepUnlessCancelled(static_cast<int64_t>(bounded), "committing"));
    ARROW_ASSIGN_OR_RAISE(*base, target.catalog->LoadTable(target.id));
  }
}

arrow::Result<CommitReport> SnapshotProducer::Commit(const TableState& start) {
  const RetryPolicy policy = RetryPolicy::FromProperties(start.metadata->properties);
  // The tasks closed (and so fsynced) the data files; their names and folders become
  // durable here, once for every attempt.
  ARROW_RETURN_NOT_OK(SyncNewFiles(*target_.io, AddedFileLocations()));
  TableState base = start;
  CommitReport report;
  int attempts = 0;
  arrow::Status status = RetryOnCommitFailed(
      target_, policy, &base,
      [&](const TableState& current, int attempt) -> arrow::Status {
        ARROW_ASSIGN_OR_RAISE(report, Attempt(current, attempt));
        return arrow::Status::OK();
      },
      &attempts);
  if (status.ok()) return report;
  if (KindOf(status) == ErrorKind::kCommitStateUnknown) {
    // The swap may have happened: look before reporting, and delete nothing either way.
    auto current = target_.catalog->LoadTable(target_.id);
    if (current.ok() && current->metadata->SnapshotById(snapshot_id_) != nullptr) {
      CommitReport resolved;
      resolved.state = *current;
      resolved.snapshot = current->metadata->SnapshotById(snapshot_id_);
      resolved.attempts = attempts;
      return resolved;
    }
    return status;
  }
  DeleteUncommitted({});
  return status;
}

}  // namespace floe::iceberg
