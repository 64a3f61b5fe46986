#include "floe/io/s3_request_internal.h"

#include <curl/curl.h>
#include <openssl/evp.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <mutex>

#include "floe/io/s3_file_io.h"
#include "floe/util/error.h"
#include "floe/util/java_text.h"
#include "floe/util/secrets.h"

namespace floe {
namespace {

// DeleteObjects takes at most 1000 keys a request.
constexpr size_t kKeysPerDelete = 1000;
// Answers are S3's small XML documents; anything larger is not one.
constexpr size_t kMaxAnswerBytes = size_t{4} << 20;
constexpr int kDefaultRetries = 3;

void CurlInitOnce() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

std::string Digest(const EVP_MD* kind, std::string_view bytes) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  EVP_Digest(bytes.data(), bytes.size(), out, &size, kind, nullptr);
  return std::string(reinterpret_cast<const char*>(out), size);
}

std::string Hex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    hex.push_back(kDigits[c >> 4]);
    hex.push_back(kDigits[c & 15]);
  }
  return hex;
}

// A key as SigV4 signs S3 paths: every byte but the unreserved characters and '/'
// percent-encoded, once. In a query value, '/' is encoded too.
std::string EncodeKey(std::string_view key, bool keep_slash = true) {
  static constexpr char kDigits[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : key) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' ||
        (c == '/' && keep_slash)) {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kDigits[c >> 4]);
      out.push_back(kDigits[c & 15]);
    }
  }
  return out;
}

std::string XmlEscape(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&apos;";
        break;
      default:
        out.push_back(c);
    }
  }
  return out;
}

std::string XmlUnescape(std::string_view text) {
  static constexpr std::pair<std::string_view, char> kEntities[] = {
      {"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&apos;", '\''}};
  std::string out;
  for (size_t i = 0; i < text.size();) {
    bool replaced = false;
    if (text[i] == '&') {
      for (const auto& [entity, c] : kEntities) {
        if (text.substr(i, entity.size()) == entity) {
          out.push_back(c);
          i += entity.size();
          replaced = true;
          break;
        }
      }
    }
    if (!replaced) out.push_back(text[i++]);
  }
  return out;
}

// The text of the first <tag>…</tag> in `xml`, unescaped; empty when there is none.
std::string Element(std::string_view xml, std::string_view tag) {
  const std::string open = "<" + std::string(tag) + ">";
  const std::string close = "</" + std::string(tag) + ">";
  const size_t start = xml.find(open);
  if (start == std::string_view::npos) return "";
  const size_t end = xml.find(close, start + open.size());
  if (end == std::string_view::npos) return "";
  return XmlUnescape(xml.substr(start + open.size(), end - start - open.size()));
}

size_t AppendAnswer(char* data, size_t size, size_t count, void* user) {
  auto* answer = static_cast<std::string*>(user);
  const size_t bytes = size * count;
  if (answer->size() + bytes > kMaxAnswerBytes) return 0;  // aborts the transfer
  answer->append(data, bytes);
  return bytes;
}

struct Reply {
  long status = 0;  // 0: no HTTP answer
  std::string body;
  std::string transport;  // curl's error when there was no answer

  bool Transient() const { return status == 0 || status >= 500 || status == 429; }
  // Whether the request may have taken effect although it did not succeed.
  bool Unclear() const { return status == 0 || status >= 500; }
};

}  // namespace

struct S3Requests::Impl {
  std::string endpoint_scheme = "https";
  std::string endpoint_host;  // empty: AWS
  bool path_style = false;
  std::string region;
  S3CredentialSource credentials;
  int retries = kDefaultRetries;
  Env* env = Env::Default();  ///< Retry sleeps (cancellable) and their jitter.

  // The credentials to sign with now, or why there are none.
  arrow::Result<S3Credentials> Credentials() const {
    S3Credentials found = credentials();
    if (found.access_key_id.empty() || found.secret_access_key.empty()) {
      return MakeError(ErrorKind::kNotSupported,
                       "floe signs conditional writes and batched deletes on S3 itself, "
                       "and found no AWS credentials to sign with (s3.access-key-id and "
                       "s3.secret-access-key, the AWS_ACCESS_KEY_ID environment, the "
                       "shared credentials file, an instance role)");
    }
    return found;
  }

