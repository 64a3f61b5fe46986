// Signed S3 requests of floe's own, for what Arrow's S3FileSystem does not offer: a
// conditional create (PUT with If-None-Match: *), batched deletes (DeleteObjects), and
// aborting the multipart upload a failed close of Arrow's stream leaves open (Arrow
// forgets its upload id then). Signed with AWS Signature Version 4 by libcurl; see
// docs/storage.md, "Object storage".
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "arrow/result.h"
#include "arrow/status.h"

namespace floe {

struct S3Settings;

/// AWS credentials to sign with.
struct S3Credentials {
  std::string access_key_id;
  std::string secret_access_key;
  std::string session_token;
};

/// Where a request's credentials come from, asked before every request (credentials
/// that expire are refreshed there); empty keys when none are found.
using S3CredentialSource = std::function<S3Credentials()>;

/// What a conditional PUT found.
struct ConditionalPutResult {
  /// True: this call created the object. False: an object was already there.
  bool created = false;
  /// An earlier attempt of this call failed without a clear answer (the connection
  /// dropped, or the server answered 5xx), so an object found there may be the one that
  /// attempt created.
  bool unclear_attempt = false;
};

/// Sends signed requests to the S3 endpoint `settings` describe, with the keys
/// `settings` hold (s3.access-key-id and s3.secret-access-key) or else those `source`
/// finds (S3FileIO's is Arrow's AWS credential chain: the environment, the shared
/// credentials file, instance roles, ...; without a source, AWS_ACCESS_KEY_ID and
/// AWS_SECRET_ACCESS_KEY). Transient failures (no answer, 5xx, 429) are retried with
/// exponential backoff, as many times as `settings.retries` says (3 when unset).
/// Thread-safe; errors never carry a secret.
class S3Requests {
 public:
  static std::unique_ptr<S3Requests> Make(const S3Settings& settings,
                                          S3CredentialSource source = {});
  ~S3Requests();

  /// OK when there are credentials to sign with; otherwise NotSupported saying where
  /// they were looked for. Every request checks this first.
  arrow::Status CheckCredentials() const;

  /// PUT `bytes` at `key` of `bucket` only if no object is there (If-None-Match: *).
  arrow::Result<ConditionalPutResult> PutIfAbsent(const std::string& bucket,
                                                  const std::string& key,
                                                  std::string_view bytes);

  /// Deletes `keys` of `bucket`, up to 1000 a request (DeleteObjects): one status per
  /// key, in order; OK when the key is gone (S3 reports a missing key as deleted).
  std::vector<arrow::Status> DeleteObjects(const std::string& bucket,
                                           const std::vector<std::string>& keys);

  /// The ids of the multipart uploads of exactly `key` that are neither completed nor
  /// aborted (ListMultipartUploads with the key as prefix).
  arrow::Result<std::vector<std::string>> UnfinishedUploads(const std::string& bucket,
                                                            const std::string& key);

  /// Aborts multipart upload `upload_id` of `key` (AbortMultipartUpload), freeing its
  /// parts; OK when the upload is already gone.
  arrow::Status AbortUpload(const std::string& bucket, const std::string& key,
                            const std::string& upload_id);

  /// The URL of `key` in `bucket` (path-style or virtual-hosted, as the settings say),
  /// the key encoded as SigV4 signs it; for tests.
  std::string UrlOf(const std::string& bucket, const std::string& key) const;

 private:
  struct Impl;
  explicit S3Requests(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// The XML that asks S3 to delete `keys` quietly (a DeleteObjects body); for tests.
std::string DeleteObjectsBody(const std::vector<std::string>& keys);
/// The keys a DeleteObjects answer reports errors for, with "Code: Message" of each;
/// for tests.
std::vector<std::pair<std::string, std::string>> DeleteObjectsErrors(
    std::string_view answer);
/// The (key, upload id) of every upload a ListMultipartUploads answer lists; for tests.
std::vector<std::pair<std::string, std::string>> MultipartUploadsListed(
    std::string_view answer);

}  // namespace floe
