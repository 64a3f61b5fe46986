#include "floe/iceberg/catalog/filesystem_catalog.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "floe/iceberg/catalog/metadata_file_internal.h"
#include "floe/util/error.h"
#include "floe/util/log.h"
#include "floe/util/number_text.h"
#include "floe/util/secrets.h"
#include "floe/util/test_hooks_internal.h"
#include "floe/util/text.h"
#include "floe/util/uuid.h"

namespace floe::iceberg {
namespace {

namespace fs = std::filesystem;

constexpr char kVersionHint[] = "version-hint.text";

bool EndsWith(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// The spellings HadoopTableOperations looks for, in its order: plain, gzip, and the old
// gzip suffix.
std::vector<std::string> MetadataFileNames(int64_t version) {
  std::string stem = "v" + std::to_string(version);
  return {stem + ".metadata.json", stem + ".gz.metadata.json",
          stem + ".metadata.json.gz"};
}

bool IsDirectory(const std::string& path) {
  std::error_code error;
  return fs::is_directory(path, error);
}

arrow::Status NoSuchNamespace(const Namespace& ns) {
  return MakeError(ErrorKind::kNoSuchNamespace,
                   "namespace '" + NamespaceToString(ns) + "' does not exist");
}

arrow::Status NoSuchTable(const TableIdentifier& id) {
  return MakeError(ErrorKind::kNoSuchTable,
                   "table '" + id.ToString() + "' does not exist");
}

// Names become directory names: refuse anything that could leave the warehouse even when
// an identifier was built without TableIdentifier::Parse.
arrow::Status CheckLevel(const std::string& level) {
  if (level.empty() || level == "." || level == ".." ||
      level.find_first_of(std::string("/\\\0", 3)) != std::string::npos) {
    return MakeError(ErrorKind::kInvalidInput,
                     "'" + level + "' cannot name a directory of the filesystem catalog");
  }
  return arrow::Status::OK();
}

}  // namespace

FilesystemCatalog::FilesystemCatalog(std::string name, std::string root,
                                     std::shared_ptr<FileIO> io, Env* env)
    : Catalog(env), name_(std::move(name)), root_(std::move(root)), io_(std::move(io)) {}

arrow::Result<std::unique_ptr<Catalog>> FilesystemCatalog::Open(
    const CatalogOptions& options) {
  // hadoop:///abs/dir names the warehouse; plain `hadoop` takes it from the options.
  // Every part of the URI is honoured or refused.
  std::string from_uri;
  if (options.uri.rfind("hadoop:", 0) == 0) {
    from_uri = options.uri.substr(7);
    if (from_uri.rfind("//", 0) == 0) {
      from_uri = from_uri.substr(2);
      if (!from_uri.empty() && from_uri[0] != '/') {
        return MakeError(ErrorKind::kInvalidInput,
                         "filesystem catalog URI '" + RedactUri(options.uri) +
                             "' names a host; floe's filesystem catalog is local: "
                             "hadoop:///absolute/dir");
      }
    }
    if (from_uri.find_first_of("?#") != std::string::npos) {
      return MakeError(ErrorKind::kInvalidInput,
                       "filesystem catalog URI '" + RedactUri(options.uri) +
                           "' has a query or fragment, which floe does not honour");
    }
    if (!from_uri.empty() && from_uri[0] != '/') {
      return MakeError(ErrorKind::kInvalidInput,
                       "filesystem catalog URI '" + RedactUri(options.uri) +
                           "' needs an absolute directory: hadoop:///absolute/dir");
    }
  }
  std::string warehouse = options.warehouse;
  if (!from_uri.empty()) {
    if (!warehouse.empty() && StripTrailingSlash(CanonicalLocation(warehouse)) !=
                                  StripTrailingSlash(CanonicalLocation(from_uri))) {
      return MakeError(
          ErrorKind::kInvalidInput,
          "the catalog URI '" + RedactUri(options.uri) + "' names warehouse " + from_uri +
              " but the warehouse option is " + warehouse + "; give one of them");
    }
    warehouse = from_uri;
  }
  if (warehouse.empty()) {
    return MakeError(
        ErrorKind::kInvalidInput,
        "the filesystem catalog needs a warehouse directory (--warehouse DIR "
        "or --catalog hadoop:///abs/dir)");
  }
  const std::string scheme = LocationScheme(warehouse);
  if (scheme != "file") {
    return MakeError(ErrorKind::kNotSupported,
                     "the filesystem catalog commits by an atomic rename, which storage "
                     "scheme '" +
                         scheme + "' does not have; use a SQL catalog for it");
  }
  ARROW_RETURN_NOT_OK(CheckSupportedLocation(warehouse));
  std::string root = StripTrailingSlash(CanonicalLocation(warehouse));
  std::error_code error;
  fs::create_directories(root, error);
  if (error) {
    return MakeError(ErrorKind::kInvalidInput, "cannot create warehouse directory " +
                                                   root + ": " + error.message());
  }
  ARROW_ASSIGN_OR_RAISE(auto io, MakeCatalogFileIO(options, root));
  return std::unique_ptr<Catalog>(std::make_unique<FilesystemCatalog>(
      options.name, std::move(root), std::move(io), options.env));
}

std::string FilesystemCatalog::Directory(const Namespace& ns) const {
  std::string path = root_;
  for (const auto& level : ns) path += "/" + level;
  return path;
}

std::string FilesystemCatalog::TableDirectory(const TableIdentifier& id) const {
  return Directory(id.ns) + "/" + id.name;
}

int64_t FilesystemCatalog::VersionOf(const std::string& file_name) {
  if (file_name.size() < 2 || file_name[0] != 'v') return -1;
  size_t digits = 1;
  while (digits < file_name.size() &&
         std::isdigit(static_cast<unsigned char>(file_name[digits])))
    ++digits;
  if (digits == 1) return -1;
  std::string_view rest = std::string_view(file_name).substr(digits);
  if (rest != ".metadata.json" && rest != ".gz.metadata.json" &&
      rest != ".metadata.json.gz")
    return -1;
  return ParseDigits(std::string_view(file_name).substr(1, digits - 1)).value_or(-1);
}

bool FilesystemCatalog::IsTableDirectory(const std::string& directory) const {
  auto names = io_->ListNames(directory + "/metadata");
  if (!names.ok()) return false;
  for (const auto& name : *names) {
    if (EndsWith(name, ".metadata.json") || EndsWith(name, ".metadata.json.gz"))
      return true;
  }
  return false;
}

arrow::Result<std::pair<int64_t, std::string>> FilesystemCatalog::CurrentVersion(
    const std::string& table_directory) {
  const std::string metadata = table_directory + "/metadata/";
  auto file_for = [&](int64_t version) -> std::string {
    for (const auto& name : MetadataFileNames(version)) {
      auto exists = io_->Exists(metadata + name);
      if (exists.ok() && *exists) return metadata + name;
    }
    return "";
  };
  int64_t version = -1;
  if (auto hint = io_->ReadAll(metadata + kVersionHint, 64); hint.ok()) {
    version = ParseDigits(TrimTrailingSpace(*hint)).value_or(-1);
  }
  if (version < 0) {  // no usable hint: the highest version present
    version = 0;
    if (auto names = io_->ListNames(metadata); names.ok()) {
      for (const auto& name : *names) version = std::max(version, VersionOf(name));
    }
  }
  std::string location = file_for(version);
  if (location.empty()) {
    if (version == 0) return std::make_pair(int64_t{0}, std::string());
    return MakeError(ErrorKind::kInvalidMetadata,
                     "table directory " + table_directory + ": " + kVersionHint +
                         " names version " + std::to_string(version) +
                         ", whose metadata file is missing");
  }
  // A writer that committed but has not updated the hint yet: follow it.
  for (std::string next = file_for(version + 1); !next.empty();
       next = file_for(version + 1)) {
    ++version;
    location = std::move(next);
  }
  return std::make_pair(version, location);
}

arrow::Status FilesystemCatalog::CreateNamespace(
    const Namespace& ns, const std::map<std::string, std::string>& properties) {
  if (ns.empty()) return MakeError(ErrorKind::kInvalidInput, "namespace name is empty");
  for (const auto& level : ns) ARROW_RETURN_NOT_OK(CheckLevel(level));
  if (!properties.empty()) {
    return MakeError(ErrorKind::kNotSupported,
                     "the filesystem catalog keeps no namespace properties (namespace '" +
                         NamespaceToString(ns) + "')");
  }
  const std::string directory = Directory(ns);
  if (IsDirectory(directory)) {
    return MakeError(ErrorKind::kAlreadyExists,
                     "namespace '" + NamespaceToString(ns) + "' already exists");
  }
  std::error_code error;
  fs::create_directories(directory, error);
  if (error) {
    return arrow::Status::IOError("cannot create namespace directory ", directory, ": ",
                                  error.message());
  }
  return arrow::Status::OK();
}

arrow::Result<std::vector<Namespace>> FilesystemCatalog::ListNamespaces(
    const Namespace& parent) {
  if (!parent.empty()) {
    ARROW_ASSIGN_OR_RAISE(bool exists, NamespaceExists(parent));
    if (!exists) return NoSuchNamespace(parent);
  }
  std::vector<Namespace> children;
  std::error_code error;
  fs::directory_iterator it(Directory(parent), error);
  if (error) return children;
  for (const auto& entry : it) {
    std::string name = entry.path().filename().string();
    if (name.empty() || name[0] == '.' || !entry.is_directory(error)) continue;
    if (IsTableDirectory(entry.path().string())) continue;
    Namespace child = parent;
    child.push_back(name);
    children.push_back(std::move(child));
  }
  std::sort(children.begin(), children.end());
  return children;
}

arrow::Result<bool> FilesystemCatalog::NamespaceExists(const Namespace& ns) {
  for (const auto& level : ns) {
    if (!CheckLevel(level).ok()) return false;
  }
  const std::string directory = Directory(ns);
  return IsDirectory(directory) && (ns.empty() || !IsTableDirectory(directory));
}

arrow::Result<std::map<std::string, std::string>>
FilesystemCatalog::LoadNamespaceProperties(const Namespace& ns) {
  ARROW_ASSIGN_OR_RAISE(bool exists, NamespaceExists(ns));
  if (!exists) return NoSuchNamespace(ns);
  return std::map<std::string, std::string>{{"location", Directory(ns)}};
}

arrow::Status FilesystemCatalog::UpdateNamespaceProperties(
    const Namespace& ns, const std::map<std::string, std::string>&,
    const std::vector<std::string>&) {
  return MakeError(ErrorKind::kNotSupported,
                   "the filesystem catalog keeps no namespace properties (namespace '" +
                       NamespaceToString(ns) + "')");
}

arrow::Status FilesystemCatalog::DropNamespace(const Namespace& ns) {
  ARROW_ASSIGN_OR_RAISE(bool exists, NamespaceExists(ns));
  if (!exists || ns.empty()) return NoSuchNamespace(ns);
  std::error_code error;
  if (!fs::is_empty(Directory(ns), error)) {
    return MakeError(ErrorKind::kNamespaceNotEmpty,
                     "namespace '" + NamespaceToString(ns) + "' is not empty");
  }
  fs::remove(Directory(ns), error);
  if (error) {
    return arrow::Status::IOError("cannot remove namespace directory ", Directory(ns),
                                  ": ", error.message());
  }
  return arrow::Status::OK();
}

arrow::Result<std::vector<TableIdentifier>> FilesystemCatalog::ListTables(
    const Namespace& ns) {
  ARROW_ASSIGN_OR_RAISE(bool exists, NamespaceExists(ns));
  if (!exists) return NoSuchNamespace(ns);
  std::vector<TableIdentifier> tables;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(Directory(ns), error)) {
    if (!entry.is_directory(error) || !IsTableDirectory(entry.path().string())) continue;
    tables.push_back(TableIdentifier{ns, entry.path().filename().string()});
  }
  std::sort(tables.begin(), tables.end(),
            [](const auto& a, const auto& b) { return a.name < b.name; });
  return tables;
}

arrow::Result<TableState> FilesystemCatalog::LoadTable(const TableIdentifier& id) {
  for (const auto& level : id.ns) ARROW_RETURN_NOT_OK(CheckLevel(level));
  ARROW_RETURN_NOT_OK(CheckLevel(id.name));
  const std::string directory = TableDirectory(id);
  if (!IsTableDirectory(directory)) return NoSuchTable(id);
  auto current = CurrentVersion(directory);
  if (!current.ok())
    return WithContext(current.status(), "table '" + id.ToString() + "'");
  if (current->second.empty()) return NoSuchTable(id);
  auto metadata = ReadMetadataFile(*io_, current->second);
  if (!metadata.ok())
    return WithContext(metadata.status(), "table '" + id.ToString() + "'");
  return TableState{current->second, *metadata};
}

arrow::Result<TableState> FilesystemCatalog::CreateTable(const TableIdentifier& id,
                                                         const TableMetadata& metadata) {
  for (const auto& level : id.ns) ARROW_RETURN_NOT_OK(CheckLevel(level));
  ARROW_RETURN_NOT_OK(CheckLevel(id.name));
  ARROW_ASSIGN_OR_RAISE(bool exists, NamespaceExists(id.ns));
  if (!exists) return NoSuchNamespace(id.ns);
  const std::string directory = TableDirectory(id);
  if (CanonicalLocation(metadata.location) != directory) {
    return MakeError(
        ErrorKind::kInvalidInput,
        "table '" + id.ToString() +
            "': the filesystem catalog keeps a table in its own directory (" + directory +
            "); a custom location is not supported");
  }
  if (IsTableDirectory(directory)) {
    return MakeError(ErrorKind::kAlreadyExists,
                     "table '" + id.ToString() + "' already exists");
  }
  return CommitTable(id, TableState{}, metadata);
}

arrow::Result<TableState> FilesystemCatalog::CommitTable(const TableIdentifier& id,
                                                         const TableState& base,
                                                         const TableMetadata& updated) {
  const std::string directory = TableDirectory(id);
  ARROW_ASSIGN_OR_RAISE(auto current, CurrentVersion(directory));
  if (current.second != base.metadata_location) {
    if (base.metadata_location.empty()) {
      return MakeError(ErrorKind::kAlreadyExists,
                       "table '" + id.ToString() + "' already exists");
    }
    return MakeError(ErrorKind::kCommitFailed,
                     "table '" + id.ToString() +
                         "' was changed by another commit (its metadata is now " +
                         current.second + ", not " + base.metadata_location + ")");
  }
  const int64_t next = current.first + 1;
  const bool gzip = GzipsMetadataFiles(updated.properties);
  const std::string extension = gzip ? ".gz.metadata.json" : ".metadata.json";
  const std::string metadata_directory = directory + "/metadata/";
  const std::string final_location =
      metadata_directory + "v" + std::to_string(next) + extension;
  const std::string temporary =
      metadata_directory + Uuid::Random(env()).ToString() + extension;
  auto written = WriteMetadataFile(*io_, temporary, updated);
  if (!written.ok()) {
    DeleteBestEffort(*io_, temporary, "unreferenced metadata file", "");
    return written;
  }
  TestPausePoint("swap");
  auto renamed = io_->RenameNoReplace(temporary, final_location);
  if (!renamed.ok()) {
    DeleteBestEffort(*io_, temporary, "unreferenced metadata file", "");
    if (KindOf(renamed) == ErrorKind::kAlreadyExists && base.metadata_location.empty()) {
      // Two creates raced for v1: the loser's table already exists.
      return MakeError(ErrorKind::kAlreadyExists,
                       "table '" + id.ToString() + "' already exists");
    }
    if (KindOf(renamed) == ErrorKind::kAlreadyExists) {
      return MakeError(ErrorKind::kCommitFailed,
                       "table '" + id.ToString() + "': version " + std::to_string(next) +
                           " was committed by another writer first");
    }
    return WithContext(renamed, "table '" + id.ToString() + "'");
  }
  // The rename is the commit; it is durable once the metadata folder (and any folder
  // created above it, on a create) is synced. Until then the commit is not acknowledged.
  // A failed sync leaves a commit that is visible but may not survive a power cut: its
  // files must stay, so the outcome is unknown rather than failed.
  if (auto synced = SyncNewFiles(*io_, {final_location}); !synced.ok()) {
    return MakeError(ErrorKind::kCommitStateUnknown,
                     "table '" + id.ToString() + "': committed " + final_location +
                         " but could not make it durable: " + synced.message());
  }
  // The hint only speeds up loading (readers follow newer versions anyway), and a
  // failure to replace it is not the commit's.
  const std::string hint_temporary =
      metadata_directory + Uuid::Random(env()).ToString() + "-version-hint.temp";
  // As HadoopTableOperations.renameToFinal: the old hint is deleted, the new one renamed
  // into its place (a reader in between lists the versions).
  const std::string hint_location = metadata_directory + kVersionHint;
  auto hint = io_->WriteAll(hint_temporary, std::to_string(next));
  if (hint.ok()) {
    auto deleted = io_->Delete(hint_location);
    if (!deleted.ok() && KindOf(deleted) != ErrorKind::kNotFound) hint = deleted;
  }
  if (hint.ok()) hint = io_->RenameNoReplace(hint_temporary, hint_location);
  if (!hint.ok()) {
    DeleteBestEffort(*io_, hint_temporary, "temporary version hint", "");
    // AlreadyExists: a concurrent committer put its own hint in place, which is as good.
    if (KindOf(hint) != ErrorKind::kAlreadyExists) {
      Log(LogLevel::kWarning, "committed " + final_location + " but could not update " +
                                  hint_location + ": " + hint.message());
    }
  }
  return TableState{final_location, std::make_shared<const TableMetadata>(updated)};
}

arrow::Status FilesystemCatalog::RenameTable(const TableIdentifier& from,
                                             const TableIdentifier&) {
  return MakeError(ErrorKind::kNotSupported,
                   "the filesystem catalog cannot rename tables (table '" +
                       from.ToString() + "' lives in a directory named after it)");
}

arrow::Status FilesystemCatalog::DropTable(const TableIdentifier& id) {
  for (const auto& level : id.ns) ARROW_RETURN_NOT_OK(CheckLevel(level));
  ARROW_RETURN_NOT_OK(CheckLevel(id.name));
  const std::string directory = TableDirectory(id);
  if (!IsTableDirectory(directory)) return NoSuchTable(id);
  std::error_code error;
  fs::remove_all(directory, error);
  if (error) {
    return arrow::Status::IOError("cannot remove table directory ", directory, ": ",
                                  error.message());
  }
  return arrow::Status::OK();
}

arrow::Result<std::string> FilesystemCatalog::DefaultTableLocation(
    const TableIdentifier& id) {
  for (const auto& level : id.ns) ARROW_RETURN_NOT_OK(CheckLevel(level));
  ARROW_RETURN_NOT_OK(CheckLevel(id.name));
  return TableDirectory(id);
}

}  // namespace floe::iceberg
