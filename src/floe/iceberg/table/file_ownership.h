// Which files a table owns, so that maintenance (remove-orphans, expire, the cleanup of
// trimmed metadata files) deletes only those: the folders its writers use, what its
// metadata references, and what the other tables of its catalog own.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "floe/iceberg/catalog/catalog.h"

namespace floe::iceberg {

/// The folders a table's writers put files in (iceberg-java's LocationProvider): the
/// data folder (write.data.path, else `<location>/data`) and the metadata folder
/// (write.metadata.path, else `<location>/metadata`). All canonical, without trailing
/// slashes.
struct TableFolders {
  std::string location;
  std::string data;
  std::string metadata;

  static TableFolders Of(const TableMetadata& metadata);
  /// The folders to list: data and metadata, only the outer one when one lies inside
  /// the other.
  std::vector<std::string> Roots() const;
  /// True when `file` lies below the data or the metadata folder.
  bool Contains(std::string_view file) const;
  /// The folder of Roots() that holds `file` ("" when none does): where a delete of it
  /// starts walking (FileIO::DeleteWithin).
  std::string RootHolding(std::string_view file) const;

  /// Deletes `files`, each from the folder of Roots() that holds it (one outside them
  /// is refused; never through a link: FileIO::DeleteAllWithin), up to 1000 at a time
  /// (one request each on object storage). `before_batch`, when given, is asked before
  /// each batch; an error from it stops the deleting and is returned. Gives how many
  /// files could not be deleted (each logged as `what`).
  arrow::Result<size_t> DeleteFiles(
      FileIO& io, const std::vector<std::string>& files, std::string_view what,
      const std::function<arrow::Status()>& before_batch = {}) const;
};

/// Every file a table's metadata references, as canonical locations.
struct ReferencedFiles {
  /// The current and logged metadata files, every snapshot's manifest list, every
  /// manifest and every file their entries name (live or deleted), statistics files.
  std::set<std::string> all;
  /// The files a reader of some snapshot needs, each with what references it: the
  /// current metadata file, manifest lists, manifests, and the data and delete files of
  /// live (added or existing) entries. Metadata that names one of these where no file
  /// is, is corrupt or lies.
  std::map<std::string, std::string> required;
};

/// The manifests a snapshot lists (its manifest list, or the inline list of an old v1
/// snapshot).
arrow::Result<std::vector<std::string>> SnapshotManifestPaths(FileIO& io,
                                                              const Snapshot& snapshot);
/// Every file a manifest's entries name; with `live_only`, only added and existing ones
/// (iceberg-java's ManifestFiles.readPaths).
arrow::Result<std::vector<std::string>> ManifestEntryPaths(FileIO& io,
                                                           const std::string& manifest,
                                                           bool live_only);

/// Reads every manifest list and manifest of `state`'s snapshots. Fails (naming the
/// file) when one cannot be read: nothing may be deleted on the strength of metadata
/// that cannot be read whole.
arrow::Result<ReferencedFiles> ReadReferencedFiles(FileIO& io, const TableState& state);

/// Unless `name` (a file's path below the folder that holds it) is one Iceberg writers
/// create: under the data folder, data and delete files (.parquet, .avro, .orc,
/// .puffin) at any depth; directly in the metadata folder, metadata files
/// (.metadata.json, .metadata.json.gz), manifests and manifest lists (.avro),
/// statistics (.stats, .puffin) and floe's filesystem-catalog temporaries.
bool IsIcebergDataFileName(std::string_view name);
bool IsIcebergMetadataFileName(std::string_view name);
/// A path below a folder that has a hidden part: a name starting with '.' or with '_'
/// (not a partition folder such as `_key=value`), as iceberg-java's DeleteOrphanFiles
/// leaves hidden paths alone (Spark's `_SUCCESS`, Hadoop's `.crc` files).
bool IsHiddenPath(std::string_view relative);

/// The other tables of a catalog, loaded to decide what a table may delete.
class CatalogTables {
 public:
  /// Lists every namespace and table of `catalog` and loads each table except `self`.
  /// Fails naming a table that cannot be loaded: its files could not be told apart.
  static arrow::Result<CatalogTables> Load(const std::shared_ptr<Catalog>& catalog,
                                           const TableIdentifier& self);

  /// OK when a table's `folders` may be listed for cleanup. InvalidInput naming the
  /// reason when the table location is (or holds) the warehouse root, a folder holds
  /// the catalog's own files or the warehouse root, or a folder holds another table's
  /// location, shares a folder with another table (either inside the other), or
  /// another table has the same location.
  arrow::Status CheckFolders(const TableFolders& folders) const;

  /// The other table that may own `file`, which lies below `self`'s folders, or
  /// nullopt: a file of the catalog itself, or one below another table's folders or
  /// below another table location that is nested inside `self`'s (the deepest table
  /// location holding a file is its table's).
  std::optional<std::string> OwnerOtherThanSelf(std::string_view file,
                                                const TableFolders& self) const;

  /// Every file the other tables' metadata references (read on first call; fails
  /// naming the table whose metadata cannot be read).
  arrow::Result<const std::set<std::string>*> ReferencedByOthers();

  size_t size() const { return others_.size(); }

 private:
  struct Other {
    TableIdentifier id;
    TableState state;
    TableFolders folders;
  };
  std::vector<Other> others_;
  std::vector<std::string> catalog_files_;  // canonical
  std::string warehouse_;                   // canonical, "" when unknown
  std::shared_ptr<FileIO> io_;
  std::optional<std::set<std::string>> referenced_;
};

/// For a new table at `metadata.location` in `catalog`: OK when nothing is there to be
/// mistaken for its files later. InvalidInput (naming the location and what is there)
/// when the location is the warehouse root or holds it or the catalog's files, its data
/// or metadata folder is a symbolic link or already holds files (a dropped table's, or
/// anyone's: remove-orphans would take them for the new table's), or its folders
/// overlap another table's (see CatalogTables::CheckFolders).
///
/// With a catalog that vends each table's storage (Catalog::VendsTableStorage) and a
/// FileIO of its own that cannot list the location, the folders' emptiness is left to
/// CheckNewTableFoldersEmpty after the create, through the table's FileIO;
/// `*check_after_create` is then set (it must not be null for such a catalog).
arrow::Status CheckNewTableLocation(const std::shared_ptr<Catalog>& catalog,
                                    const TableIdentifier& id,
                                    const TableMetadata& metadata,
                                    bool* check_after_create = nullptr);

/// OK when the data and metadata folders of table `id`, just created with `state`, hold
/// no file but its metadata file, listed through `io`; otherwise InvalidInput naming
/// what is there (as CheckNewTableLocation).
arrow::Status CheckNewTableFoldersEmpty(FileIO& io, const TableIdentifier& id,
                                        const TableState& state);

/// InvalidInput naming the folder when a local folder of `folders` (or the table
/// location above it) is a symbolic link: cleanup never deletes through links.
arrow::Status CheckNoSymbolicLinks(const TableFolders& folders);

}  // namespace floe::iceberg
