// The Catalog interface: namespaces, tables, and the atomic swap of a table's metadata
// pointer.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "arrow/result.h"
#include "floe/iceberg/spec/table_metadata.h"
#include "floe/io/file_io.h"
#include "floe/util/env.h"

namespace floe::iceberg {

/// A namespace: one or more levels ("db" or "prod.db").
using Namespace = std::vector<std::string>;

/// A table's name: its namespace and its own name.
struct TableIdentifier {
  Namespace ns;
  std::string name;

  /// "level1.level2.table".
  std::string ToString() const;
  /// Parses "ns.table" (at least one namespace level; the last dotted part is the table).
  /// Empty parts, NUL or control characters give InvalidInput.
  static arrow::Result<TableIdentifier> Parse(std::string_view text);
  bool operator==(const TableIdentifier&) const = default;
  bool operator<(const TableIdentifier& other) const {
    return std::tie(ns, name) < std::tie(other.ns, other.name);
  }
};

/// Namespace levels joined with '.', as the SQL catalogs store them.
std::string NamespaceToString(const Namespace& ns);
/// Parses "a.b" into levels; checks every level like a table name.
arrow::Result<Namespace> ParseNamespace(std::string_view text);

/// A table as the catalog knows it: the location of its current metadata file and that
/// file's content.
struct TableState {
  std::string metadata_location;
  TableMetadataPtr metadata;
};

/// How to reach a catalog. `type`, or when empty `uri`, selects the implementation among
/// those registered (RegisterCatalog); built in, as the build options allow:
///   sqlite:////abs/path/catalog.db, sqlite:///relative/path.db (?mode=ro|rw|rwc),
///   sqlite:///:memory: (a private in-memory database)                     type "sql";
///   postgresql://user@host:port/db (also postgresql+psycopg2://, jdbc:postgresql://)
///                                      type "sql" (FLOE_WITH_POSTGRES);
///   hadoop:///abs/warehouse, or hadoop with `warehouse` (iceberg-java's Hadoop layout)
///                                      type "hadoop";
///   memory (in-process: an in-memory SQL catalog, tables under memory://warehouse)
///                                      type "memory";
///   http://host:port/ or https://... (a REST catalog server; see rest_catalog.h)
///                                      type "rest" (FLOE_WITH_REST).
/// Credentials inside `uri` or `properties` never appear in errors or logs.
struct CatalogOptions {
  std::string uri;
  std::string warehouse;  ///< A directory path or file:// URI; new tables go below it.
  std::string name = "floe";
  std::map<std::string, std::string> properties;
  /// The registered catalog type to open ("sql", "hadoop", "rest", ...); empty: the one
  /// whose URI prefix `uri` starts with.
  std::string type;
  /// Clocks, sleeps (lock waits, retries) and random numbers for the catalog and the
  /// commits through it. Not owned; must outlive the catalog.
  Env* env = Env::Default();
  /// Makes the catalog's FileIO (for the warehouse, with `properties`) and its tables'.
  /// MakeFileIO when empty.
  FileIOFactory io_factory;
  /// Creates what the catalog keeps its tables in when it is missing (an SQLite database
  /// file, the SQL catalog's tables). False opens only an existing catalog: what a
  /// command that only reads uses, so that a mistyped path or an unrelated database is
  /// reported (NotFound, InvalidInput) and left as it was.
  bool create = true;
};

/// The FileIO a catalog opened with `options` uses for its warehouse at `location`: its
/// io_factory's, else MakeFileIO's. A location whose scheme has no FileIO (MakeFileIO
/// has no factory for it, or io_factory says NotSupported) gets the local one, so that a
/// catalog of such tables still opens and lists them; every read or write of such a
/// location then fails with NotSupported naming its scheme.
arrow::Result<std::shared_ptr<FileIO>> MakeCatalogFileIO(const CatalogOptions& options,
                                                         std::string_view location);

/// A catalog. Implementations are thread-safe unless they say otherwise.
class Catalog {
 public:
  virtual ~Catalog() = default;
  Catalog(const Catalog&) = delete;
  Catalog& operator=(const Catalog&) = delete;

  /// Opens the catalog `options.type`, or else `options.uri`, names (see CatalogOptions).
  /// An unknown type or URI gives InvalidInput listing the registered ones.
  static arrow::Result<std::unique_ptr<Catalog>> Open(const CatalogOptions& options);

  virtual const std::string& name() const = 0;
  /// The FileIO the catalog writes metadata with (and tables use by default).
  virtual std::shared_ptr<FileIO> io() const = 0;
  /// The FileIO for the files of table `id`, whose state is `state`: the catalog's own
  /// unless the catalog knows better (a REST server vends storage configuration per
  /// table). Table::Load and Table::Create ask once.
  virtual arrow::Result<std::shared_ptr<FileIO>> TableIO(const TableIdentifier& id,
                                                         const TableState& state) {
    (void)id;
    (void)state;
    return io();
  }
  /// True when the catalog hands each table its storage configuration (a REST server's
  /// vended credentials, through TableIO), so that io() may not reach a table's files.
  virtual bool VendsTableStorage() const { return false; }
  /// The machine the catalog and the commits through it use (CatalogOptions::env).
  Env* env() const { return env_; }

