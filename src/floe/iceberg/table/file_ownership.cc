#include "floe/iceberg/table/file_ownership.h"

#include <algorithm>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "floe/iceberg/manifest/manifest.h"
#include "floe/iceberg/manifest/snapshot_manifests.h"
#include "floe/iceberg/spec/location_provider.h"
#include "floe/util/error.h"

namespace floe::iceberg {
namespace {

bool EndsWith(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string Canonical(std::string_view location) {
  return StripTrailingSlash(CanonicalLocation(location));
}

// True when `inner` is `outer` or lies below it.
bool Under(std::string_view inner, std::string_view outer) {
  return !outer.empty() && IsLocationUnder(inner, outer);
}

arrow::Status Refuse(const std::string& message) {
  return MakeError(ErrorKind::kInvalidInput, message);
}

// Every table of `catalog`, namespace by namespace (depth first, sorted).
arrow::Status ListAllTables(Catalog& catalog, const Namespace& parent,
                            std::vector<TableIdentifier>* tables) {
  ARROW_ASSIGN_OR_RAISE(auto children, catalog.ListNamespaces(parent));
  for (const auto& child : children) {
    ARROW_ASSIGN_OR_RAISE(auto in_child, catalog.ListTables(child));
    tables->insert(tables->end(), in_child.begin(), in_child.end());
    ARROW_RETURN_NOT_OK(ListAllTables(catalog, child, tables));
  }
  return arrow::Status::OK();
}

}  // namespace

TableFolders TableFolders::Of(const TableMetadata& metadata) {
  LocationProvider locations(metadata.location, metadata.properties);
  return TableFolders{Canonical(metadata.location), Canonical(locations.data_location()),
                      Canonical(locations.metadata_location())};
}

std::vector<std::string> TableFolders::Roots() const {
  if (Under(metadata, data)) return {data};
  if (Under(data, metadata)) return {metadata};
  return {data, metadata};
}

bool TableFolders::Contains(std::string_view file) const {
  return Under(file, data) || Under(file, metadata);
}

std::string TableFolders::RootHolding(std::string_view file) const {
  for (const auto& root : Roots()) {
    if (Under(file, root)) return root;
  }
  return "";
}

arrow::Result<size_t> TableFolders::DeleteFiles(
    FileIO& io, const std::vector<std::string>& files, std::string_view what,
    const std::function<arrow::Status()>& before_batch) const {
  constexpr size_t kBatch = 1000;
  std::map<std::string, std::vector<std::string>> by_root;
  for (const auto& file : files) by_root[RootHolding(file)].push_back(file);
  size_t failures = 0;
  for (const auto& [root, held] : by_root) {
    for (size_t start = 0; start < held.size(); start += kBatch) {
      if (before_batch) ARROW_RETURN_NOT_OK(before_batch());
      const std::vector<std::string> batch(
          held.begin() + start, held.begin() + std::min(held.size(), start + kBatch));
      // An empty root (the file is in none of the folders) refuses every delete.
      failures += DeleteAllWithinBestEffort(io, root, batch, what);
    }
  }
  return failures;
}

arrow::Result<std::vector<std::string>> SnapshotManifestPaths(FileIO& io,
                                                              const Snapshot& snapshot) {
  ARROW_ASSIGN_OR_RAISE(auto manifests, ReadSnapshotManifests(io, snapshot));
  std::vector<std::string> paths;
  for (const auto& manifest : manifests) paths.push_back(manifest.manifest_path);
  return paths;
}

arrow::Result<std::vector<std::string>> ManifestEntryPaths(FileIO& io,
                                                           const std::string& manifest,
                                                           bool live_only) {
  ARROW_ASSIGN_OR_RAISE(std::string bytes, io.ReadAll(manifest));
  auto contents = ReadManifest(bytes);
  if (!contents.ok()) return WithContext(contents.status(), "manifest " + manifest);
  std::vector<std::string> paths;
  for (const auto& entry : contents->entries) {
    if (live_only && entry.status == EntryStatus::kDeleted) continue;
    paths.push_back(entry.data_file.file_path);
  }
  return paths;
}

arrow::Result<ReferencedFiles> ReadReferencedFiles(FileIO& io, const TableState& state) {
  const TableMetadata& metadata = *state.metadata;
  ReferencedFiles files;
  auto require = [&](const std::string& location, const std::string& what) {
    std::string canonical = CanonicalLocation(location);
    files.all.insert(canonical);
    files.required.emplace(canonical, what);
  };
  require(state.metadata_location, "the current metadata file");
  for (const auto& entry : metadata.metadata_log)
    files.all.insert(CanonicalLocation(entry.metadata_file));
  for (const auto& raw : {metadata.statistics_json, metadata.partition_statistics_json}) {
    auto statistics = nlohmann::json::parse(raw, nullptr, false);
    if (!statistics.is_array()) continue;
    for (const auto& item : statistics) {
      if (item.is_object() && item.contains("statistics-path") &&
          item["statistics-path"].is_string()) {
        files.all.insert(CanonicalLocation(item["statistics-path"].get<std::string>()));
      }
    }
  }
  std::set<std::string> manifests_seen;
  for (const auto& snapshot : metadata.snapshots) {
    const std::string of_snapshot = "snapshot " + std::to_string(snapshot->snapshot_id);
    if (!snapshot->manifest_list.empty())
      require(snapshot->manifest_list, "the manifest list of " + of_snapshot);
    ARROW_ASSIGN_OR_RAISE(auto manifests, SnapshotManifestPaths(io, *snapshot));
    for (const auto& path : manifests) {
      if (!manifests_seen.insert(path).second) continue;  // shared by later snapshots
      require(path, "a manifest of " + of_snapshot);
      ARROW_ASSIGN_OR_RAISE(std::string bytes, io.ReadAll(path));
      auto contents = ReadManifest(bytes);
      if (!contents.ok()) return WithContext(contents.status(), "manifest " + path);
      for (const auto& entry : contents->entries) {
        if (entry.status == EntryStatus::kDeleted) {
          files.all.insert(CanonicalLocation(entry.data_file.file_path));
        } else {
          require(entry.data_file.file_path, "a live file of manifest " + path);
        }
      }
    }
  }
  return files;
}

bool IsIcebergDataFileName(std::string_view name) {
  for (std::string_view extension : {".parquet", ".avro", ".orc", ".puffin"}) {
    if (EndsWith(name, extension) && name.size() > extension.size() &&
        name[name.size() - extension.size() - 1] != '/')
      return true;
  }
  return false;
}

bool IsIcebergMetadataFileName(std::string_view name) {
  if (name.find('/') != std::string_view::npos) return false;  // metadata is flat
  for (std::string_view suffix : {".metadata.json", ".metadata.json.gz", ".avro",
                                  ".stats", ".puffin", "-version-hint.temp"}) {
    if (EndsWith(name, suffix) && name.size() > suffix.size()) return true;
  }
  return false;
}

bool IsHiddenPath(std::string_view relative) {
  for (size_t start = 0; start < relative.size();) {
    size_t slash = relative.find('/', start);
    if (slash == std::string_view::npos) slash = relative.size();
    std::string_view part = relative.substr(start, slash - start);
    if (!part.empty() &&
        (part[0] == '.' || (part[0] == '_' && part.find('=') == std::string_view::npos)))
      return true;
    start = slash + 1;
  }
  return false;
}

arrow::Result<CatalogTables> CatalogTables::Load(const std::shared_ptr<Catalog>& catalog,
                                                 const TableIdentifier& self) {
  CatalogTables tables;
  tables.io_ = catalog->io();
  for (const auto& file : catalog->OwnFiles())
    tables.catalog_files_.push_back(Canonical(file));
  std::string warehouse = catalog->WarehouseLocation();
  if (!warehouse.empty()) tables.warehouse_ = Canonical(warehouse);
  std::vector<TableIdentifier> ids;
  FLOE_RETURN_NOT_OK_CONTEXT(ListAllTables(*catalog, {}, &ids),
                             "listing the tables of catalog " + catalog->name());
  for (const auto& id : ids) {
    if (id == self) continue;
    auto state = catalog->LoadTable(id);
    if (!state.ok()) {
      return WithContext(state.status(),
                         "cannot load table " + id.ToString() +
                             " of the same catalog to tell its files apart");
    }
    TableFolders folders = TableFolders::Of(*state->metadata);
    tables.others_.push_back(Other{id, std::move(*state), std::move(folders)});
  }
  return tables;
}

arrow::Status CatalogTables::CheckFolders(const TableFolders& folders) const {
  if (!warehouse_.empty() && Under(warehouse_, folders.location)) {
    return Refuse("its location " + folders.location +
                  (warehouse_ == folders.location ? " is" : " holds") +
                  " the warehouse root " + warehouse_);
  }
  for (const auto& root : folders.Roots()) {
    if (!warehouse_.empty() && Under(warehouse_, root)) {
      return Refuse("its folder " + root + " holds the warehouse root " + warehouse_);
    }
    for (const auto& file : catalog_files_) {
      if (Under(file, root)) {
        return Refuse("its folder " + root + " holds the catalog's own file " + file);
      }
    }
  }
  for (const auto& other : others_) {
    const std::string named = "table " + other.id.ToString();
    if (other.folders.location == folders.location) {
      return Refuse(named + " has the same location " + folders.location);
    }
    for (const auto& root : folders.Roots()) {
      if (Under(other.folders.location, root)) {
        return Refuse("its folder " + root + " holds the location of " + named + " (" +
                      other.folders.location + ")");
      }
      for (const auto& other_root : other.folders.Roots()) {
        if (Under(root, other_root) || Under(other_root, root)) {
          return Refuse("its folder " + root + " overlaps the folder " + other_root +
                        " of " + named);
        }
      }
    }
  }
  return arrow::Status::OK();
}

std::optional<std::string> CatalogTables::OwnerOtherThanSelf(
    std::string_view file, const TableFolders& self) const {
  for (const auto& own : catalog_files_) {
    if (CanonicalLocation(file) == own) return "the catalog";
  }
  for (const auto& other : others_) {
    if (other.folders.Contains(file)) return other.id.ToString();
    // The deepest table location that holds a file is its table's.
    if (Under(file, other.folders.location) &&
        Under(other.folders.location, self.location) &&
        other.folders.location != self.location) {
      return other.id.ToString();
    }
  }
  return std::nullopt;
}

arrow::Result<const std::set<std::string>*> CatalogTables::ReferencedByOthers() {
  if (!referenced_) {
    std::set<std::string> all;
    for (const auto& other : others_) {
      auto files = ReadReferencedFiles(*io_, other.state);
      if (!files.ok()) {
        return WithContext(files.status(), "reading what table " + other.id.ToString() +
                                               " of the same catalog references");
      }
      all.insert(files->all.begin(), files->all.end());
    }
    referenced_ = std::move(all);
  }
  return &*referenced_;
}

arrow::Status CheckNoSymbolicLinks(const TableFolders& folders) {
  std::vector<std::string> paths;
  for (const auto& root : folders.Roots()) {
    if (LocationScheme(root) != "file") continue;
    // From the table location down to the folder, or the folder alone when it lies
    // elsewhere (write.data.path): links above the table location (a warehouse on
    // another disk) are the user's layout.
    std::filesystem::path path(root);
    if (Under(root, folders.location)) {
      std::filesystem::path location(folders.location);
      paths.push_back(location.string());
      std::filesystem::path walked = location;
      for (const auto& part : path.lexically_relative(location)) {
        if (part == ".") continue;
        walked /= part;
        paths.push_back(walked.string());
      }
    } else {
      paths.push_back(path.string());
    }
  }
  for (const auto& path : paths) {
    std::error_code error;
    if (std::filesystem::is_symlink(std::filesystem::symlink_status(path, error))) {
      return Refuse(path +
                    " is a symbolic link; floe does not clean up through symbolic "
                    "links (use the real path as the table's location)");
    }
  }
  return arrow::Status::OK();
}

namespace {

// What the new table's folders hold (but `own_metadata`), listed through `io`: OK, or
// the refusal naming the first file.
arrow::Status CheckFoldersEmpty(
    FileIO& io, const TableFolders& folders, const std::string& own_metadata,
    const std::function<arrow::Status(arrow::Status)>& context, bool* unlistable) {
  for (const auto& root : folders.Roots()) {
    if (!CheckSupportedLocation(root).ok()) continue;  // the gate speaks for writes there
    auto listed = io.List(root);
    if (!listed.ok()) {
      if (unlistable != nullptr) *unlistable = true;
      return context(listed.status());
    }
    std::vector<FileInfo> found;
    for (auto& file : *listed) {
      if (own_metadata.empty() ||
          CanonicalLocation(file.location) != CanonicalLocation(own_metadata)) {
        found.push_back(std::move(file));
      }
    }
    if (!found.empty()) {
      return context(Refuse(
          "its folder " + root + " already holds " + std::to_string(found.size()) +
          (found.size() == 1 ? " file" : " files") + " (such as " +
          found.front().location +
          "), which remove-orphans would take for the new table's: a dropped table's "
          "files, or another create of this table in flight; give an empty --location, "
          "or remove what is there"));
    }
  }
  return arrow::Status::OK();
}

}  // namespace

arrow::Status CheckNewTableLocation(const std::shared_ptr<Catalog>& catalog,
                                    const TableIdentifier& id,
                                    const TableMetadata& metadata,
                                    bool* check_after_create) {
  TableFolders folders = TableFolders::Of(metadata);
  auto context = [&](const arrow::Status& status) {
    return WithContext(
        status, "cannot create table " + id.ToString() + " at " + folders.location);
  };
  if (check_after_create != nullptr) *check_after_create = false;
  ARROW_ASSIGN_OR_RAISE(auto tables, CatalogTables::Load(catalog, id));
  ARROW_RETURN_NOT_OK(context(tables.CheckFolders(folders)));
  ARROW_RETURN_NOT_OK(context(CheckNoSymbolicLinks(folders)));
  bool unlistable = false;
  arrow::Status empty =
      CheckFoldersEmpty(*catalog->io(), folders, "", context, &unlistable);
  if (unlistable && catalog->VendsTableStorage() && check_after_create != nullptr) {
    // The catalog's own FileIO has no credentials there: the table's will.
    *check_after_create = true;
    return arrow::Status::OK();
  }
  return empty;
}

arrow::Status CheckNewTableFoldersEmpty(FileIO& io, const TableIdentifier& id,
                                        const TableState& state) {
  TableFolders folders = TableFolders::Of(*state.metadata);
  auto context = [&](const arrow::Status& status) {
    return WithContext(
        status, "cannot create table " + id.ToString() + " at " + folders.location);
  };
  return CheckFoldersEmpty(io, folders, state.metadata_location, context, nullptr);
}

}  // namespace floe::iceberg
