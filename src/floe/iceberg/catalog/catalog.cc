#include "floe/iceberg/catalog/catalog.h"

#include <algorithm>
#include <charconv>
#include <cstdio>

#include "floe/iceberg/catalog/filesystem_catalog.h"
#ifdef FLOE_WITH_REST
#include "floe/iceberg/catalog/rest_catalog.h"
#endif
#include "floe/iceberg/catalog/sql_catalog.h"
#include "floe/util/error.h"
#include "floe/util/mutex.h"
#include "floe/util/number_text.h"
#include "floe/util/secrets.h"
#include "floe/util/uuid.h"

namespace floe::iceberg {
namespace {

// Catalog columns are VARCHAR(255); longer names cannot be stored by iceberg-java either.
constexpr size_t kMaxNameLength = 255;

arrow::Status CheckName(std::string_view name, std::string_view what) {
  auto bad = [&](const std::string& why) {
    return MakeError(ErrorKind::kInvalidInput,
                     std::string(what) + " name is invalid: " + why);
  };
  if (name.empty()) return bad("it is empty");
  if (name.size() > kMaxNameLength) return bad("it is longer than 255 bytes");
  if (name == "." || name == "..") return bad("'.' and '..' are not names");
  for (char c : name) {
    auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7F) return bad("it contains a control character");
    if (c == '/' || c == '\\') return bad("it contains '/' or '\\'");
  }
  return arrow::Status::OK();
}

std::vector<std::string_view> SplitDots(std::string_view text) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    size_t dot = text.find('.', start);
    parts.push_back(
        text.substr(start, dot == std::string_view::npos ? text.npos : dot - start));
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return parts;
}

}  // namespace

std::string NamespaceToString(const Namespace& ns) {
  std::string text;
  for (size_t i = 0; i < ns.size(); ++i) {
    if (i > 0) text += ".";
    text += ns[i];
  }
  return text;
}

arrow::Result<Namespace> ParseNamespace(std::string_view text) {
  Namespace ns;
  for (auto part : SplitDots(text)) {
    ARROW_RETURN_NOT_OK(CheckName(part, "namespace"));
    ns.emplace_back(part);
  }
  return ns;
}

std::string TableIdentifier::ToString() const {
  return ns.empty() ? name : NamespaceToString(ns) + "." + name;
}

arrow::Result<TableIdentifier> TableIdentifier::Parse(std::string_view text) {
  auto parts = SplitDots(text);
  if (parts.size() < 2) {
    return MakeError(
        ErrorKind::kInvalidInput,
        "table name '" + std::string(text) + "' needs a namespace: NAMESPACE.TABLE");
  }
  TableIdentifier id;
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    ARROW_RETURN_NOT_OK(CheckName(parts[i], "namespace"));
    id.ns.emplace_back(parts[i]);
  }
  ARROW_RETURN_NOT_OK(CheckName(parts.back(), "table"));
  id.name = std::string(parts.back());
  return id;
}

std::string NextMetadataFileName(const std::string& base_location, Env* env) {
  int version = -1;
  if (!base_location.empty()) {
    size_t slash = base_location.rfind('/');
    std::string_view file = std::string_view(base_location)
                                .substr(slash == std::string::npos ? 0 : slash + 1);
    size_t dash = file.find('-');
    if (dash != std::string_view::npos) {
      // A version past what five or more digits hold stays a fresh start, never wraps.
      if (auto parsed = ParseDigits(file.substr(0, dash));
          parsed && *parsed < 999'999'999)
        version = static_cast<int>(*parsed);
    }
  }
  char prefix[16];
  std::snprintf(prefix, sizeof(prefix), "%05d", version + 1);
  return std::string(prefix) + "-" + Uuid::Random(env).ToString() + ".metadata.json";
}