  std::string Url(const std::string& bucket, const std::string& key,
                  std::string_view query) const {
    std::string url;
    if (endpoint_host.empty()) {
      url = "https://" + bucket + ".s3." + region + ".amazonaws.com/" + EncodeKey(key);
    } else if (path_style) {
      url = endpoint_scheme + "://" + endpoint_host + "/" + bucket + "/" + EncodeKey(key);
    } else {
      url = endpoint_scheme + "://" + bucket + "." + endpoint_host + "/" + EncodeKey(key);
    }
    if (!query.empty()) url += "?" + std::string(query);
    return url;
  }

  Reply SendOnce(const S3Credentials& keys, const char* method, const std::string& url,
                 const std::vector<std::string>& extra_headers,
                 std::string_view body) const {
    Reply reply;
    CURL* curl = curl_easy_init();
    if (curl == nullptr) {
      reply.transport = "could not start an HTTP request";
      return reply;
    }
    std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> guard(curl, curl_easy_cleanup);
    // The payload's hash is signed (S3 refuses requests without it); libcurl computes
    // the same hash of the body for the signature and signs every header given.
    std::vector<std::string> header_lines = extra_headers;
    header_lines.push_back("x-amz-content-sha256: " + Hex(Digest(EVP_sha256(), body)));
    if (!keys.session_token.empty())
      header_lines.push_back("x-amz-security-token: " + keys.session_token);
    curl_slist* headers = nullptr;
    for (const auto& line : header_lines)
      headers = curl_slist_append(headers, line.c_str());
    std::unique_ptr<curl_slist, decltype(&curl_slist_free_all)> headers_guard(
        headers, curl_slist_free_all);
    const std::string sigv4 = "aws:amz:" + region + ":s3";
    static const char kEmpty[] = "";
    curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
    curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, method);
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.empty() ? kEmpty : body.data());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE,
                     static_cast<curl_off_t>(body.size()));
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(curl, CURLOPT_AWS_SIGV4, sigv4.c_str());
    curl_easy_setopt(curl, CURLOPT_USERNAME, keys.access_key_id.c_str());
    curl_easy_setopt(curl, CURLOPT_PASSWORD, keys.secret_access_key.c_str());
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    // A key is a name, not a path: "a/../b" is three segments to S3, sent and signed
    // as written (libcurl would otherwise remove the dot segments).
    curl_easy_setopt(curl, CURLOPT_PATH_AS_IS, 1L);
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, 10000L);
    // A stalled server (no byte for 30 s) fails the attempt rather than hanging.
    curl_easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(curl, CURLOPT_LOW_SPEED_TIME, 30L);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, AppendAnswer);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &reply.body);
    const CURLcode code = curl_easy_perform(curl);
    if (code != CURLE_OK) {
      reply.transport = curl_easy_strerror(code);
      reply.body.clear();
      return reply;
    }
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &reply.status);
    return reply;
  }

  // Sends the request until it gets a non-transient answer or the retries run out;
  // `unclear` is set when an attempt failed in a way that may have taken effect.
  // `secrets` gets the keys signed with, for the caller's messages.
  arrow::Result<Reply> Send(const char* method, const std::string& url,
                            const std::vector<std::string>& headers,
                            std::string_view body, bool* unclear,
                            std::vector<std::string>* secrets) const {
    Reply reply;
    for (int attempt = 0;; ++attempt) {
      ARROW_ASSIGN_OR_RAISE(S3Credentials keys, Credentials());
      *secrets = {keys.secret_access_key, keys.session_token};
      reply = SendOnce(keys, method, url, headers, body);
      if (!reply.Transient() || attempt >= retries) return reply;
      if (reply.Unclear() && unclear != nullptr) *unclear = true;
      // As the AWS SDK's standard strategy: exponential, capped at 20 s, full jitter.
      const int64_t cap_ms =
          std::min<int64_t>(20000, int64_t{100} << std::min(attempt, 8));
      const int64_t wait_ms =
          cap_ms / 2 + static_cast<int64_t>(env->RandomUint64() % (cap_ms / 2 + 1));
      ARROW_RETURN_NOT_OK(env->SleepUnlessCancelled(wait_ms, "an S3 request's retry"));
    }
  }

  // An error naming what failed, S3's code and message, never a secret.
  static arrow::Status Failure(const std::string& what, const Reply& reply,
                               const std::vector<std::string>& secrets) {
    std::string why;
    if (reply.status == 0) {
      why = reply.transport;
    } else {
      const std::string code = Element(reply.body, "Code");
      const std::string message = Element(reply.body, "Message");
      why = "HTTP " + std::to_string(reply.status);
      if (!code.empty()) why += " " + code;
      if (!message.empty()) why += ": " + message;
    }
    return arrow::Status::IOError(RedactSecrets(what + ": " + why, secrets));
  }
};

