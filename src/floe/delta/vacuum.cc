#include "floe/delta/vacuum.h"

#include <algorithm>
#include <map>
#include <set>
#include <string_view>

#include "floe/delta/calendar_interval.h"
#include "floe/delta/checkpoint.h"
#include "floe/delta/committer.h"
#include "floe/util/error.h"
#include "floe/util/location.h"
#include "floe/util/log.h"

namespace floe::delta {
namespace {

constexpr int64_t kDefaultRetentionMs = int64_t{7} * 24 * 3600 * 1000;

// Features whose files vacuum knows: those that reference none beyond add and remove, or
// only in hidden folders (_change_data) or in the log (v2Checkpoint sidecars). Deletion
// vector files are never deleted (their names are never data file names).
bool KnownFeature(const std::string& feature) {
  static const std::set<std::string> kKnown = {
      "appendOnly",          "invariants",       "timestampNtz",    "inCommitTimestamp",
      "vacuumProtocolCheck", "checkConstraints", "changeDataFeed",  "generatedColumns",
      "identityColumns",     "columnMapping",    "deletionVectors", "domainMetadata",
      "v2Checkpoint",        "rowTracking",      "clustering",      "typeWidening",
      "typeWidening-preview"};
  return kKnown.count(feature) > 0;
}

// A path component Delta readers and vacuum leave alone: starting with '.' or '_', except
// a partition folder (`_col=value`), as delta-spark's isHiddenDirectory reads it.
bool HiddenComponent(std::string_view name) {
  if (name.empty()) return false;
  if (name[0] == '.') return true;
  return name[0] == '_' && name.find('=') == std::string_view::npos;
}

std::vector<std::string_view> Components(std::string_view relative) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (start <= relative.size()) {
    size_t slash = relative.find('/', start);
    if (slash == std::string_view::npos) slash = relative.size();
    if (slash > start) parts.push_back(relative.substr(start, slash - start));
    start = slash + 1;
  }
  return parts;
}

bool EndsWith(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Refuses a table vacuum cannot read whole: catalog-managed, with a feature that may
// reference files vacuum does not know of, or a newer protocol.
arrow::Status CheckVacuumable(const Protocol& protocol, const std::string& where) {
  if (IsCatalogManaged(protocol)) {
    return MakeError(ErrorKind::kInvalidInput,
                     where +
                         " is catalog-managed: the protocol allows vacuum only where its "
                         "catalog permits it, and floe's catalog permits none");
  }
  for (const auto* features : {&protocol.reader_features, &protocol.writer_features}) {
    for (const auto& feature : features->value_or(std::vector<std::string>())) {
      if (!KnownFeature(feature)) {
        return MakeError(ErrorKind::kNotSupported,
                         where + " has table feature " + feature +
                             ", which may reference files vacuum does not know of: "
                             "nothing deleted");
      }
    }
  }
  if (protocol.min_writer_version > 7 || protocol.min_reader_version > 3) {
    return MakeError(ErrorKind::kNotSupported,
                     where + " needs a protocol newer than floe knows: nothing deleted");
  }
  return arrow::Status::OK();
}

// Tables nested in the folder at `root`: a folder holding a `_delta_log` (Delta) or a
// `metadata` folder with metadata files (Iceberg). Nothing below one is ours.
std::set<std::string> NestedTables(const std::vector<FileInfo>& listed,
                                   const std::string& root) {
  std::set<std::string> nested;
  for (const auto& file : listed) {
    const std::string location = CanonicalLocation(file.location);
    if (location.size() <= root.size() + 1) continue;
    const auto parts = Components(std::string_view(location).substr(root.size() + 1));
    std::string prefix = root;
    for (size_t i = 0; i + 1 < parts.size(); ++i) {
      if (i > 0 &&
          (parts[i] == "_delta_log" ||
           (parts[i] == "metadata" && EndsWith(parts.back(), ".metadata.json")))) {
        nested.insert(prefix);
        break;
      }
      prefix += "/" + std::string(parts[i]);
    }
  }
  return nested;
}

// Deletes `result->deleted` below `root`, up to 1000 a call (one request each on object
// storage); what could not be deleted moves to `result->failed`.
void DeleteUnreferenced(FileIO& io, const std::string& root, VacuumResult* result) {
  std::vector<FileInfo> deleted;
  constexpr size_t kBatch = 1000;
  for (size_t start = 0; start < result->deleted.size(); start += kBatch) {
    const size_t end = std::min(result->deleted.size(), start + kBatch);
    std::vector<std::string> batch;
    for (size_t i = start; i < end; ++i) batch.push_back(result->deleted[i].location);
    const std::vector<arrow::Status> statuses = io.DeleteAllWithin(root, batch);
    for (size_t i = start; i < end; ++i) {
      const FileInfo& file = result->deleted[i];
      const arrow::Status& status = statuses[i - start];
      if (status.ok() || KindOf(status) == ErrorKind::kNotFound) {
        deleted.push_back(file);
      } else {
        result->bytes -= file.size;
        result->failed.push_back({file.location, status.message()});
      }
    }
  }
  result->deleted = std::move(deleted);
}

}  // namespace

arrow::Result<VacuumResult> Vacuum(const std::shared_ptr<FileIO>& io,
                                   const std::string& table_root,
                                   const VacuumOptions& options) {
  const std::string root = CanonicalLocation(StripTrailingSlash(table_root));
  const std::string where = "Delta table " + root;
  ARROW_ASSIGN_OR_RAISE(Snapshot snapshot, LoadSnapshot(*io, root));
  ARROW_RETURN_NOT_OK(CheckVacuumable(snapshot.protocol, where));
  auto retention =
      IntervalPropertyMillis(snapshot.metadata.configuration,
                             "delta.deletedFileRetentionDuration", kDefaultRetentionMs);
  if (!retention.ok()) {
    return WithContext(retention.status(), where + ": nothing deleted");
  }
  const int64_t table_retention = *retention;
  VacuumResult result;
  result.version = snapshot.version;
  result.retention_ms = options.retention_ms.value_or(table_retention);
  if (result.retention_ms < 0) {
    return MakeError(ErrorKind::kInvalidInput, "a vacuum retention cannot be negative");
  }
  if (options.check_retention && result.retention_ms < table_retention) {
    return MakeError(
        ErrorKind::kInvalidInput,
        "a retention of " + std::to_string(result.retention_ms / 1000) +
            " s is shorter than " + where + "'s delta.deletedFileRetentionDuration (" +
            std::to_string(table_retention / 1000) +
            " s): readers of recent versions and concurrent writers may still "
            "need those files (turn the check off to do it anyway)");
  }
  const int64_t cutoff = options.env->NowMillis() - result.retention_ms;

  // What some version within the retention period may read.
  std::set<std::string> referenced;
  std::map<std::string, std::string> required;  // live files below the root
  for (const auto& file : snapshot.files) {
    const std::string location = CanonicalLocation(file.location);
    referenced.insert(location);
    if (IsLocationUnder(location, root)) required.emplace(location, file.path);
  }
  for (const auto& tombstone : snapshot.tombstones) {
    if (!tombstone.deletion_timestamp_ms || *tombstone.deletion_timestamp_ms >= cutoff)
      referenced.insert(CanonicalLocation(tombstone.location));
  }

  ARROW_ASSIGN_OR_RAISE(auto listed, io->List(root));
  const std::set<std::string> nested = NestedTables(listed, root);
  std::set<std::string> present;
  for (const auto& file : listed) {
    const std::string location = CanonicalLocation(file.location);
    if (location.size() <= root.size() + 1) continue;
    present.insert(location);
    const std::string_view relative = std::string_view(location).substr(root.size() + 1);
    const auto parts = Components(relative);
    if (std::any_of(parts.begin(), parts.end(), HiddenComponent)) continue;
    if (referenced.count(location)) continue;
    auto keep = [&](std::string reason) {
      result.kept.push_back({location, std::move(reason)});
    };
    std::string in_nested;
    for (const auto& table : nested) {
      if (IsLocationUnder(location, table)) in_nested = table;
    }
    if (!in_nested.empty()) {
      keep("in the table nested at " + in_nested);
    } else if (file.symbolic_link) {
      keep("a symbolic link");
    } else if (EndsWith(parts.back(), ".bin") &&
               parts.back().rfind("deletion_vector_", 0) == 0) {
      keep("a deletion vector file");
    } else if (!options.any_name && !EndsWith(parts.back(), ".parquet")) {
      keep("not a name Delta writers give data files");
    } else if (file.modified_ms >= cutoff) {
      keep("modified within the retention period");
    } else {
      result.deleted.push_back(file);
      result.deleted.back().location = location;
      result.bytes += file.size;
    }
  }
  for (const auto& [location, path] : required) {
    if (present.count(location) == 0) {
      return MakeError(ErrorKind::kInvalidMetadata,
                       where + " version " + std::to_string(snapshot.version) +
                           " names data file " + path +
                           ", which is missing: the log does not match the folder, so "
                           "vacuum deletes nothing");
    }
  }
  if (options.dry_run) return result;
  DeleteUnreferenced(*io, root, &result);
  Log(LogLevel::kInfo, where + ": vacuum deleted " +
                           std::to_string(result.deleted.size()) + " files (" +
                           std::to_string(result.bytes) + " bytes)");
  return result;
}

}  // namespace floe::delta
