#include "floe/iceberg/catalog/rest_catalog.h"

#include <curl/curl.h>

#include <algorithm>
#include <cstdlib>
#include <set>
#include <utility>

#include "floe/iceberg/spec/json_internal.h"
#include "floe/util/error.h"
#include "floe/util/log.h"
#include "floe/util/mutex.h"
#include "floe/util/number_text.h"
#include "floe/util/secrets.h"
#include "floe/util/test_hooks_internal.h"

namespace floe::iceberg {
namespace {

using json_internal::Json;

constexpr size_t kMaxResponseBytes = size_t{256} << 20;
constexpr int64_t kDefaultTimeoutMs = 120000;
constexpr int64_t kConnectTimeoutMs = 10000;
constexpr int kReadRetries = 5;        // after the first attempt
constexpr int64_t kRetryBaseMs = 100;  // doubled per retry: 0.1 s to 1.6 s

// RFC 3986 percent-encoding of everything but the unreserved characters, so a namespace
// level or table name is one path segment whatever it holds.
std::string PercentEncode(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
        c == '-' || c == '.' || c == '_' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

// application/x-www-form-urlencoded, for the OAuth2 token request.
std::string FormEncode(const std::vector<std::pair<std::string, std::string>>& fields) {
  std::string out;
  for (const auto& [key, value] : fields) {
    if (!out.empty()) out += '&';
    out += PercentEncode(key) + "=" + PercentEncode(value);
  }
  return out;
}

Json NamespaceJson(const Namespace& ns) {
  Json levels = Json::array();
  for (const auto& level : ns) levels.push_back(level);
  return levels;
}

arrow::Result<Namespace> NamespaceFromJson(const Json& json, std::string_view what) {
  if (!json.is_array())
    return MakeError(ErrorKind::kInvalidMetadata,
                     std::string(what) + ": not a namespace");
  Namespace ns;
  for (const auto& level : json) {
    if (!level.is_string())
      return MakeError(ErrorKind::kInvalidMetadata,
                       std::string(what) + ": namespace level is not a string");
    ns.push_back(level.get<std::string>());
  }
  return ns;
}

struct HttpResponse {
  long status = 0;
  std::string body;
};

size_t AppendBody(char* data, size_t size, size_t count, void* user) {
  auto* body = static_cast<std::string*>(user);
  size_t bytes = size * count;
  if (body->size() + bytes > kMaxResponseBytes) return 0;  // aborts the transfer
  body->append(data, bytes);
  return bytes;
}

void GlobalInitOnce() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

// The `error` object of an ErrorResponse: its type and message, when the body has one.
std::pair<std::string, std::string> ErrorTypeAndMessage(const std::string& body) {
  auto parsed = json_internal::Parse(body, "REST error response");
  if (!parsed.ok() || !parsed->is_object()) return {"", ""};
  auto error = parsed->find("error");
  if (error == parsed->end() || !error->is_object()) return {"", ""};
  std::string type, message;
  if (auto t = error->find("type"); t != error->end() && t->is_string())
    type = t->get<std::string>();
  if (auto m = error->find("message"); m != error->end() && m->is_string())
    message = m->get<std::string>();
  return {type, message};
}

std::string TableMetadataRequirementsError(std::string_view field) {
  return "the REST catalog client cannot express a change of '" + std::string(field) +
         "' as a table update";
}

// ----------------------------------------------------------------------------------------
// Commit requests.

// What a commit asks of the server: the requirements on the base version and the updates
// that make the new version, in the order they apply.
struct CommitRequest {
  Json requirements = Json::array();
  Json updates = Json::array();
};

// Schemas, specs and sort orders: new ones are added; existing ones must be unchanged.
// Appends the ids of the added ones to `added`, in the new version's order.
template <typename Items, typename IdOf, typename ToJson>
arrow::Status DiffById(const Items& base_items, const Items& updated_items, IdOf id_of,
                       ToJson to_json, std::string_view field, std::vector<int>* added) {
  std::map<int, std::string> before;
  for (const auto& item : base_items) before[id_of(*item)] = to_json(*item).dump();
  std::set<int> after;
  for (const auto& item : updated_items) {
    int id = id_of(*item);
    after.insert(id);
    auto found = before.find(id);
    if (found == before.end()) {
      added->push_back(id);
    } else if (found->second != to_json(*item).dump()) {
      return MakeError(ErrorKind::kNotSupported, TableMetadataRequirementsError(field));
    }
  }
  for (const auto& [id, text] : before) {
    if (!after.count(id))
      return MakeError(ErrorKind::kNotSupported, TableMetadataRequirementsError(field));
  }
  return arrow::Status::OK();
}

// The default is set to -1 ("the one just added") when it is the last one added, since
// the server assigns ids itself.
int DefaultIdToSend(const std::vector<int>& added, int id) {
  return !added.empty() && added.back() == id ? -1 : id;
}

arrow::Status AddSchemaChanges(const TableMetadata& base, const TableMetadata& updated,
                               CommitRequest* request) {
  std::vector<int> added;
  ARROW_RETURN_NOT_OK(DiffById(
      base.schemas, updated.schemas, [](const Schema& s) { return s.schema_id(); },
      [](const Schema& s) { return json_internal::SchemaToJsonValue(s); }, "schemas",
      &added));
  if (!added.empty()) {
    request->requirements.push_back({{"type", "assert-last-assigned-field-id"},
                                     {"last-assigned-field-id", base.last_column_id}});
  }
  for (int id : added) {
    request->updates.push_back(
        {{"action", "add-schema"},
         {"schema", json_internal::SchemaToJsonValue(*updated.SchemaById(id))},
         {"last-column-id", updated.last_column_id}});
  }
  if (updated.current_schema_id != base.current_schema_id) {
    request->requirements.push_back({{"type", "assert-current-schema-id"},
                                     {"current-schema-id", base.current_schema_id}});
    request->updates.push_back(
        {{"action", "set-current-schema"},
         {"schema-id", DefaultIdToSend(added, updated.current_schema_id)}});
  }
  return arrow::Status::OK();
}

arrow::Status AddSpecChanges(const TableMetadata& base, const TableMetadata& updated,
                             CommitRequest* request) {
  std::vector<int> added;
  ARROW_RETURN_NOT_OK(DiffById(
      base.specs, updated.specs, [](const PartitionSpec& s) { return s.spec_id(); },
      [](const PartitionSpec& s) { return json_internal::PartitionSpecToJsonValue(s); },
      "partition-specs", &added));
  if (!added.empty()) {
    request->requirements.push_back(
        {{"type", "assert-last-assigned-partition-id"},
         {"last-assigned-partition-id", base.last_partition_id}});
  }
  for (int id : added) {
    request->updates.push_back(
        {{"action", "add-spec"},
         {"spec", json_internal::PartitionSpecToJsonValue(*updated.SpecById(id))}});
  }
  if (updated.default_spec_id != base.default_spec_id) {
    request->requirements.push_back(
        {{"type", "assert-default-spec-id"}, {"default-spec-id", base.default_spec_id}});
    request->updates.push_back(
        {{"action", "set-default-spec"},
         {"spec-id", DefaultIdToSend(added, updated.default_spec_id)}});
  }
  return arrow::Status::OK();
}

arrow::Status AddSortOrderChanges(const TableMetadata& base, const TableMetadata& updated,
                                  CommitRequest* request) {
  std::vector<int> added;
  ARROW_RETURN_NOT_OK(DiffById(
      base.sort_orders, updated.sort_orders,
      [](const SortOrder& o) { return o.order_id; },
      [](const SortOrder& o) { return json_internal::SortOrderToJsonValue(o); },
      "sort-orders", &added));
  for (int id : added) {
    for (const auto& order : updated.sort_orders) {
      if (order->order_id != id) continue;
      request->updates.push_back(
          {{"action", "add-sort-order"},
           {"sort-order", json_internal::SortOrderToJsonValue(*order)}});
    }
  }
  if (updated.default_sort_order_id != base.default_sort_order_id) {
    request->requirements.push_back(
        {{"type", "assert-default-sort-order-id"},
         {"default-sort-order-id", base.default_sort_order_id}});
    request->updates.push_back(
        {{"action", "set-default-sort-order"},
         {"sort-order-id", DefaultIdToSend(added, updated.default_sort_order_id)}});
  }
  return arrow::Status::OK();
}

void AddPropertyChanges(const TableMetadata& base, const TableMetadata& updated,
                        CommitRequest* request) {
  Json set = Json::object();
  Json removed = Json::array();
  for (const auto& [key, value] : updated.properties) {
    auto found = base.properties.find(key);
    if (found == base.properties.end() || found->second != value) set[key] = value;
  }
  for (const auto& [key, value] : base.properties) {
    if (!updated.properties.count(key)) removed.push_back(key);
  }
  if (!set.empty())
    request->updates.push_back({{"action", "set-properties"}, {"updates", set}});
  if (!removed.empty()) {
    request->updates.push_back({{"action", "remove-properties"}, {"removals", removed}});
  }
}

// Snapshots: adds the new ones in the order the new version lists them; gives the ids of
// the removed ones.
arrow::Result<Json> AddSnapshotChanges(const TableMetadata& base,
                                       const TableMetadata& updated,
                                       CommitRequest* request) {
  std::map<int64_t, std::string> base_snapshots;
  for (const auto& snapshot : base.snapshots) {
    base_snapshots[snapshot->snapshot_id] =
        json_internal::SnapshotToJsonValue(*snapshot).dump();
  }
  std::set<int64_t> kept;
  for (const auto& snapshot : updated.snapshots) {
    auto found = base_snapshots.find(snapshot->snapshot_id);
    if (found == base_snapshots.end()) {
      request->updates.push_back(
          {{"action", "add-snapshot"},
           {"snapshot", json_internal::SnapshotToJsonValue(*snapshot)}});
    } else if (found->second != json_internal::SnapshotToJsonValue(*snapshot).dump()) {
      return MakeError(ErrorKind::kNotSupported,
                       TableMetadataRequirementsError("snapshots") + " (snapshot " +
                           std::to_string(snapshot->snapshot_id) + " changed)");
    } else {
      kept.insert(snapshot->snapshot_id);
    }
  }
  Json removed = Json::array();
  for (const auto& [id, text] : base_snapshots) {
    if (!kept.count(id)) removed.push_back(id);
  }
  return removed;
}

// Branches and tags: main follows current-snapshot-id in tables without refs (v1).
void AddRefChanges(const TableMetadata& base, const TableMetadata& updated,
                   CommitRequest* request) {
  auto refs_of = [](const TableMetadata& metadata) {
    std::map<std::string, SnapshotRef> refs = metadata.refs;
    if (!refs.count(kMainBranch) && metadata.current_snapshot_id) {
      refs[kMainBranch] = SnapshotRef{*metadata.current_snapshot_id, true};
    }
    return refs;
  };
  auto base_refs = refs_of(base);
  auto updated_refs = refs_of(updated);
  auto assert_ref = [&](const std::string& name) {
    auto found = base_refs.find(name);
    Json requirement = {{"type", "assert-ref-snapshot-id"}, {"ref", name}};
    requirement["snapshot-id"] =
        found == base_refs.end() ? Json(nullptr) : Json(found->second.snapshot_id);
    request->requirements.push_back(requirement);
  };
  for (const auto& [name, ref] : base_refs) {
    if (updated_refs.count(name)) continue;
    assert_ref(name);
    request->updates.push_back({{"action", "remove-snapshot-ref"}, {"ref-name", name}});
  }
  for (const auto& [name, ref] : updated_refs) {
    auto found = base_refs.find(name);
    if (found != base_refs.end() && found->second == ref) continue;
    assert_ref(name);
    Json update = {{"action", "set-snapshot-ref"}, {"ref-name", name}};
    const Json ref_json = json_internal::SnapshotRefToJsonValue(ref);
    for (const auto& [key, value] : ref_json.items()) {
      update[key] = value;
    }
    request->updates.push_back(update);
  }
}

}  // namespace

arrow::Result<std::string> RestCommitRequestJson(const TableMetadata& base,
                                                 const TableMetadata& updated) {
  CommitRequest request;
  request.requirements.push_back(
      {{"type", "assert-table-uuid"}, {"uuid", base.table_uuid}});
  if (updated.table_uuid != base.table_uuid) {
    return MakeError(ErrorKind::kNotSupported,
                     TableMetadataRequirementsError("table-uuid"));
  }
  if (updated.format_version < base.format_version) {
    return MakeError(ErrorKind::kNotSupported, "a table's format version cannot go down");
  }
  if (updated.format_version > base.format_version) {
    request.updates.push_back({{"action", "upgrade-format-version"},
                               {"format-version", updated.format_version}});
  }
  if (updated.encryption_keys_json != base.encryption_keys_json) {
    return MakeError(ErrorKind::kNotSupported,
                     TableMetadataRequirementsError("encryption-keys"));
  }
  ARROW_RETURN_NOT_OK(AddSchemaChanges(base, updated, &request));
  ARROW_RETURN_NOT_OK(AddSpecChanges(base, updated, &request));
  ARROW_RETURN_NOT_OK(AddSortOrderChanges(base, updated, &request));
  if (updated.location != base.location) {
    request.updates.push_back(
        {{"action", "set-location"}, {"location", updated.location}});
  }
  AddPropertyChanges(base, updated, &request);
  ARROW_ASSIGN_OR_RAISE(Json removed_snapshots,
                        AddSnapshotChanges(base, updated, &request));
  if (removed_snapshots.empty() &&
      (updated.statistics_json != base.statistics_json ||
       updated.partition_statistics_json != base.partition_statistics_json)) {
    return MakeError(ErrorKind::kNotSupported,
                     TableMetadataRequirementsError("statistics"));
  }
  AddRefChanges(base, updated, &request);
  if (!removed_snapshots.empty()) {
    request.updates.push_back(
        {{"action", "remove-snapshots"}, {"snapshot-ids", removed_snapshots}});
  }
  Json body = Json::object();
  body["requirements"] = std::move(request.requirements);
  body["updates"] = std::move(request.updates);
  return body.dump();
}

// ----------------------------------------------------------------------------------------
// The client.

struct RestCatalog::Impl {
  std::string name;
  std::string base_url;   // no trailing slash, e.g. http://127.0.0.1:8181
  std::string redacted;   // base_url for messages
  std::string prefix;     // "/v1/" or "/v1/<prefix>/"
  std::string separator;  // the encoded namespace separator, e.g. %1F
  std::string warehouse;  // from the config answer or the options
  std::string token;      // bearer token; never printed
  std::vector<std::string> extra_headers;
  int64_t timeout_ms = kDefaultTimeoutMs;
  std::shared_ptr<FileIO> io;
  Env* env = Env::Default();
  CatalogOptions options;  // properties and io_factory, for TableIO