namespace {

struct RegisteredCatalog {
  std::vector<std::string> uri_forms;
  std::string example;
  CatalogFactory factory;
};

struct CatalogRegistry {
  Mutex mutex;
  std::map<std::string, RegisteredCatalog> catalogs FLOE_GUARDED_BY(mutex);  // by type
};

// The length of the longest of `forms` that `uri` matches (0: none).
size_t MatchLength(const std::vector<std::string>& forms, std::string_view uri) {
  size_t best = 0;
  for (std::string_view form : forms) {
    const bool prefix = !form.empty() && form.back() == '*';
    if (prefix) form.remove_suffix(1);
    const bool matches = prefix ? uri.substr(0, form.size()) == form : uri == form;
    if (matches) best = std::max(best, form.size() + 1);
  }
  return best;
}

// The catalogs this build has, registered before anyone can look one up.
void RegisterBuiltinCatalogs(CatalogRegistry* registry) {
  auto add = [&](std::string type, std::vector<std::string> forms, std::string example,
                 CatalogFactory factory) {
    MutexLock lock(&registry->mutex);
    registry->catalogs[std::move(type)] = {std::move(forms), std::move(example),
                                           std::move(factory)};
  };
  // A catalog this build leaves out still takes its URIs, to say so.
  [[maybe_unused]] auto left_out = [](const std::string& what,
                                      const std::string& option) -> CatalogFactory {
    return
        [what, option](const CatalogOptions&) -> arrow::Result<std::unique_ptr<Catalog>> {
          return MakeError(ErrorKind::kNotSupported, "this floe was built without the " +
                                                         what + " (" + option + "=OFF)");
        };
  };
  const std::vector<std::string> postgres = {"postgresql:*", "postgresql+*", "postgres:*",
                                             "jdbc:postgresql:*"};
  std::vector<std::string> sql = {"sqlite:*", "jdbc:sqlite:*"};
  std::string sql_example = "sqlite:////absolute/path.db";
#ifdef FLOE_WITH_POSTGRES
  sql.insert(sql.end(), postgres.begin(), postgres.end());
  sql_example += ", postgresql://user@host:port/database";
#else
  add("postgresql", postgres, "postgresql://user@host:port/database",
      left_out("PostgreSQL catalog", "FLOE_WITH_POSTGRES"));
#endif
  add("sql", sql, sql_example,
      [postgres](
          const CatalogOptions& options) -> arrow::Result<std::unique_ptr<Catalog>> {
        // PostgreSQL for its URIs; SQLite for the rest (its own URIs, and the errors
        // saying what an SQLite catalog URI looks like).
        if (MatchLength(postgres, options.uri) > 0)
          return SqlCatalog::OpenPostgres(options);
        return SqlCatalog::OpenSqlite(options);
      });
  add("memory", {"memory", "memory:"}, "memory", SqlCatalog::OpenMemory);
  add("hadoop", {"hadoop", "hadoop:*"}, "hadoop:///warehouse/dir",
      FilesystemCatalog::Open);
#ifdef FLOE_WITH_REST
  add("rest", {"http://*", "https://*"}, "http(s)://rest-server", RestCatalog::Open);
#else
  add("rest", {"http://*", "https://*"}, "http(s)://rest-server",
      left_out("REST catalog client", "FLOE_WITH_REST"));
#endif
}

CatalogRegistry& Registry() {
  static auto* registry = [] {
    auto* made = new CatalogRegistry();  // never destroyed: used until the process ends
    RegisterBuiltinCatalogs(made);
    return made;
  }();
  return *registry;
}

}  // namespace

void RegisterCatalog(std::string type, std::vector<std::string> uri_forms,
                     std::string example, CatalogFactory factory) {
  auto& registry = Registry();
  MutexLock lock(&registry.mutex);
  registry.catalogs[std::move(type)] = {std::move(uri_forms), std::move(example),
                                        std::move(factory)};
}

std::vector<std::string> RegisteredCatalogTypes() {
  auto& registry = Registry();
  MutexLock lock(&registry.mutex);
  std::vector<std::string> types;
  for (const auto& [type, registered] : registry.catalogs) types.push_back(type);
  return types;
}

arrow::Result<std::shared_ptr<FileIO>> MakeCatalogFileIO(const CatalogOptions& options,
                                                         std::string_view location) {
  const FileIOFactory& factory = options.io_factory ? options.io_factory : MakeFileIO;
  auto io = factory(location, options.properties);
  if (io.ok() || KindOf(io.status()) != ErrorKind::kNotSupported) return io;
  // A scheme floe has a FileIO for, refusing its configuration (a storage property it
  // does not honour), fails the catalog: its tables are all there.
  if (!options.io_factory && HasFileIOFor(location)) return io;
  return factory("", options.properties);
}

arrow::Result<std::unique_ptr<Catalog>> Catalog::Open(const CatalogOptions& options) {
  CatalogFactory factory;
  std::string examples;
  std::string types;
  {
    auto& registry = Registry();
    MutexLock lock(&registry.mutex);
    size_t best = 0;
    for (const auto& [type, registered] : registry.catalogs) {
      if (!options.type.empty()) {
        if (type == options.type) factory = registered.factory;
      } else if (size_t length = MatchLength(registered.uri_forms, options.uri);
                 length > best) {
        best = length;
        factory = registered.factory;
      }
      examples += (examples.empty() ? "" : ", ") + registered.example;
      types += (types.empty() ? "" : ", ") + type;
    }
  }
  if (factory) return factory(options);
  if (!options.type.empty()) {
    return MakeError(ErrorKind::kInvalidInput, "catalog type '" + options.type +
                                                   "' is not supported (this build has " +
                                                   types + ")");
  }
  return MakeError(ErrorKind::kInvalidInput, "catalog URI '" + RedactUri(options.uri) +
                                                 "' is not supported (expected " +
                                                 examples + ")");
}

}  // namespace floe::iceberg
