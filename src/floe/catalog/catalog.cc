#include "floe/catalog/catalog.h"

#include <charconv>
#include <cstdio>

#include "floe/catalog/filesystem_catalog.h"
#include "floe/catalog/rest_catalog.h"
#include "floe/catalog/sql_catalog.h"
#include "floe/util/error.h"
#include "floe/util/uuid.h"

namespace floe {
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

std::string NextMetadataFileName(const std::string& base_location) {
  int version = -1;
  if (!base_location.empty()) {
    size_t slash = base_location.rfind('/');
    std::string_view file = std::string_view(base_location)
                                .substr(slash == std::string::npos ? 0 : slash + 1);
    size_t dash = file.find('-');
    if (dash != std::string_view::npos) {
      int parsed = 0;
      auto [end, error] = std::from_chars(file.data(), file.data() + dash, parsed);
      if (error == std::errc() && end == file.data() + dash) version = parsed;
    }
  }
  char prefix[16];
  std::snprintf(prefix, sizeof(prefix), "%05d", version + 1);
  return std::string(prefix) + "-" + Uuid::Random().ToString() + ".metadata.json";
}

std::string RedactUri(std::string_view uri) {
  std::string text(uri);
  // user:password@host -> user:***@host
  size_t scheme = text.find("://");
  if (scheme != std::string::npos) {
    size_t start = scheme + 3;
    size_t at = text.find('@', start);
    size_t slash = text.find('/', start);
    if (at != std::string::npos && (slash == std::string::npos || at < slash)) {
      size_t colon = text.find(':', start);
      if (colon != std::string::npos && colon < at) {
        text.replace(colon + 1, at - colon - 1, "***");
      }
    }
  }
  // ?password=...&secret=...&token=...
  for (const char* key : {"password=", "secret=", "token=", "credential=", "key="}) {
    size_t position = 0;
    while ((position = text.find(key, position)) != std::string::npos) {
      size_t value = position + std::string_view(key).size();
      size_t end = text.find('&', value);
      text.replace(value, (end == std::string::npos ? text.size() : end) - value, "***");
      position = value + 3;
    }
  }
  return text;
}

arrow::Result<std::unique_ptr<Catalog>> Catalog::Open(const CatalogOptions& options) {
  std::string_view uri = options.uri;
  if (uri.substr(0, 7) == "sqlite:" || uri.substr(0, 12) == "jdbc:sqlite:") {
    return SqlCatalog::OpenSqlite(options);
  }
  if (uri == "memory" || uri == "memory:") {
    return SqlCatalog::OpenMemory(options);
  }
  if (uri == "hadoop" || uri.substr(0, 7) == "hadoop:") {
    return FilesystemCatalog::Open(options);
  }
  if (uri.substr(0, 7) == "http://" || uri.substr(0, 8) == "https://") {
    return RestCatalog::Open(options);
  }
  for (std::string_view prefix :
       {"postgresql:", "postgresql+", "postgres:", "jdbc:postgresql:"}) {
    if (uri.substr(0, prefix.size()) == prefix) return SqlCatalog::OpenPostgres(options);
  }
  return MakeError(ErrorKind::kInvalidInput,
                   "catalog URI '" + RedactUri(uri) +
                       "' is not supported (expected sqlite:////absolute/path.db, "
                       "postgresql://user@host:port/database, hadoop:///warehouse/dir or "
                       "http(s)://rest-server)");
}

}  // namespace floe
