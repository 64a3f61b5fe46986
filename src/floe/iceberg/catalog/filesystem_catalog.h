// The filesystem catalog: iceberg-java's HadoopCatalog layout on a local file system. A
// namespace is a directory under the warehouse, a table is a directory holding
// metadata/v<N>.metadata.json and metadata/version-hint.text, and a commit renames a
// fully written temporary file to v<N+1> with a rename that fails if the target exists.
#pragma once

#include <memory>
#include <string>

#include "floe/iceberg/catalog/catalog.h"

namespace floe::iceberg {

class FilesystemCatalog final : public Catalog {
 public:
  /// Opens the catalog rooted at `options.warehouse` (a path or file:// URI; created when
  /// absent). Object stores and other schemes are refused: they have no atomic rename,
  /// which is the only thing that makes this catalog's commits safe.
  static arrow::Result<std::unique_ptr<Catalog>> Open(const CatalogOptions& options);

  const std::string& name() const override { return name_; }
  std::shared_ptr<FileIO> io() const override { return io_; }
  std::string WarehouseLocation() const override { return root_; }

  /// Makes the namespace's directory. Properties other than none are refused
  /// (iceberg-java's HadoopCatalog stores none).
  arrow::Status CreateNamespace(
      const Namespace& ns, const std::map<std::string, std::string>& properties) override;
  arrow::Result<std::vector<Namespace>> ListNamespaces(const Namespace& parent) override;
  arrow::Result<bool> NamespaceExists(const Namespace& ns) override;
  /// {"location": the namespace directory}.
  arrow::Result<std::map<std::string, std::string>> LoadNamespaceProperties(
      const Namespace& ns) override;
  /// NotSupported (as in iceberg-java's HadoopCatalog).
  arrow::Status UpdateNamespaceProperties(
      const Namespace& ns, const std::map<std::string, std::string>& updates,
      const std::vector<std::string>& removals) override;
  arrow::Status DropNamespace(const Namespace& ns) override;

  arrow::Result<std::vector<TableIdentifier>> ListTables(const Namespace& ns) override;
  /// Reads version-hint.text (or, when it is missing or unreadable, the highest
  /// v<N>.metadata.json), then follows any newer versions a writer committed without
  /// updating the hint yet, as HadoopTableOperations.refresh does.
  arrow::Result<TableState> LoadTable(const TableIdentifier& id) override;
  /// The table's location must be the catalog's default (HadoopCatalog refuses others).
  arrow::Result<TableState> CreateTable(const TableIdentifier& id,
                                        const TableMetadata& metadata) override;
  /// Writes the new version to a temporary file, renames it to v<N+1> without replacing
  /// (CommitFailed when another writer got there first, and the temporary file is
  /// removed), then updates version-hint.text.
  arrow::Result<TableState> CommitTable(const TableIdentifier& id, const TableState& base,
                                        const TableMetadata& updated) override;
  /// NotSupported (a table's location is its name here, as in HadoopCatalog).
  arrow::Status RenameTable(const TableIdentifier& from,
                            const TableIdentifier& to) override;
  /// Removes the table's directory, files and all: in this layout the directory is the
  /// table (iceberg-java's HadoopCatalog.dropTable does the same).
  arrow::Status DropTable(const TableIdentifier& id) override;
  arrow::Result<std::string> DefaultTableLocation(const TableIdentifier& id) override;

  FilesystemCatalog(std::string name, std::string root, std::shared_ptr<FileIO> io,
                    Env* env);

 private:
  std::string Directory(const Namespace& ns) const;
  std::string TableDirectory(const TableIdentifier& id) const;
  /// The version a metadata file name holds (v12.metadata.json -> 12), or -1.
  static int64_t VersionOf(const std::string& file_name);
  /// The newest committed version and its file, per HadoopTableOperations; version 0 and
  /// an empty location when the directory holds no table.
  arrow::Result<std::pair<int64_t, std::string>> CurrentVersion(
      const std::string& table_directory);
  /// A directory whose metadata/ folder holds a metadata file (read through the FileIO).
  bool IsTableDirectory(const std::string& directory) const;

  std::string name_;
  std::string root_;  ///< Local path of the warehouse, without a trailing slash.
  std::shared_ptr<FileIO> io_;
};

}  // namespace floe::iceberg
