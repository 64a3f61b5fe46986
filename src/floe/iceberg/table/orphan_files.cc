#include "floe/iceberg/table/orphan_files.h"

#include <map>
#include <set>

#include "floe/iceberg/table/file_ownership.h"
#include "floe/util/cancel.h"
#include "floe/util/error.h"
#include "floe/util/log.h"

namespace floe::iceberg {
namespace {

arrow::Status Refuse(const Table& table, const std::string& why) {
  return MakeError(ErrorKind::kInvalidInput, "floe will not remove orphan files of " +
                                                 table.id().ToString() + ": " + why +
                                                 "; nothing was deleted");
}

// The file's path below `folder` (which holds it).
std::string Below(const std::string& file, const std::string& folder) {
  return file.substr(std::min(file.size(), folder.size() + 1));
}

// Corrupt metadata names files that are not there, or not where the table's files go: a
// garbled path would make the live file it meant look like an orphan. Refuses unless
// every file the metadata requires is in the table's folders and listed as a file.
arrow::Status CheckRequiredFilesListed(const Table& table, const TableFolders& folders,
                                       const ReferencedFiles& referenced,
                                       const std::map<std::string, FileInfo>& listed) {
  for (const auto& [location, what] : referenced.required) {
    if (!folders.Contains(location)) {
      return Refuse(table, location + " (" + what + ") is outside the table's folders " +
                               folders.data + " and " + folders.metadata +
                               ": the metadata may be corrupt or name another table's "
                               "files");
    }
    auto found = listed.find(location);
    if (found == listed.end() || found->second.symbolic_link) {
      return Refuse(table,
                    location + " (" + what + ") does not exist" +
                        (found == listed.end() ? "" : " as a file (it is a link)") +
                        ": the metadata may be corrupt");
    }
  }
  return arrow::Status::OK();
}

// Whether an unreferenced file, by its place and name alone, may be one of the table's
// orphans: never a hidden path, the version hint, or (without --any-name) a name no
// Iceberg writer gives. Counts what it rules out.
bool MayBeOrphan(const std::string& location, const TableFolders& folders,
                 const RemoveOrphanFilesOptions& options, OrphanFilesReport* report) {
  bool in_data = IsLocationUnder(location, folders.data);
  bool in_metadata = IsLocationUnder(location, folders.metadata);
  std::string below_data = in_data ? Below(location, folders.data) : "";
  std::string below_metadata = in_metadata ? Below(location, folders.metadata) : "";
  if ((in_data && IsHiddenPath(below_data)) ||
      (in_metadata && IsHiddenPath(below_metadata))) {
    ++report->hidden;
    return false;
  }
  // The Hadoop-layout version hint is the table's own, referenced or not.
  if (in_metadata && below_metadata == "version-hint.text") return false;
  bool recognised = (in_data && IsIcebergDataFileName(below_data)) ||
                    (in_metadata && IsIcebergMetadataFileName(below_metadata));
  if (!recognised && !options.any_name) {
    ++report->unrecognised;
    return false;
  }
  return true;
}

}  // namespace

arrow::Result<std::vector<std::string>> ReferencedLocations(const Table& table) {
  ARROW_ASSIGN_OR_RAISE(auto files, ReadReferencedFiles(*table.io(), table.state()));
  return std::vector<std::string>(files.all.begin(), files.all.end());
}

arrow::Result<OrphanFilesReport> RemoveOrphanFiles(
    const Table& table, const RemoveOrphanFilesOptions& options) {
  OrphanFilesReport report;
  const TableFolders folders = TableFolders::Of(*table.metadata());
  report.folders = folders.Roots();
  auto refused = [&](const arrow::Status& status) {
    return status.ok() ? status : Refuse(table, status.message());
  };
  if (options.older_than_ms < 0) {
    return Refuse(table, "the age of orphan files cannot be negative");
  }
  if (options.older_than_ms < kMinOrphanAgeMs && !options.no_concurrent_writes) {
    return Refuse(table,
                  "an age under 24 hours may delete the files of a write still running "
                  "(as iceberg-java's remove_orphan_files refuses it); say that no write "
                  "to the table is running to allow it");
  }

  // Whose files are whose, before anything is listed.
  auto catalog_tables = CatalogTables::Load(table.catalog(), table.id());
  ARROW_RETURN_NOT_OK(refused(catalog_tables.status()));
  ARROW_RETURN_NOT_OK(refused(catalog_tables->CheckFolders(folders)));
  ARROW_RETURN_NOT_OK(refused(CheckNoSymbolicLinks(folders)));
  // Metadata whose location was changed to another directory would make that directory
  // look like the table's: the catalog's pointer says where the table really is.
  const std::string current = CanonicalLocation(table.state().metadata_location);
  if (!IsLocationUnder(current, folders.metadata)) {
    return Refuse(table, "its current metadata file " + current +
                             " is not in its metadata folder " + folders.metadata +
                             " (the metadata's location " + folders.location +
                             " may be wrong)");
  }
  auto referenced = ReadReferencedFiles(*table.io(), table.state());
  if (!referenced.ok()) {
    return Refuse(table,
                  "its metadata cannot be read whole: " + referenced.status().message());
  }
  report.referenced = static_cast<int64_t>(referenced->all.size());

  std::map<std::string, FileInfo> listed;  // canonical location -> file
  for (const auto& root : report.folders) {
    ARROW_ASSIGN_OR_RAISE(auto files, table.io()->List(root));
    for (auto& file : files)
      listed.emplace(CanonicalLocation(file.location), std::move(file));
  }
  report.listed = static_cast<int64_t>(listed.size());

  ARROW_RETURN_NOT_OK(CheckRequiredFilesListed(table, folders, *referenced, listed));

  const int64_t cutoff = table.catalog()->env()->NowMillis() - options.older_than_ms;
  std::vector<FileInfo> candidates;
  for (auto& [location, file] : listed) {
    if (referenced->all.count(location)) continue;
    if (file.symbolic_link) {
      ++report.symbolic_links;
      continue;
    }
    if (!MayBeOrphan(location, folders, options, &report)) continue;
    if (catalog_tables->OwnerOtherThanSelf(location, folders)) {
      ++report.other_tables;
      continue;
    }
    if (file.modified_ms > cutoff) {
      ++report.too_recent;
      continue;
    }
    candidates.push_back(std::move(file));
  }
  if (!candidates.empty()) {
    auto others = catalog_tables->ReferencedByOthers();
    ARROW_RETURN_NOT_OK(refused(others.status()));
    for (auto& file : candidates) {
      if ((*others)->count(CanonicalLocation(file.location))) {
        ++report.other_tables;
      } else {
        report.orphans.push_back(std::move(file));
      }
    }
  }
  if (options.dry_run) return report;
  std::vector<std::string> files;
  files.reserve(report.orphans.size());
  for (const auto& orphan : report.orphans) files.push_back(orphan.location);
  // A signal stops the deleting between batches; what is left is still unreferenced.
  ARROW_ASSIGN_OR_RAISE(size_t failures,
                        folders.DeleteFiles(*table.io(), files, "orphan file", [] {
                          return CheckCancelled("removing orphan files");
                        }));
  report.delete_failures += static_cast<int64_t>(failures);
  return report;
}

}  // namespace floe::iceberg