S3Requests::S3Requests(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
S3Requests::~S3Requests() = default;

std::unique_ptr<S3Requests> S3Requests::Make(const S3Settings& settings,
                                             S3CredentialSource source) {
  auto impl = std::make_unique<Impl>();
  if (!settings.access_key_id.empty()) {
    S3Credentials keys{settings.access_key_id, settings.secret_access_key,
                       settings.session_token};
    impl->credentials = [keys] { return keys; };
  } else if (source) {
    impl->credentials = std::move(source);
  } else {
    impl->credentials = [env = settings.env] {
      auto variable = [env](const char* name) {
        return env->GetVar(name).value_or(std::string());
      };
      return S3Credentials{variable("AWS_ACCESS_KEY_ID"),
                           variable("AWS_SECRET_ACCESS_KEY"),
                           variable("AWS_SESSION_TOKEN")};
    };
  }
  impl->env = settings.env;
  impl->region = settings.region.empty() ? "us-east-1" : settings.region;
  if (!settings.endpoint.empty()) {
    const size_t colon = settings.endpoint.find("://");
    impl->endpoint_scheme = settings.endpoint.substr(0, colon);
    impl->endpoint_host = settings.endpoint.substr(colon + 3);
    while (!impl->endpoint_host.empty() && impl->endpoint_host.back() == '/')
      impl->endpoint_host.pop_back();
    // As Arrow: path-style to an endpoint unless asked for virtual-hosted.
    impl->path_style = settings.path_style_access.value_or(true);
  }
  if (settings.retries.has_value()) impl->retries = *settings.retries;
  CurlInitOnce();
  return std::unique_ptr<S3Requests>(new S3Requests(std::move(impl)));
}

arrow::Status S3Requests::CheckCredentials() const {
  return impl_->Credentials().status();
}

std::string S3Requests::UrlOf(const std::string& bucket, const std::string& key) const {
  return impl_->Url(bucket, key, "");
}

arrow::Result<ConditionalPutResult> S3Requests::PutIfAbsent(const std::string& bucket,
                                                            const std::string& key,
                                                            std::string_view bytes) {
  ConditionalPutResult result;
  const std::string url = impl_->Url(bucket, key, "");
  const std::vector<std::string> headers = {"If-None-Match: *",
                                            "Content-Type: application/octet-stream"};
  std::vector<std::string> secrets;
  for (int conflicts = 0;; ++conflicts) {
    auto sent =
        impl_->Send("PUT", url, headers, bytes, &result.unclear_attempt, &secrets);
    if (!sent.ok()) {
      // No credentials for a retry: an earlier attempt may still have landed.
      if (!result.unclear_attempt) return sent.status();
      return MakeError(ErrorKind::kCommitStateUnknown, sent.status().message());
    }
    const Reply& reply = *sent;
    if (reply.status == 200) {
      result.created = true;
      return result;
    }
    if (reply.status == 412) return result;
    // 409 ConditionalRequestConflict: a concurrent conditional write to the key is in
    // flight; AWS asks for a retry, which then finds the winner's object or none.
    if (reply.status == 409 && conflicts < impl_->retries) {
      ARROW_RETURN_NOT_OK(impl_->env->SleepUnlessCancelled(
          int64_t{50} << conflicts, "a conditional S3 write's retry"));
      continue;
    }
    arrow::Status failed = Impl::Failure(
        "writing s3://" + bucket + "/" + key + " if absent", reply, secrets);
    if (reply.Unclear() || result.unclear_attempt) {
      return MakeError(ErrorKind::kCommitStateUnknown, failed.message());
    }
    return failed;
  }
}

std::vector<arrow::Status> S3Requests::DeleteObjects(
    const std::string& bucket, const std::vector<std::string>& keys) {
  std::vector<arrow::Status> statuses(keys.size());
  for (size_t start = 0; start < keys.size(); start += kKeysPerDelete) {
    const size_t end = std::min(keys.size(), start + kKeysPerDelete);
    const std::vector<std::string> batch(keys.begin() + start, keys.begin() + end);
    const std::string body = DeleteObjectsBody(batch);
    // S3 asks for the body's MD5 (or another checksum) on DeleteObjects.
    const std::vector<std::string> headers = {
        "Content-Type: application/xml",
        "Content-MD5: " + Base64Encode(Digest(EVP_md5(), body))};
    // "delete=" rather than "delete": the form SigV4 signs, which this libcurl does not
    // derive from a bare name.
    std::vector<std::string> secrets;
    auto sent = impl_->Send("POST", impl_->Url(bucket, "", "delete="), headers, body,
                            nullptr, &secrets);
    const std::string what =
        "deleting " + std::to_string(batch.size()) + " objects of s3://" + bucket;
    if (!sent.ok() || sent->status != 200) {
      arrow::Status failed = sent.ok() ? Impl::Failure(what, *sent, secrets)
                                       : WithContext(sent.status(), what);
      for (size_t i = start; i < end; ++i) statuses[i] = failed;
      continue;
    }
    const Reply& reply = *sent;
    for (const auto& [key, why] : DeleteObjectsErrors(reply.body)) {
      for (size_t i = start; i < end; ++i) {
        if (keys[i] == key && statuses[i].ok()) {
          statuses[i] = arrow::Status::IOError(
              RedactSecrets("deleting s3://" + bucket + "/" + key + ": " + why, secrets));
        }
      }
    }
  }
  return statuses;
}

arrow::Result<std::vector<std::string>> S3Requests::UnfinishedUploads(
    const std::string& bucket, const std::string& key) {
  // Sorted parameters, each with its '=': the query as SigV4 signs it.
  const std::string query =
      "prefix=" + EncodeKey(key, /*keep_slash=*/false) + "&uploads=";
  std::vector<std::string> secrets;
  auto sent =
      impl_->Send("GET", impl_->Url(bucket, "", query), {}, "", nullptr, &secrets);
  const std::string what = "listing the unfinished uploads of s3://" + bucket + "/" + key;
  if (!sent.ok()) return WithContext(sent.status(), what);
  if (sent->status != 200) return Impl::Failure(what, *sent, secrets);
  std::vector<std::string> ids;
  for (const auto& [listed_key, id] : MultipartUploadsListed(sent->body)) {
    if (listed_key == key) ids.push_back(id);  // the prefix also lists longer keys
  }
  return ids;
}

arrow::Status S3Requests::AbortUpload(const std::string& bucket, const std::string& key,
                                      const std::string& upload_id) {
  std::vector<std::string> secrets;
  const std::string query = "uploadId=" + EncodeKey(upload_id, /*keep_slash=*/false);
  auto sent =
      impl_->Send("DELETE", impl_->Url(bucket, key, query), {}, "", nullptr, &secrets);
  const std::string what = "aborting an upload of s3://" + bucket + "/" + key;
  if (!sent.ok()) return WithContext(sent.status(), what);
  // 204: aborted; 404 NoSuchUpload: already gone (completed or aborted).
  if (sent->status == 204 || sent->status == 200 || sent->status == 404)
    return arrow::Status::OK();
  return Impl::Failure(what, *sent, secrets);
}

std::vector<std::pair<std::string, std::string>> MultipartUploadsListed(
    std::string_view answer) {
  std::vector<std::pair<std::string, std::string>> uploads;
  size_t at = 0;
  while ((at = answer.find("<Upload>", at)) != std::string_view::npos) {
    const size_t end = answer.find("</Upload>", at);
    if (end == std::string_view::npos) break;
    const std::string_view upload = answer.substr(at, end - at);
    std::string id = Element(upload, "UploadId");
    if (!id.empty()) uploads.emplace_back(Element(upload, "Key"), std::move(id));
    at = end;
  }
  return uploads;
}

std::string DeleteObjectsBody(const std::vector<std::string>& keys) {
  std::string body =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>"
      "<Delete xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Quiet>true</Quiet>";
  for (const auto& key : keys)
    body += "<Object><Key>" + XmlEscape(key) + "</Key></Object>";
  body += "</Delete>";
  return body;
}

std::vector<std::pair<std::string, std::string>> DeleteObjectsErrors(
    std::string_view answer) {
  std::vector<std::pair<std::string, std::string>> errors;
  size_t at = 0;
  while ((at = answer.find("<Error>", at)) != std::string_view::npos) {
    const size_t end = answer.find("</Error>", at);
    if (end == std::string_view::npos) break;
    const std::string_view error = answer.substr(at, end - at);
    std::string why = Element(error, "Code");
    const std::string message = Element(error, "Message");
    if (!message.empty()) why += (why.empty() ? "" : ": ") + message;
    errors.emplace_back(Element(error, "Key"), why.empty() ? "refused" : why);
    at = end;
  }
  return errors;
}

}  // namespace floe
