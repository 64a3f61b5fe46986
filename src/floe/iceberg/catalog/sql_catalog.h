// The SQL catalog: iceberg-java JdbcCatalog's tables (iceberg_tables with the
// iceberg_type column, iceberg_namespace_properties), shared with pyiceberg's SqlCatalog,
// over any SqlDatabase. A commit is a conditional UPDATE of the metadata location.
#pragma once

#include <memory>
#include <string>

#include "floe/iceberg/catalog/catalog.h"
#include "floe/sql/sql_database.h"

namespace floe::iceberg {

class SqlCatalog final : public Catalog {
 public:
  /// Opens an SQLite catalog from `options.uri` (sqlite:////abs/path.db,
  /// sqlite:///rel.db, sqlite:///:memory:, jdbc:sqlite:path; `?mode=ro|rw|rwc` honoured,
  /// any other parameter and a URI naming no file refused with InvalidInput) and
  /// creates the catalog tables when absent (a read-only catalog must have them).
  static arrow::Result<std::unique_ptr<Catalog>> OpenSqlite(
      const CatalogOptions& options);
  /// Opens a PostgreSQL catalog: `options.uri` is postgresql://user@host:port/db (also
  /// postgres://, pyiceberg's postgresql+psycopg2:// and iceberg-java's
  /// jdbc:postgresql://), with jdbc.user and jdbc.password catalog properties as
  /// iceberg-java's JdbcCatalog takes them. Creates the catalog tables when absent.
  static arrow::Result<std::unique_ptr<Catalog>> OpenPostgres(
      const CatalogOptions& options);
  /// The memory catalog (uri `memory`), for tests and embedding: the SQL catalog over a
  /// private in-memory SQLite database, with tables under `options.warehouse` (default
  /// memory://warehouse, in the FileIO's in-memory file system). Everything is gone when
  /// the catalog is destroyed; share the one handle (it is thread-safe).
  static arrow::Result<std::unique_ptr<Catalog>> OpenMemory(
      const CatalogOptions& options);
  /// A catalog over an open database; creates the catalog tables when absent.
  static arrow::Result<std::unique_ptr<Catalog>> Make(
      std::unique_ptr<SqlDatabase> database, const CatalogOptions& options,
      std::shared_ptr<FileIO> io);

  const std::string& name() const override { return name_; }
  std::shared_ptr<FileIO> io() const override { return io_; }
  std::vector<std::string> OwnFiles() const override { return database_->Files(); }
  std::string WarehouseLocation() const override { return warehouse_; }
  arrow::Status CheckWritable() const override { return database_->CheckWritable(); }

  arrow::Status CreateNamespace(
      const Namespace& ns, const std::map<std::string, std::string>& properties) override;
  arrow::Result<std::vector<Namespace>> ListNamespaces(const Namespace& parent) override;
  arrow::Result<bool> NamespaceExists(const Namespace& ns) override;
  arrow::Result<std::map<std::string, std::string>> LoadNamespaceProperties(
      const Namespace& ns) override;
  arrow::Status UpdateNamespaceProperties(
      const Namespace& ns, const std::map<std::string, std::string>& updates,
      const std::vector<std::string>& removals) override;
  arrow::Status DropNamespace(const Namespace& ns) override;

  arrow::Result<std::vector<TableIdentifier>> ListTables(const Namespace& ns) override;
  arrow::Result<TableState> LoadTable(const TableIdentifier& id) override;
  arrow::Result<TableState> CreateTable(const TableIdentifier& id,
                                        const TableMetadata& metadata) override;
  arrow::Result<TableState> CommitTable(const TableIdentifier& id, const TableState& base,
                                        const TableMetadata& updated) override;
  arrow::Status RenameTable(const TableIdentifier& from,
                            const TableIdentifier& to) override;
  arrow::Status DropTable(const TableIdentifier& id) override;
  arrow::Result<std::string> DefaultTableLocation(const TableIdentifier& id) override;

  /// The database, for what shares it with the catalog (catalog-managed Delta tables'
  /// commit coordinator keeps its own tables there).
  std::shared_ptr<SqlDatabase> database() const { return database_; }

  /// The FileIO for files at `location`, made as the catalog's own is (its io_factory
  /// and properties): what a catalog-managed Delta table uses, whose location may be on
  /// other storage than the warehouse.
  arrow::Result<std::shared_ptr<FileIO>> FileIOFor(std::string_view location) const;

  /// True when the catalog tables have the iceberg_type column (schema V1).
  bool has_type_column() const { return has_type_column_; }

  SqlCatalog(std::unique_ptr<SqlDatabase> database, const CatalogOptions& options,
             std::shared_ptr<FileIO> io);

 private:
  arrow::Status Initialize();
  std::string TableFilter() const;
  arrow::Result<std::optional<std::string>> CurrentLocation(const TableIdentifier& id);

  std::shared_ptr<SqlDatabase> database_;
  std::string name_;
  std::string warehouse_;
  std::shared_ptr<FileIO> io_;
  CatalogOptions options_;  // for FileIOFor
  bool has_type_column_ = true;
};

}  // namespace floe::iceberg
