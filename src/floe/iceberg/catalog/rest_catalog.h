// The REST catalog client: the Iceberg REST catalog protocol
// (open-api/rest-catalog-open-api in apache/iceberg) over HTTP, as iceberg-java's
// RESTCatalog speaks it. The server owns the metadata files: a commit sends the changes
// from the base version as `updates`, guarded by `requirements` (assert-table-uuid,
// assert-ref-snapshot-id, ...), and the server applies them atomically or answers 409
// when the table moved on.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "floe/iceberg/catalog/catalog.h"

namespace floe::iceberg {

/// The body of a table commit (`{"requirements": [...], "updates": [...]}`) that turns
/// `base` into `updated`, with the requirements iceberg-java's UpdateRequirements adds
/// for those updates. Supports what floe's operations change: snapshots added and
/// removed, branches and tags set and removed, schemas, specs and sort orders added and
/// made default, properties set and removed, location and format-version upgrades. Any
/// other difference (e.g. statistics files changed, a schema rewritten in place) gives
/// NotSupported naming the field, so nothing is committed that the server would not
/// reproduce.
arrow::Result<std::string> RestCommitRequestJson(const TableMetadata& base,
                                                 const TableMetadata& updated);

/// A client of one REST catalog server.
///
/// `options.uri` is the server's base URL (http:// or https://, e.g.
/// http://127.0.0.1:8181/). `options.warehouse`, when set, is sent to /v1/config. Catalog
/// properties (`options.properties`):
///   token            a bearer token sent with every request;
///   credential       `client_id:client_secret` (or a bare secret), exchanged for a token
///                    at oauth2-server-uri (default <uri>/v1/oauth/tokens) with the
///                    OAuth2 client-credentials grant; scope (default "catalog");
///   header.NAME      an extra HTTP header;
///   rest.timeout-ms  the limit for one request (default 120000);
///   and the FileIO's (s3.endpoint, s3.path-style-access, ...: see s3_file_io.h).
/// The server's /v1/config answer supplies `prefix` and `namespace-separator`. Reads
/// answered 429 or 503 are retried up to 5 times with exponential backoff (0.1 s to 1.6
/// s); writes are not. Tokens and secrets never appear in errors or logs.
class RestCatalog final : public Catalog {
 public:
  /// Connects: fetches a token when a credential is configured, then /v1/config.
  static arrow::Result<std::unique_ptr<Catalog>> Open(const CatalogOptions& options);
  ~RestCatalog() override;

  const std::string& name() const override;
  /// The FileIO for the warehouse (local paths and file:// URIs, or the storage of an
  /// s3:// warehouse), configured by the catalog's properties.
  std::shared_ptr<FileIO> io() const override;
  /// The FileIO for one table's files: the catalog's properties overlaid with the
  /// `config` of the server's last load-table (or create-table) answer for it, and then
  /// with the `storage-credentials` entry whose prefix is the longest that the table's
  /// location starts with, as iceberg-java's RESTSessionCatalog merges them. So the
  /// credentials the server vends for a table are used for that table only.
  arrow::Result<std::shared_ptr<FileIO>> TableIO(const TableIdentifier& id,
                                                 const TableState& state) override;
  bool VendsTableStorage() const override { return true; }
  std::string WarehouseLocation() const override;

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
  /// Sends the current schema, default spec and sort order, location and properties
  /// (with format-version); the server writes the first metadata file, and its version
  /// is returned.
  arrow::Result<TableState> CreateTable(const TableIdentifier& id,
                                        const TableMetadata& metadata) override;
  /// Sends RestCommitRequestJson(base, updated). 409 gives CommitFailed; a 5xx answer or
  /// a connection lost after the request went out gives CommitStateUnknown.
  arrow::Result<TableState> CommitTable(const TableIdentifier& id, const TableState& base,
                                        const TableMetadata& updated) override;
  arrow::Status RenameTable(const TableIdentifier& from,
                            const TableIdentifier& to) override;
  /// Drops without purging: the files stay.
  arrow::Status DropTable(const TableIdentifier& id) override;
  /// The namespace's `location` property plus the table name, else the configured
  /// warehouse's `<warehouse>/<levels>/<table>`.
  arrow::Result<std::string> DefaultTableLocation(const TableIdentifier& id) override;

  struct Impl;
  RestCatalog(std::unique_ptr<Impl> impl, Env* env);

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace floe::iceberg