  // The storage configuration the server's last load-table (or create-table) answer
  // vended for each table's files, by "ns.table".
  Mutex vended_mutex;
  std::map<std::string, std::map<std::string, std::string>> vended
      FLOE_GUARDED_BY(vended_mutex);

  Mutex pool_mutex;
  // Idle handles: they keep their connections alive.
  std::vector<CURL*> pool FLOE_GUARDED_BY(pool_mutex);

  ~Impl() {
    for (CURL* handle : pool) curl_easy_cleanup(handle);
  }

  CURL* Acquire() {
    {
      MutexLock lock(&pool_mutex);
      if (!pool.empty()) {
        CURL* handle = pool.back();
        pool.pop_back();
        curl_easy_reset(handle);
        return handle;
      }
    }
    return curl_easy_init();
  }
  void Release(CURL* handle) {
    MutexLock lock(&pool_mutex);
    pool.push_back(handle);
  }

  std::string NamespacePath(const Namespace& ns) const {
    std::string out;
    for (size_t i = 0; i < ns.size(); ++i) {
      if (i) out += separator;
      out += PercentEncode(ns[i]);
    }
    return out;
  }
  std::string TablePath(const TableIdentifier& id) const {
    return prefix + "namespaces/" + NamespacePath(id.ns) + "/tables/" +
           PercentEncode(id.name);
  }

