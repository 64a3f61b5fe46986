#include "floe/iceberg/catalog/sql_catalog.h"

#include <algorithm>
#include <set>

#include "floe/iceberg/catalog/metadata_file_internal.h"
#include "floe/iceberg/spec/table_properties.h"
#include "floe/util/error.h"
#include "floe/util/secrets.h"
#include "floe/util/test_hooks_internal.h"

namespace floe::iceberg {
namespace {

constexpr char kCreateTables[] =
    "CREATE TABLE IF NOT EXISTS iceberg_tables ("
    "catalog_name VARCHAR(255) NOT NULL, "
    "table_namespace VARCHAR(255) NOT NULL, "
    "table_name VARCHAR(255) NOT NULL, "
    "metadata_location VARCHAR(1000), "
    "previous_metadata_location VARCHAR(1000), "
    "iceberg_type VARCHAR(5), "
    "PRIMARY KEY (catalog_name, table_namespace, table_name))";
constexpr char kCreateNamespaceProperties[] =
    "CREATE TABLE IF NOT EXISTS iceberg_namespace_properties ("
    "catalog_name VARCHAR(255) NOT NULL, "
    "namespace VARCHAR(255) NOT NULL, "
    "property_key VARCHAR(255), "
    "property_value VARCHAR(1000), "
    "PRIMARY KEY (catalog_name, namespace, property_key))";

// LIKE pattern matching namespaces below `ns` (iceberg-java escapes the wildcards).
std::string ChildPattern(const std::string& ns) {
  std::string escaped;
  for (char c : ns) {
    if (c == '\\' || c == '_' || c == '%') escaped.push_back('\\');
    escaped.push_back(c);
  }
  return escaped + ".%";
}

arrow::Status NoSuchNamespace(const Namespace& ns) {
  return MakeError(ErrorKind::kNoSuchNamespace,
                   "namespace '" + NamespaceToString(ns) + "' does not exist");
}

arrow::Status NoSuchTable(const TableIdentifier& id) {
  return MakeError(ErrorKind::kNoSuchTable,
                   "table '" + id.ToString() + "' does not exist");
}

// Splits "a.b.c" into levels.
Namespace SplitNamespace(const std::string& text) {
  Namespace ns;
  size_t start = 0;
  while (true) {
    size_t dot = text.find('.', start);
    ns.push_back(
        text.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return ns;
}

// An SQLite catalog URI taken apart: the database file and how to open it.
struct SqliteUri {
  std::string path;  // ":memory:" for an in-memory database
  SqliteOpenOptions options;
};

// The parts of an sqlite: URI as SQLAlchemy (pyiceberg) reads them: sqlite:////abs
// (absolute), sqlite:///rel (relative), sqlite:///:memory: (memory), with SQLAlchemy's
// sqlite:///file:path?...&uri=true form; also iceberg-java's jdbc:sqlite:path. Every
// query parameter is honoured or refused: mode=ro|rw|rwc opens the file read-only, for
// writing, or creating it (the default); uri=true only marks a file: path. A URI naming
// no file (sqlite://, sqlite:///) is refused: SQLAlchemy would give a private in-memory
// database, gone when the command ends, which is never what a user of floe means.
arrow::Result<SqliteUri> ParseSqliteUri(const std::string& uri) {
  auto refuse = [&](const std::string& why) {
    return MakeError(ErrorKind::kInvalidInput,
                     "SQLite catalog URI '" + RedactUri(uri) + "' " + why);
  };
  std::string_view text = uri;
  std::string path;
  if (text.substr(0, 12) == "jdbc:sqlite:") {
    path = std::string(text.substr(12));
  } else if (text.substr(0, 9) == "sqlite://") {
    std::string_view rest = text.substr(9);
    if (!rest.empty() && rest[0] != '/') {
      return refuse(
          "has a host part; use sqlite:////absolute/path.db or "
          "sqlite:///relative/path.db");
    }
    path = std::string(rest.empty() ? rest : rest.substr(1));  // "/abs/..." or "rel/..."
  } else {
    return refuse("is not an sqlite:// URI");
  }
  SqliteUri parsed;
  std::string query;
  if (size_t mark = path.find('?'); mark != std::string::npos) {
    query = path.substr(mark + 1);
    path.resize(mark);
  }
  bool uri_filename = false;
  for (size_t start = 0; start < query.size();) {
    size_t end = query.find('&', start);
    if (end == std::string::npos) end = query.size();
    std::string pair = query.substr(start, end - start);
    start = end + 1;
    if (pair.empty()) continue;
    size_t equals = pair.find('=');
    std::string key = pair.substr(0, equals);
    std::string value = equals == std::string::npos ? "" : pair.substr(equals + 1);
    if (key == "mode" && value == "ro") {
      parsed.options.mode = SqliteOpenOptions::Mode::kReadOnly;
    } else if (key == "mode" && value == "rw") {
      parsed.options.mode = SqliteOpenOptions::Mode::kReadWrite;
    } else if (key == "mode" && value == "rwc") {
      parsed.options.mode = SqliteOpenOptions::Mode::kReadWriteCreate;
    } else if (key == "uri" && value == "true") {
      uri_filename = true;
    } else {
      return refuse(
          "has parameter '" + key +
          "', which floe does not honour (it honours mode=ro, mode=rw, mode=rwc "
          "and uri=true)");
    }
  }
  if (path.rfind("file:", 0) == 0) {
    if (!uri_filename && text.substr(0, 12) != "jdbc:sqlite:") {
      return refuse("names a file: path without uri=true");
    }
    path = path.substr(5);
    if (path.rfind("//", 0) == 0) {  // file:///abs
      size_t slash = path.find('/', 2);
      path = slash == std::string::npos ? "" : path.substr(slash);
    }
  }
  if (path == ":memory:") {
    parsed.path = path;
    return parsed;
  }
  if (path.empty()) {
    return refuse(
        "names no database file (SQLite would make a private in-memory catalog that "
        "is gone when floe exits); give sqlite:////absolute/path.db, or --catalog memory "
        "for an in-memory catalog on purpose");
  }
  parsed.path = path;
  return parsed;
}

}  // namespace

SqlCatalog::SqlCatalog(std::unique_ptr<SqlDatabase> database,
                       const CatalogOptions& options, std::shared_ptr<FileIO> io)
    : Catalog(options.env),
      database_(std::move(database)),
      name_(options.name),
      warehouse_(StripTrailingSlash(options.warehouse)),
      io_(std::move(io)),
      options_(options) {}

arrow::Result<std::shared_ptr<FileIO>> SqlCatalog::FileIOFor(
    std::string_view location) const {
  return MakeCatalogFileIO(options_, location);
}

arrow::Result<std::unique_ptr<Catalog>> SqlCatalog::OpenSqlite(
    const CatalogOptions& options) {
  ARROW_ASSIGN_OR_RAISE(SqliteUri uri, ParseSqliteUri(options.uri));
  if (!options.create && uri.options.mode == SqliteOpenOptions::Mode::kReadWriteCreate)
    uri.options.mode = SqliteOpenOptions::Mode::kReadWrite;
  ARROW_ASSIGN_OR_RAISE(auto database,
                        OpenSqliteDatabase(uri.path, uri.options, options.env));
  ARROW_ASSIGN_OR_RAISE(auto io, MakeCatalogFileIO(options, options.warehouse));
  return Make(std::move(database), options, std::move(io));
}

arrow::Result<std::unique_ptr<Catalog>> SqlCatalog::OpenMemory(
    const CatalogOptions& options) {
  ARROW_ASSIGN_OR_RAISE(auto database, OpenSqliteDatabase(":memory:", {}, options.env));
  CatalogOptions memory = options;
  if (memory.warehouse.empty()) memory.warehouse = "memory://warehouse";
  ARROW_ASSIGN_OR_RAISE(auto io, MakeCatalogFileIO(memory, memory.warehouse));
  return Make(std::move(database), memory, std::move(io));
}

arrow::Result<std::unique_ptr<Catalog>> SqlCatalog::OpenPostgres(
    const CatalogOptions& options) {
#ifdef FLOE_WITH_POSTGRES
  // The URI forms of pyiceberg (SQLAlchemy: postgresql+psycopg2://...) and iceberg-java
  // (jdbc:postgresql://...) name the same database libpq reaches as postgresql://...
  std::string uri = options.uri;
  if (uri.rfind("jdbc:", 0) == 0) uri = uri.substr(5);
  size_t plus = uri.find('+');
  size_t colon = uri.find("://");
  if (plus != std::string::npos && colon != std::string::npos && plus < colon) {
    uri = uri.substr(0, plus) + uri.substr(colon);
  }
  // iceberg-java's JdbcCatalog passes jdbc.* catalog properties to the driver; the ones
  // libpq shares with it are taken over.
  std::map<std::string, std::string> connection;
  for (const char* key :
       {"user", "password", "sslmode", "connect_timeout", "application_name"}) {
    auto found = options.properties.find(std::string("jdbc.") + key);
    if (found != options.properties.end()) connection[key] = found->second;
  }
  ARROW_ASSIGN_OR_RAISE(auto database, OpenPostgresDatabase(uri, connection));
  ARROW_ASSIGN_OR_RAISE(auto io, MakeCatalogFileIO(options, options.warehouse));
  return Make(std::move(database), options, std::move(io));
#else
  (void)options;
  return MakeError(
      ErrorKind::kNotSupported,
      "this floe was built without the PostgreSQL catalog (FLOE_WITH_POSTGRES)");
#endif
}

arrow::Result<std::unique_ptr<Catalog>> SqlCatalog::Make(
    std::unique_ptr<SqlDatabase> database, const CatalogOptions& options,
    std::shared_ptr<FileIO> io) {
  auto catalog =
      std::make_unique<SqlCatalog>(std::move(database), options, std::move(io));
  ARROW_RETURN_NOT_OK(catalog->Initialize());
  return std::unique_ptr<Catalog>(std::move(catalog));
}

arrow::Status SqlCatalog::Initialize() {
  if (database_->CheckWritable().ok() && options_.create) {
    // Another process may create the tables at the same moment; IF NOT EXISTS covers
    // that. PostgreSQL reports two clients creating one table at once as a unique
    // violation on its own catalog; the table exists either way, so try again.
    for (int attempt = 0;; ++attempt) {
      auto created = database_->Execute(kCreateTables, {});
      if (created.ok()) created = database_->Execute(kCreateNamespaceProperties, {});
      if (created.ok()) break;
      if (attempt >= 2 || KindOf(created.status()) != ErrorKind::kAlreadyExists) {
        return WithContext(created.status(), "creating the catalog tables");
      }
    }
  } else {
    // A read-only catalog, or one opened only to read, must already have its tables.
    for (const char* table : {"iceberg_tables", "iceberg_namespace_properties"}) {
      auto found =
          database_->Query(std::string("SELECT 1 FROM ") + table + " LIMIT 0", {});
      if (!found.ok() && !options_.create) {
        return MakeError(ErrorKind::kInvalidInput,
                         "the database holds no Iceberg SQL catalog (no table " +
                             std::string(table) +
                             "); a command that only reads adds none");
      }
      if (!found.ok()) {
        return WithContext(
            database_->CheckWritable(),
            std::string("the catalog has no table ") + table + " and cannot create it");
      }
    }
  }
  // Tables created by an older client (schema V0) lack iceberg_type; work without it, as
  // iceberg-java and pyiceberg do unless told to migrate.
  has_type_column_ =
      database_->Query("SELECT iceberg_type FROM iceberg_tables LIMIT 0", {}).ok();
  return arrow::Status::OK();
}

std::string SqlCatalog::TableFilter() const {
  return has_type_column_ ? " AND (iceberg_type = 'TABLE' OR iceberg_type IS NULL)" : "";
}

arrow::Status SqlCatalog::CreateNamespace(
    const Namespace& ns, const std::map<std::string, std::string>& properties) {
  if (ns.empty()) return MakeError(ErrorKind::kInvalidInput, "namespace name is empty");
  ARROW_ASSIGN_OR_RAISE(bool exists, NamespaceExists(ns));
  if (exists) {
    return MakeError(ErrorKind::kAlreadyExists,
                     "namespace '" + NamespaceToString(ns) + "' already exists");
  }
  std::map<std::string, std::string> all = properties;
  all.emplace("exists", "true");
  for (const auto& [key, value] : all) {
    auto inserted = database_->Execute(
        "INSERT INTO iceberg_namespace_properties (catalog_name, namespace, "
        "property_key, "
        "property_value) VALUES (?, ?, ?, ?)",
        {name_, NamespaceToString(ns), key, value});
    if (!inserted.ok()) {
      if (KindOf(inserted.status()) == ErrorKind::kAlreadyExists) {
        return MakeError(ErrorKind::kAlreadyExists,
                         "namespace '" + NamespaceToString(ns) + "' already exists");
      }
      return inserted.status();
    }
  }
  return arrow::Status::OK();
}

arrow::Result<bool> SqlCatalog::NamespaceExists(const Namespace& ns) {
  std::string text = NamespaceToString(ns);
  ARROW_ASSIGN_OR_RAISE(
      auto tables,
      database_->Query(
          "SELECT table_namespace FROM iceberg_tables WHERE catalog_name = ? AND "
          "(table_namespace = ? OR table_namespace LIKE ? ESCAPE '\\') LIMIT 1",
          {name_, text, ChildPattern(text)}));
  if (!tables.empty()) return true;
  ARROW_ASSIGN_OR_RAISE(
      auto properties,
      database_->Query(
          "SELECT namespace FROM iceberg_namespace_properties WHERE catalog_name = ? "
          "AND (namespace = ? OR namespace LIKE ? ESCAPE '\\') LIMIT 1",
          {name_, text, ChildPattern(text)}));
  return !properties.empty();
}

arrow::Result<std::vector<Namespace>> SqlCatalog::ListNamespaces(
    const Namespace& parent) {
  if (!parent.empty()) {
    ARROW_ASSIGN_OR_RAISE(bool exists, NamespaceExists(parent));
    if (!exists) return NoSuchNamespace(parent);
  }
  ARROW_ASSIGN_OR_RAISE(
      auto rows,
      database_->Query("SELECT DISTINCT table_namespace FROM iceberg_tables WHERE "
                       "catalog_name = ? UNION SELECT DISTINCT namespace FROM "
                       "iceberg_namespace_properties WHERE catalog_name = ?",
                       {name_, name_}));
  std::set<Namespace> result;
  for (const auto& row : rows) {
    if (!row[0]) continue;
    Namespace ns = SplitNamespace(*row[0]);
    if (ns.size() <= parent.size() ||
        !std::equal(parent.begin(), parent.end(), ns.begin())) {
      continue;
    }
    ns.resize(parent.size() + 1);
    result.insert(std::move(ns));
  }
  return std::vector<Namespace>(result.begin(), result.end());
}

arrow::Result<std::map<std::string, std::string>> SqlCatalog::LoadNamespaceProperties(
    const Namespace& ns) {
  ARROW_ASSIGN_OR_RAISE(bool exists, NamespaceExists(ns));
  if (!exists) return NoSuchNamespace(ns);
  ARROW_ASSIGN_OR_RAISE(
      auto rows,
      database_->Query("SELECT property_key, property_value FROM "
                       "iceberg_namespace_properties WHERE catalog_name = ? AND "
                       "namespace = ?",
                       {name_, NamespaceToString(ns)}));
  std::map<std::string, std::string> properties;
  for (const auto& row : rows) {
    if (row[0]) properties[*row[0]] = row[1].value_or("");
  }
  return properties;
}

arrow::Status SqlCatalog::UpdateNamespaceProperties(
    const Namespace& ns, const std::map<std::string, std::string>& updates,
    const std::vector<std::string>& removals) {
  ARROW_ASSIGN_OR_RAISE(bool exists, NamespaceExists(ns));
  if (!exists) return NoSuchNamespace(ns);
  std::string text = NamespaceToString(ns);
  for (const auto& key : removals) {
    ARROW_RETURN_NOT_OK(
        database_->Execute("DELETE FROM iceberg_namespace_properties WHERE catalog_name "
                           "= ? AND namespace = ? AND "
                           "property_key = ?",
                           {name_, text, key}));
  }
  for (const auto& [key, value] : updates) {
    ARROW_ASSIGN_OR_RAISE(
        int64_t changed,
        database_->Execute("UPDATE iceberg_namespace_properties SET "
                           "property_value = ? WHERE catalog_name = ? AND "
                           "namespace = ? AND property_key = ?",
                           {value, name_, text, key}));
    if (changed == 0) {
      ARROW_RETURN_NOT_OK(
          database_->Execute("INSERT INTO iceberg_namespace_properties (catalog_name, "
                             "namespace, property_key, "
                             "property_value) VALUES (?, ?, ?, ?)",
                             {name_, text, key, value}));
    }
  }
  return arrow::Status::OK();
}

arrow::Status SqlCatalog::DropNamespace(const Namespace& ns) {
  ARROW_ASSIGN_OR_RAISE(bool exists, NamespaceExists(ns));
  if (!exists) return NoSuchNamespace(ns);
  ARROW_ASSIGN_OR_RAISE(auto tables, ListTables(ns));
  ARROW_ASSIGN_OR_RAISE(auto children, ListNamespaces(ns));
  if (!tables.empty() || !children.empty()) {
    return MakeError(ErrorKind::kNamespaceNotEmpty,
                     "namespace '" + NamespaceToString(ns) + "' is not empty");
  }
  return database_
      ->Execute(
          "DELETE FROM iceberg_namespace_properties WHERE catalog_name = ? AND namespace "
          "= ?",
          {name_, NamespaceToString(ns)})
      .status();
}

arrow::Result<std::vector<TableIdentifier>> SqlCatalog::ListTables(const Namespace& ns) {
  ARROW_ASSIGN_OR_RAISE(bool exists, NamespaceExists(ns));
  if (!exists) return NoSuchNamespace(ns);
  ARROW_ASSIGN_OR_RAISE(
      auto rows,
      database_->Query("SELECT table_name FROM iceberg_tables WHERE catalog_name = ? "
                       "AND table_namespace = ?" +
                           TableFilter(),
                       {name_, NamespaceToString(ns)}));
  std::vector<TableIdentifier> tables;
  for (const auto& row : rows) {
    if (row[0]) tables.push_back(TableIdentifier{ns, *row[0]});
  }
  std::sort(tables.begin(), tables.end());
  return tables;
}

arrow::Result<std::optional<std::string>> SqlCatalog::CurrentLocation(
    const TableIdentifier& id) {
  ARROW_ASSIGN_OR_RAISE(
      auto rows,
      database_->Query("SELECT metadata_location FROM iceberg_tables WHERE "
                       "catalog_name = ? AND table_namespace = ? AND table_name = ?" +
                           TableFilter(),
                       {name_, NamespaceToString(id.ns), id.name}));
  if (rows.empty()) return std::optional<std::string>();
  if (!rows[0][0]) {
    return MakeError(
        ErrorKind::kNoSuchTable,
        "table '" + id.ToString() + "' has no metadata location in the catalog");
  }
  return rows[0][0];
}

arrow::Result<TableState> SqlCatalog::LoadTable(const TableIdentifier& id) {
  ARROW_ASSIGN_OR_RAISE(auto location, CurrentLocation(id));
  if (!location) return NoSuchTable(id);
  auto metadata = ReadMetadataFile(*io_, *location);
  if (!metadata.ok())
    return WithContext(metadata.status(), "table '" + id.ToString() + "'");
  return TableState{*location, *metadata};
}

arrow::Result<TableState> SqlCatalog::CreateTable(const TableIdentifier& id,
                                                  const TableMetadata& metadata) {
  ARROW_ASSIGN_OR_RAISE(bool exists, NamespaceExists(id.ns));
  if (!exists) return NoSuchNamespace(id.ns);
  ARROW_ASSIGN_OR_RAISE(auto current, CurrentLocation(id));
  if (current) {
    return MakeError(ErrorKind::kAlreadyExists,
                     "table '" + id.ToString() + "' already exists");
  }
  std::string location = NewMetadataFileLocation(metadata, "", env());
  auto written = WriteMetadataFile(*io_, location, metadata);
  // Durable before the row names it (docs/storage.md, "Durability").
  if (written.ok()) written = SyncNewFiles(*io_, {location});
  if (!written.ok()) {
    DeleteBestEffort(*io_, location, "unreferenced metadata file", "");
    return written;
  }
  std::vector<SqlValue> params = {name_, NamespaceToString(id.ns), id.name, location};
  std::string sql =
      has_type_column_
          ? "INSERT INTO iceberg_tables (catalog_name, table_namespace, table_name, "
            "metadata_location, previous_metadata_location, iceberg_type) VALUES (?, ?, "
            "?, ?, "
            "NULL, 'TABLE')"
          : "INSERT INTO iceberg_tables (catalog_name, table_namespace, table_name, "
            "metadata_location, previous_metadata_location) VALUES (?, ?, ?, ?, NULL)";
  auto inserted = database_->Execute(sql, params);
  if (!inserted.ok()) {
    // Best effort: the metadata file is not referenced by anything.
    DeleteBestEffort(*io_, location, "unreferenced metadata file", "");
    if (KindOf(inserted.status()) == ErrorKind::kAlreadyExists) {
      return MakeError(ErrorKind::kAlreadyExists,
                       "table '" + id.ToString() + "' already exists");
    }
    return inserted.status();
  }
  return TableState{location, std::make_shared<const TableMetadata>(metadata)};
}

arrow::Result<TableState> SqlCatalog::CommitTable(const TableIdentifier& id,
                                                  const TableState& base,
                                                  const TableMetadata& updated) {
  ARROW_RETURN_NOT_OK(WithContext(database_->CheckWritable(),
                                  "cannot commit to table '" + id.ToString() + "'"));
  std::string location = NewMetadataFileLocation(updated, base.metadata_location, env());
  auto written = WriteMetadataFile(*io_, location, updated);
  // Durable before the swap names it (docs/storage.md, "Durability").
  if (written.ok()) written = SyncNewFiles(*io_, {location});
  if (!written.ok()) {
    DeleteBestEffort(*io_, location, "unreferenced metadata file", "");
    return written;
  }
  TestPausePoint("swap");
  // A lock another process holds is waited for a few seconds (never past
  // commit.retry.total-timeout-ms); then the commit fails as a lost race, and the retry
  // loop decides whether to try again.
  const int64_t lock_wait_ms = std::max<int64_t>(
      0, std::min(SqlDatabase::kDefaultLockWaitMs,
                  properties::kCommitTotalRetryTimeMs.Get(updated.properties)));
  auto changed = database_->ExecuteWithLockWait(
      "UPDATE iceberg_tables SET metadata_location = ?, previous_metadata_location = ? "
      "WHERE "
      "catalog_name = ? AND table_namespace = ? AND table_name = ? AND metadata_location "
      "= ?" +
          TableFilter(),
      {location, base.metadata_location, name_, NamespaceToString(id.ns), id.name,
       base.metadata_location},
      lock_wait_ms);
  if (!changed.ok()) {
    if (KindOf(changed.status()) == ErrorKind::kCommitFailed) {
      DeleteBestEffort(*io_, location, "unreferenced metadata file", "");
      return MakeError(
          ErrorKind::kCommitFailed,
          "table '" + id.ToString() + "': catalog busy: " + changed.status().message());
    }
    if (database_->FailuresCanBeChecked()) {
      // Whether the update took effect can be read back: report what happened.
      auto current = CurrentLocation(id);
      if (current.ok() && *current == location) {
        return TableState{location, std::make_shared<const TableMetadata>(updated)};
      }
      if (current.ok()) {
        DeleteBestEffort(*io_, location, "unreferenced metadata file", "");
        return arrow::Status::IOError("table '", id.ToString(),
                                      "': the commit failed and nothing was committed: ",
                                      changed.status().message());
      }
    }
    // We cannot tell whether the update reached the database: keep the file.
    return MakeError(ErrorKind::kCommitStateUnknown,
                     "table '" + id.ToString() + "': " + changed.status().message());
  }
  if (*changed != 1) {
    DeleteBestEffort(*io_, location, "unreferenced metadata file", "");
    ARROW_ASSIGN_OR_RAISE(auto current, CurrentLocation(id));
    if (!current) return NoSuchTable(id);
    return MakeError(ErrorKind::kCommitFailed,
                     "table '" + id.ToString() +
                         "' was changed by another commit (its metadata "
                         "is now " +
                         *current + ", not " + base.metadata_location + ")");
  }
  return TableState{location, std::make_shared<const TableMetadata>(updated)};
}

arrow::Status SqlCatalog::RenameTable(const TableIdentifier& from,
                                      const TableIdentifier& to) {
  ARROW_ASSIGN_OR_RAISE(bool exists, NamespaceExists(to.ns));
  if (!exists) return NoSuchNamespace(to.ns);
  auto changed = database_->Execute(
      "UPDATE iceberg_tables SET table_namespace = ?, table_name = ? WHERE catalog_name "
      "= ? AND "
      "table_namespace = ? AND table_name = ?" +
          TableFilter(),
      {NamespaceToString(to.ns), to.name, name_, NamespaceToString(from.ns), from.name});
  if (!changed.ok()) {
    if (KindOf(changed.status()) == ErrorKind::kAlreadyExists) {
      return MakeError(ErrorKind::kAlreadyExists,
                       "table '" + to.ToString() + "' already exists");
    }
    return changed.status();
  }
  if (*changed == 0) return NoSuchTable(from);
  return arrow::Status::OK();
}

arrow::Status SqlCatalog::DropTable(const TableIdentifier& id) {
  ARROW_ASSIGN_OR_RAISE(
      int64_t changed,
      database_->Execute(
          "DELETE FROM iceberg_tables WHERE catalog_name = ? AND table_namespace = ? "
          "AND table_name = ?" +
              TableFilter(),
          {name_, NamespaceToString(id.ns), id.name}));
  if (changed == 0) return NoSuchTable(id);
  return arrow::Status::OK();
}

arrow::Result<std::string> SqlCatalog::DefaultTableLocation(const TableIdentifier& id) {
  ARROW_ASSIGN_OR_RAISE(auto properties, LoadNamespaceProperties(id.ns));
  auto location = properties.find("location");
  if (location != properties.end() && !location->second.empty()) {
    return StripTrailingSlash(location->second) + "/" + id.name;
  }
  if (warehouse_.empty()) {
    return MakeError(ErrorKind::kInvalidInput,
                     "no warehouse is configured, so table '" + id.ToString() +
                         "' has no default location (use --warehouse)");
  }
  std::string path = warehouse_;
  for (const auto& level : id.ns) path += "/" + level;
  return path + "/" + id.name;
}

}  // namespace floe::iceberg