  /// AlreadyExists when the namespace exists.
  virtual arrow::Status CreateNamespace(
      const Namespace& ns, const std::map<std::string, std::string>& properties) = 0;
  /// Namespaces one level below `parent` (top-level ones when `parent` is empty), sorted.
  virtual arrow::Result<std::vector<Namespace>> ListNamespaces(
      const Namespace& parent) = 0;
  virtual arrow::Result<bool> NamespaceExists(const Namespace& ns) = 0;
  /// NoSuchNamespace when absent.
  virtual arrow::Result<std::map<std::string, std::string>> LoadNamespaceProperties(
      const Namespace& ns) = 0;
  virtual arrow::Status UpdateNamespaceProperties(
      const Namespace& ns, const std::map<std::string, std::string>& updates,
      const std::vector<std::string>& removals) = 0;
  /// NoSuchNamespace when absent, NamespaceNotEmpty when it holds tables.
  virtual arrow::Status DropNamespace(const Namespace& ns) = 0;

  /// Tables directly in `ns`, sorted. NoSuchNamespace when absent.
  virtual arrow::Result<std::vector<TableIdentifier>> ListTables(const Namespace& ns) = 0;
  /// Reads the current metadata. NoSuchTable when the table is unknown; InvalidMetadata
  /// (naming the file) when its metadata cannot be read.
  virtual arrow::Result<TableState> LoadTable(const TableIdentifier& id) = 0;
  /// Writes `metadata` as the table's first metadata file and registers it. AlreadyExists
  /// when the table exists, NoSuchNamespace when its namespace does not.
  virtual arrow::Result<TableState> CreateTable(const TableIdentifier& id,
                                                const TableMetadata& metadata) = 0;
  /// Writes `updated` as a new metadata file and swaps the table's pointer from
  /// `base.metadata_location` to it, atomically. Losing the race (the pointer moved)
  /// gives CommitFailed and removes the file written; a failure after which the swap may
  /// or may not have happened gives CommitStateUnknown and removes nothing.
  virtual arrow::Result<TableState> CommitTable(const TableIdentifier& id,
                                                const TableState& base,
                                                const TableMetadata& updated) = 0;
  virtual arrow::Status RenameTable(const TableIdentifier& from,
                                    const TableIdentifier& to) = 0;
  /// Removes the table from the catalog; its files stay (NoSuchTable when absent), except
  /// in the filesystem catalog, where the table's directory is the table.
  virtual arrow::Status DropTable(const TableIdentifier& id) = 0;

  /// OK when the catalog can take commits, as far as it can tell without trying;
  /// InvalidInput saying why not (an SQLite file opened read-only, or that this user may
  /// not write). Writes ask before any data file is written.
  virtual arrow::Status CheckWritable() const { return arrow::Status::OK(); }
  /// Local files the catalog keeps for itself (an SQLite database with its journal, WAL
  /// and shared-memory files); empty when it keeps none. Maintenance never deletes them
  /// and refuses to clean a folder that holds them, and no table may be created over
  /// them.
  virtual std::vector<std::string> OwnFiles() const { return {}; }
  /// The warehouse new tables go below by default ("" when the catalog has none or its
  /// server keeps it). No table may have it, or a folder above it, as its location.
  virtual std::string WarehouseLocation() const { return ""; }

  /// Where a new table's files go when no location is given:
  /// `<namespace location or warehouse/ns levels>/<table>` (iceberg-java's JdbcCatalog).
  virtual arrow::Result<std::string> DefaultTableLocation(const TableIdentifier& id) = 0;

 protected:
  explicit Catalog(Env* env) : env_(env) {}

 private:
  Env* env_;
};

/// Opens one kind of catalog.
using CatalogFactory =
    std::function<arrow::Result<std::unique_ptr<Catalog>>(const CatalogOptions&)>;

/// Makes Catalog::Open use `factory` for CatalogOptions::type `type`, and for the URIs
/// `uri_forms` describe: a form ending in '*' matches every URI starting with the rest
/// ("sqlite:*"), any other form only that URI ("memory"); the longest match wins.
/// Replaces any factory registered before under `type`. Thread-safe. The built-in
/// catalogs are registered before the first Open. `example` is a URI shown in the error
/// for a URI no catalog takes.
void RegisterCatalog(std::string type, std::vector<std::string> uri_forms,
                     std::string example, CatalogFactory factory);

/// The registered catalog types, sorted.
std::vector<std::string> RegisteredCatalogTypes();

/// The file name of the metadata version after `base_location`
/// (`00000-<uuid>.metadata.json` for a new table), as iceberg-java's metastore catalogs
/// name it, its UUID drawn from `env`.
std::string NextMetadataFileName(const std::string& base_location, Env* env);

}  // namespace floe::iceberg