  // One HTTP exchange. A transport failure gives an IOError; `*maybe_sent` tells whether
  // the request could have reached the server (false only when no connection was made).
  arrow::Result<HttpResponse> Send(const std::string& method, const std::string& url,
                                   const std::string& body,
                                   const std::string& content_type,
                                   bool* maybe_sent = nullptr) {
    if (maybe_sent) *maybe_sent = false;
    CURL* handle = Acquire();
    if (!handle) return arrow::Status::IOError("could not create an HTTP handle");
    HttpResponse response;
    curl_slist* headers = nullptr;
    headers = curl_slist_append(headers, "Accept: application/json");
    std::string user_agent = std::string("User-Agent: floe/") + FLOE_VERSION;
    headers = curl_slist_append(headers, user_agent.c_str());
    if (!content_type.empty()) {
      headers = curl_slist_append(headers, ("Content-Type: " + content_type).c_str());
    }
    if (!token.empty()) {
      headers = curl_slist_append(headers, ("Authorization: Bearer " + token).c_str());
    }
    for (const auto& header : extra_headers)
      headers = curl_slist_append(headers, header.c_str());
    curl_easy_setopt(handle, CURLOPT_URL, url.c_str());
    curl_easy_setopt(handle, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(handle, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(handle, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(handle, CURLOPT_ACCEPT_ENCODING, "");
    curl_easy_setopt(handle, CURLOPT_TIMEOUT_MS, static_cast<long>(timeout_ms));
    curl_easy_setopt(handle, CURLOPT_CONNECTTIMEOUT_MS,
                     static_cast<long>(kConnectTimeoutMs));
    curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, AppendBody);
    curl_easy_setopt(handle, CURLOPT_WRITEDATA, &response.body);
    if (method == "GET") {
      curl_easy_setopt(handle, CURLOPT_HTTPGET, 1L);
    } else if (method == "HEAD") {
      curl_easy_setopt(handle, CURLOPT_NOBODY, 1L);
    } else {
      curl_easy_setopt(handle, CURLOPT_CUSTOMREQUEST, method.c_str());
      if (method == "POST" || !body.empty()) {
        curl_easy_setopt(handle, CURLOPT_POSTFIELDS, body.c_str());
        curl_easy_setopt(handle, CURLOPT_POSTFIELDSIZE_LARGE,
                         static_cast<curl_off_t>(body.size()));
      }
    }
    CURLcode code = curl_easy_perform(handle);
    curl_slist_free_all(headers);
    curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, &response.status);
    Release(handle);
    if (code != CURLE_OK) {
      bool unsent = code == CURLE_COULDNT_CONNECT || code == CURLE_COULDNT_RESOLVE_HOST ||
                    code == CURLE_COULDNT_RESOLVE_PROXY ||
                    code == CURLE_UNSUPPORTED_PROTOCOL || code == CURLE_URL_MALFORMAT;
      if (maybe_sent) *maybe_sent = !unsent;
      std::string reason = code == CURLE_WRITE_ERROR
                               ? "the response is larger than 256 MiB"
                               : std::string(curl_easy_strerror(code));
      return arrow::Status::IOError("REST catalog " + redacted + ": " + method + " " +
                                    PathOf(url) + " failed: " + reason);
    }
    if (maybe_sent) *maybe_sent = true;
    return response;
  }

  std::string PathOf(const std::string& url) const {
    return url.rfind(base_url, 0) == 0 ? url.substr(base_url.size()) : std::string("?");
  }

  // The status for a non-2xx answer: the server's error type picks the kind; `missing`
  // is the kind for a 404 without a recognised type.
  arrow::Status ErrorFor(const std::string& method, const std::string& url,
                         const HttpResponse& response, ErrorKind missing) const {
    auto [type, message] = ErrorTypeAndMessage(response.body);
    std::string text = "REST catalog " + redacted + ": " + method + " " + PathOf(url) +
                       " answered HTTP " + std::to_string(response.status);
    if (!type.empty()) text += " " + type;
    if (!message.empty()) text += ": " + message;
    static const std::map<std::string, ErrorKind> kByType = {
        {"NoSuchTableException", ErrorKind::kNoSuchTable},
        {"NoSuchNamespaceException", ErrorKind::kNoSuchNamespace},
        {"AlreadyExistsException", ErrorKind::kAlreadyExists},
        {"NamespaceNotEmptyException", ErrorKind::kNamespaceNotEmpty},
        {"CommitFailedException", ErrorKind::kCommitFailed},
        {"ValidationException", ErrorKind::kValidationFailed}};
    static const std::map<long, ErrorKind> kByStatus = {{400, ErrorKind::kInvalidInput},
                                                        {401, ErrorKind::kInvalidInput},
                                                        {403, ErrorKind::kInvalidInput},
                                                        {406, ErrorKind::kInvalidInput},
                                                        {409, ErrorKind::kAlreadyExists}};
    ErrorKind kind = ErrorKind::kUnknown;
    if (auto found = kByType.find(type); found != kByType.end()) {
      kind = found->second;
    } else if (response.status == 404) {
      kind = missing;
    } else if (auto by_status = kByStatus.find(response.status);
               by_status != kByStatus.end()) {
      kind = by_status->second;
    }
    if (kind == ErrorKind::kUnknown) return arrow::Status::IOError(text);
    return MakeError(kind, text);
  }

  // A request whose answer must be 2xx; the parsed JSON body (null for 204 and HEAD).
  arrow::Result<Json> Call(const std::string& method, const std::string& path,
                           const Json* body, ErrorKind missing) {
    std::string url = base_url + path;
    // Reads are retried when the server answers that it is busy (429, 503), with
    // exponential backoff, as iceberg-java's HTTP client does; writes never are, and
    // neither is a refused connection.
    const bool idempotent = method == "GET" || method == "HEAD";
    HttpResponse response;
    for (int attempt = 0;; ++attempt) {
      auto sent = Send(method, url, body ? body->dump() : std::string(),
                       body ? "application/json" : "");
      bool busy = sent.ok() && (sent->status == 429 || sent->status == 503);
      if (!idempotent || !busy || attempt >= kReadRetries) {
        ARROW_ASSIGN_OR_RAISE(response, std::move(sent));
        break;
      }
      env->SleepForMicros(int64_t{1000} * (kRetryBaseMs << attempt));
    }
    if (response.status < 200 || response.status > 299) {
      return ErrorFor(method, url, response, missing);
    }
    if (response.body.empty()) return Json(nullptr);
    return json_internal::Parse(response.body,
                                "REST catalog answer to " + method + " " + path);
  }

  // Follows next-page-token through every page of a list, collecting `member`.
  arrow::Result<std::vector<Json>> ListAll(const std::string& path,
                                           const std::string& query, const char* member,
                                           ErrorKind missing) {
    std::vector<Json> items;
    std::string page_token;
    for (int page = 0; page < 100000; ++page) {
      std::string url = path;
      std::string params = query;
      if (!page_token.empty()) {
        params += (params.empty() ? "" : "&") + std::string("pageToken=") +
                  PercentEncode(page_token);
      }
      if (!params.empty()) url += "?" + params;
      ARROW_ASSIGN_OR_RAISE(auto answer, Call("GET", url, nullptr, missing));
      auto list = answer.find(member);
      if (!answer.is_object() || list == answer.end() || !list->is_array()) {
        return MakeError(ErrorKind::kInvalidMetadata, "REST catalog " + redacted + ": " +
                                                          path + " answer has no '" +
                                                          member + "' list");
      }
      for (auto& item : *list) items.push_back(item);
      auto next = answer.find("next-page-token");
      if (next == answer.end() || !next->is_string() || next->get<std::string>().empty())
        return items;
      page_token = next->get<std::string>();
    }
    return MakeError(ErrorKind::kInvalidMetadata,
                     "REST catalog " + redacted + ": " + path + " never stops paging");
  }

  // The storage configuration a load-table answer carries for the table at `location`:
  // its `config`, then the `storage-credentials` entry with the longest prefix of
  // `location` (iceberg-java: RESTSessionCatalog, S3FileIO's credential by prefix).
  static std::map<std::string, std::string> VendedConfig(const Json& answer,
                                                         const std::string& location) {
    std::map<std::string, std::string> config;
    auto strings = [&](const Json& object) {
      if (!object.is_object()) return;
      for (const auto& [key, value] : object.items()) {
        if (value.is_string()) config[key] = value.get<std::string>();
      }
    };
    if (auto found = answer.find("config"); found != answer.end()) strings(*found);
    const Json* best = nullptr;
    size_t best_length = 0;
    if (auto found = answer.find("storage-credentials");
        found != answer.end() && found->is_array()) {
      for (const auto& credential : *found) {
        if (!credential.is_object()) continue;
        auto prefix = credential.find("prefix");
        if (prefix == credential.end() || !prefix->is_string()) continue;
        const auto& text = prefix->get_ref<const std::string&>();
        if (location.compare(0, text.size(), text) == 0 &&
            (best == nullptr || text.size() > best_length)) {
          best = &credential;
          best_length = text.size();
        }
      }
    }
    if (best != nullptr) {
      if (auto found = best->find("config"); found != best->end()) strings(*found);
    }
    return config;
  }

  arrow::Result<TableState> TableStateFrom(const Json& answer, const std::string& what,
                                           const TableIdentifier* id = nullptr) {
    if (!answer.is_object())
      return MakeError(ErrorKind::kInvalidMetadata, what + ": not a JSON object");
    TableState state;
    auto location = answer.find("metadata-location");
    if (location != answer.end() && location->is_string())
      state.metadata_location = location->get<std::string>();
    auto metadata = answer.find("metadata");
    if (metadata == answer.end() || !metadata->is_object())
      return MakeError(ErrorKind::kInvalidMetadata, what + ": no table metadata");
    auto parsed = TableMetadataFromJson(metadata->dump());
    if (!parsed.ok()) return WithContext(parsed.status(), what);
    state.metadata = *parsed;
    if (id != nullptr) {
      MutexLock lock(&vended_mutex);
      vended[id->ToString()] = VendedConfig(answer, state.metadata->location);
    }
    return state;
  }
};

namespace {

std::string TrimTrailingSlashes(std::string text) {
  while (!text.empty() && text.back() == '/') text.pop_back();
  return text;
}

std::string Property(const std::map<std::string, std::string>& properties,
                     const std::string& key, const std::string& fallback = "") {
  auto found = properties.find(key);
  return found == properties.end() ? fallback : found->second;
}

// Applies the client's request properties to `impl`: rest.timeout-ms and header.NAME.
arrow::Status ApplyRequestProperties(const std::map<std::string, std::string>& props,
                                     RestCatalog::Impl* impl) {
  std::string timeout = Property(props, "rest.timeout-ms");
  if (!timeout.empty()) {
    const std::optional<int64_t> value = ParseJavaLong(timeout);
    if (!value || *value <= 0) {
      return MakeError(ErrorKind::kInvalidInput,
                       "catalog property rest.timeout-ms must be a positive integer");
    }
    impl->timeout_ms = *value;
  }
  for (const auto& [key, value] : props) {
    if (key.rfind("header.", 0) == 0 && key.size() > 7) {
      if (value.find_first_of("\r\n") != std::string::npos) {
        return MakeError(ErrorKind::kInvalidInput,
                         "catalog property " + key + " holds a line break");
      }
      impl->extra_headers.push_back(key.substr(7) + ": " + value);
    }
  }
  return arrow::Status::OK();
}

// The token the OAuth2 client-credentials grant gives for `credential`.
arrow::Result<std::string> RequestOAuth2Token(
    const std::string& credential, const std::map<std::string, std::string>& props,
    RestCatalog::Impl* impl) {
  size_t colon = credential.find(':');
  std::string client_id = colon == std::string::npos ? "" : credential.substr(0, colon);
  std::string secret =
      colon == std::string::npos ? credential : credential.substr(colon + 1);
  std::vector<std::pair<std::string, std::string>> form = {
      {"grant_type", "client_credentials"}};
  if (!client_id.empty()) form.emplace_back("client_id", client_id);
  form.emplace_back("client_secret", secret);
  form.emplace_back("scope", Property(props, "scope", "catalog"));
  std::string endpoint =
      Property(props, "oauth2-server-uri", impl->base_url + "/v1/oauth/tokens");
  auto response =
      impl->Send("POST", endpoint, FormEncode(form), "application/x-www-form-urlencoded");
  if (!response.ok()) {
    return MakeError(ErrorKind::kInvalidInput,
                     "REST catalog " + impl->redacted + ": the OAuth2 token request to " +
                         RedactUri(endpoint) + " failed (" +
                         std::string(response.status().message()) + ")");
  }
  if (response->status != 200) {
    auto [type, message] = ErrorTypeAndMessage(response->body);
    return MakeError(ErrorKind::kInvalidInput,
                     "REST catalog " + impl->redacted +
                         ": the OAuth2 token request was refused with HTTP " +
                         std::to_string(response->status) +
                         (type.empty() ? "" : " " + type));
  }
  auto parsed = json_internal::Parse(response->body, "OAuth2 token response");
  if (!parsed.ok() || !parsed->is_object() || !parsed->contains("access_token") ||
      !(*parsed)["access_token"].is_string()) {
    return MakeError(ErrorKind::kInvalidInput, "REST catalog " + impl->redacted +
                                                   ": the OAuth2 token response has no "
                                                   "access_token");
  }
  return (*parsed)["access_token"].get<std::string>();
}

// Fetches /v1/config and applies its prefix, separator, warehouse and uri to `impl`.
arrow::Status ApplyServerConfig(const CatalogOptions& options, RestCatalog::Impl* impl) {
  const std::string& uri = options.uri;
  const auto& props = options.properties;
  // /v1/config: defaults, then the client's properties, then the server's overrides.
  std::string config_path = "/v1/config";
  if (!options.warehouse.empty())
    config_path += "?warehouse=" + PercentEncode(options.warehouse);
  ARROW_ASSIGN_OR_RAISE(auto config,
                        impl->Call("GET", config_path, nullptr, ErrorKind::kNotFound));
  std::map<std::string, std::string> merged;
  auto take = [&](const char* member) {
    if (!config.is_object()) return;
    auto found = config.find(member);
    if (found == config.end() || !found->is_object()) return;
    for (auto& [key, value] : found->items()) {
      if (value.is_string()) merged[key] = value.get<std::string>();
    }
  };
  take("defaults");
  for (const auto& [key, value] : props) merged[key] = value;
  take("overrides");
  std::string prefix = Property(merged, "prefix");
  if (!prefix.empty()) impl->prefix = "/v1/" + prefix + "/";
  std::string separator = Property(merged, "namespace-separator");
  if (!separator.empty()) impl->separator = separator;
  if (impl->warehouse.empty()) impl->warehouse = Property(merged, "warehouse");
  std::string override_uri = Property(merged, "uri");
  if (!override_uri.empty() && override_uri != uri &&
      (override_uri.rfind("http://", 0) == 0 || override_uri.rfind("https://", 0) == 0)) {
    impl->base_url = TrimTrailingSlashes(override_uri);
    impl->redacted = RedactUri(impl->base_url);
  }
  return arrow::Status::OK();
}

}  // namespace

RestCatalog::RestCatalog(std::unique_ptr<Impl> impl, Env* env)
    : Catalog(env), impl_(std::move(impl)) {}
RestCatalog::~RestCatalog() = default;

arrow::Result<std::unique_ptr<Catalog>> RestCatalog::Open(const CatalogOptions& options) {
  GlobalInitOnce();
  const std::string& uri = options.uri;
  if (uri.rfind("http://", 0) != 0 && uri.rfind("https://", 0) != 0) {
    return MakeError(
        ErrorKind::kInvalidInput,
        "REST catalog URI '" + RedactUri(uri) + "' must start with http:// or https://");
  }
  auto impl = std::make_unique<Impl>();
  impl->name = options.name;
  impl->base_url = TrimTrailingSlashes(uri);
  impl->redacted = RedactUri(impl->base_url);
  impl->prefix = "/v1/";
  impl->separator = "%1F";
  impl->warehouse = options.warehouse;
  impl->env = options.env;
  impl->options = options;
  const auto& props = options.properties;
  ARROW_RETURN_NOT_OK(ApplyRequestProperties(props, impl.get()));
  impl->token = Property(props, "token");
  std::string credential = Property(props, "credential");
  if (!credential.empty()) {
    impl->token.clear();  // the token request goes without one
    ARROW_ASSIGN_OR_RAISE(impl->token, RequestOAuth2Token(credential, props, impl.get()));
  }
  ARROW_RETURN_NOT_OK(ApplyServerConfig(options, impl.get()));
  // The warehouse of a REST catalog may be a name the server resolves rather than a
  // location: a location of a scheme floe serves picks the FileIO, anything else the
  // local one.
  const std::string warehouse_scheme = LocationScheme(impl->warehouse);
  ARROW_ASSIGN_OR_RAISE(
      impl->io, MakeCatalogFileIO(
                    options, warehouse_scheme != "file" && HasFileIOFor(impl->warehouse)
                                 ? impl->warehouse
                                 : std::string()));
  Env* env = impl->env;
  return std::unique_ptr<Catalog>(new RestCatalog(std::move(impl), env));
}

const std::string& RestCatalog::name() const { return impl_->name; }
std::shared_ptr<FileIO> RestCatalog::io() const { return impl_->io; }

arrow::Result<std::shared_ptr<FileIO>> RestCatalog::TableIO(const TableIdentifier& id,
                                                            const TableState& state) {
  std::map<std::string, std::string> config;
  {
    MutexLock lock(&impl_->vended_mutex);
    auto found = impl_->vended.find(id.ToString());
    if (found != impl_->vended.end()) config = found->second;
  }
  if (config.empty()) return impl_->io;
  CatalogOptions options = impl_->options;
  for (auto& [key, value] : config) options.properties[key] = std::move(value);
  return MakeCatalogFileIO(options, state.metadata->location);
}

arrow::Status RestCatalog::CreateNamespace(
    const Namespace& ns, const std::map<std::string, std::string>& properties) {
  Json body = Json::object();
  body["namespace"] = NamespaceJson(ns);
  Json props = Json::object();
  for (const auto& [key, value] : properties) props[key] = value;
  body["properties"] = props;
  return impl_->Call("POST", impl_->prefix + "namespaces", &body, ErrorKind::kNotFound)
      .status();
}

arrow::Result<std::vector<Namespace>> RestCatalog::ListNamespaces(
    const Namespace& parent) {
  std::string query;
  if (!parent.empty()) query = "parent=" + impl_->NamespacePath(parent);
  ARROW_ASSIGN_OR_RAISE(auto items,
                        impl_->ListAll(impl_->prefix + "namespaces", query, "namespaces",
                                       ErrorKind::kNoSuchNamespace));
  std::vector<Namespace> out;
  for (const auto& item : items) {
    ARROW_ASSIGN_OR_RAISE(auto ns, NamespaceFromJson(item, "REST namespace list"));
    out.push_back(std::move(ns));
  }
  std::sort(out.begin(), out.end());
  return out;
}

arrow::Result<bool> RestCatalog::NamespaceExists(const Namespace& ns) {
  auto answer =
      impl_->Call("HEAD", impl_->prefix + "namespaces/" + impl_->NamespacePath(ns),
                  nullptr, ErrorKind::kNoSuchNamespace);
  if (answer.ok()) return true;
  if (KindOf(answer.status()) == ErrorKind::kNoSuchNamespace) return false;
  return answer.status();
}

arrow::Result<std::map<std::string, std::string>> RestCatalog::LoadNamespaceProperties(
    const Namespace& ns) {
  ARROW_ASSIGN_OR_RAISE(
      auto answer,
      impl_->Call("GET", impl_->prefix + "namespaces/" + impl_->NamespacePath(ns),
                  nullptr, ErrorKind::kNoSuchNamespace));
  std::map<std::string, std::string> out;
  if (answer.is_object()) {
    auto props = answer.find("properties");
    if (props != answer.end() && props->is_object()) {
      for (auto& [key, value] : props->items()) {
        if (value.is_string()) out[key] = value.get<std::string>();
      }
    }
  }
  return out;
}

arrow::Status RestCatalog::UpdateNamespaceProperties(
    const Namespace& ns, const std::map<std::string, std::string>& updates,
    const std::vector<std::string>& removals) {
  Json body = Json::object();
  Json set = Json::object();
  for (const auto& [key, value] : updates) set[key] = value;
  body["updates"] = set;
  body["removals"] = removals;
  return impl_
      ->Call("POST",
             impl_->prefix + "namespaces/" + impl_->NamespacePath(ns) + "/properties",
             &body, ErrorKind::kNoSuchNamespace)
      .status();
}

arrow::Status RestCatalog::DropNamespace(const Namespace& ns) {
  return impl_
      ->Call("DELETE", impl_->prefix + "namespaces/" + impl_->NamespacePath(ns), nullptr,
             ErrorKind::kNoSuchNamespace)
      .status();
}

arrow::Result<std::vector<TableIdentifier>> RestCatalog::ListTables(const Namespace& ns) {
  ARROW_ASSIGN_OR_RAISE(
      auto items,
      impl_->ListAll(impl_->prefix + "namespaces/" + impl_->NamespacePath(ns) + "/tables",
                     "", "identifiers", ErrorKind::kNoSuchNamespace));
  std::vector<TableIdentifier> out;
  for (const auto& item : items) {
    if (!item.is_object() || !item.contains("namespace") || !item.contains("name") ||
        !item["name"].is_string()) {
      return MakeError(ErrorKind::kInvalidMetadata, "REST catalog " + impl_->redacted +
                                                        ": malformed table identifier");
    }
    TableIdentifier id;
    ARROW_ASSIGN_OR_RAISE(id.ns, NamespaceFromJson(item["namespace"], "REST table list"));
    id.name = item["name"].get<std::string>();
    out.push_back(std::move(id));
  }
  std::sort(out.begin(), out.end());
  return out;
}

arrow::Result<TableState> RestCatalog::LoadTable(const TableIdentifier& id) {
  ARROW_ASSIGN_OR_RAISE(auto answer, impl_->Call("GET", impl_->TablePath(id), nullptr,
                                                 ErrorKind::kNoSuchTable));
  return impl_->TableStateFrom(answer, "table '" + id.ToString() + "'", &id);
}

arrow::Result<TableState> RestCatalog::CreateTable(const TableIdentifier& id,
                                                   const TableMetadata& metadata) {
  Json body = Json::object();
  body["name"] = id.name;
  body["location"] = metadata.location;
  body["schema"] = json_internal::SchemaToJsonValue(*metadata.CurrentSchema());
  body["partition-spec"] =
      json_internal::PartitionSpecToJsonValue(*metadata.DefaultSpec());
  if (auto order = metadata.DefaultSortOrder()) {
    body["write-order"] = json_internal::SortOrderToJsonValue(*order);
  }
  Json props = Json::object();
  for (const auto& [key, value] : metadata.properties) props[key] = value;
  props["format-version"] = std::to_string(metadata.format_version);
  body["properties"] = props;
  body["stage-create"] = false;
  ARROW_ASSIGN_OR_RAISE(
      auto answer,
      impl_->Call("POST",
                  impl_->prefix + "namespaces/" + impl_->NamespacePath(id.ns) + "/tables",
                  &body, ErrorKind::kNoSuchNamespace));
  return impl_->TableStateFrom(answer, "table '" + id.ToString() + "'", &id);
}

arrow::Result<TableState> RestCatalog::CommitTable(const TableIdentifier& id,
                                                   const TableState& base,
                                                   const TableMetadata& updated) {
  ARROW_ASSIGN_OR_RAISE(auto request, RestCommitRequestJson(*base.metadata, updated));
  std::string url = impl_->base_url + impl_->TablePath(id);
  TestPausePoint("swap");
  bool maybe_sent = false;
  auto response = impl_->Send("POST", url, request, "application/json", &maybe_sent);
  if (!response.ok()) {
    if (!maybe_sent) return response.status();
    return MakeError(
        ErrorKind::kCommitStateUnknown,
        "commit of table '" + id.ToString() +
            "' may or may not have happened: " + response.status().message());
  }
  long status = response->status;
  if (status >= 200 && status <= 299) {
    auto parsed = json_internal::Parse(response->body, "REST commit answer");
    if (!parsed.ok()) {
      return MakeError(
          ErrorKind::kCommitStateUnknown,
          "commit of table '" + id.ToString() +
              "' succeeded but its answer cannot be read: " + parsed.status().message());
    }
    return impl_->TableStateFrom(*parsed, "table '" + id.ToString() + "'");
  }
  arrow::Status error = impl_->ErrorFor("POST", url, *response, ErrorKind::kNoSuchTable);
  if (status == 409) {
    return MakeError(ErrorKind::kCommitFailed, std::string(error.message()));
  }
  if (status == 500 || status == 502 || status == 503 || status == 504) {
    return MakeError(ErrorKind::kCommitStateUnknown,
                     "commit of table '" + id.ToString() +
                         "' may or may not have happened: " + error.message());
  }
  return error;
}

arrow::Status RestCatalog::RenameTable(const TableIdentifier& from,
                                       const TableIdentifier& to) {
  Json body = Json::object();
  body["source"] = {{"namespace", NamespaceJson(from.ns)}, {"name", from.name}};
  body["destination"] = {{"namespace", NamespaceJson(to.ns)}, {"name", to.name}};
  return impl_
      ->Call("POST", impl_->prefix + "tables/rename", &body, ErrorKind::kNoSuchTable)
      .status();
}

arrow::Status RestCatalog::DropTable(const TableIdentifier& id) {
  return impl_
      ->Call("DELETE", impl_->TablePath(id) + "?purgeRequested=false", nullptr,
             ErrorKind::kNoSuchTable)
      .status();
}

std::string RestCatalog::WarehouseLocation() const {
  return TrimTrailingSlashes(impl_->warehouse);
}

arrow::Result<std::string> RestCatalog::DefaultTableLocation(const TableIdentifier& id) {
  ARROW_ASSIGN_OR_RAISE(auto properties, LoadNamespaceProperties(id.ns));
  std::string location = TrimTrailingSlashes(Property(properties, "location"));
  if (!location.empty()) return location + "/" + id.name;
  std::string warehouse = TrimTrailingSlashes(impl_->warehouse);
  if (warehouse.empty()) {
    return MakeError(ErrorKind::kInvalidInput,
                     "the REST catalog gives namespace '" + NamespaceToString(id.ns) +
                         "' no location and no warehouse is known, so table '" +
                         id.ToString() + "' has no default location");
  }
  for (const auto& level : id.ns) warehouse += "/" + level;
  return warehouse + "/" + id.name;
}

}  // namespace floe::iceberg
