// FileIO for S3 and S3-compatible object storage (s3:// and s3a:// locations), over
// Arrow's S3FileSystem, configured by iceberg-java's S3FileIO property keys.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "arrow/result.h"
#include "floe/io/file_io.h"
#include "floe/util/env.h"

namespace floe {

/// True for s3 and s3a, the schemes S3FileIO serves (iceberg-java's S3FileIO accepts
/// both, and s3n; floe does not write s3n, which Hadoop retired).
bool IsS3Scheme(std::string_view scheme);

/// How S3FileIO reaches its storage, read from catalog or table properties by
/// S3SettingsFromProperties.
struct S3Settings {
  /// `s3.endpoint` (else the AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL environment
  /// variable): an http:// or https:// URL of an S3-compatible server; empty for AWS.
  std::string endpoint;
  /// `s3.access-key-id`, `s3.secret-access-key`, `s3.session-token`. Without a key the
  /// standard AWS credential chain is used (AWS_ACCESS_KEY_ID and the other environment
  /// variables, ~/.aws profiles, instance metadata).
  std::string access_key_id;
  std::string secret_access_key;
  std::string session_token;
  /// `client.region` (or pyiceberg's `s3.region`); else AWS_REGION or AWS_DEFAULT_REGION;
  /// else us-east-1 with an endpoint, and the SDK's own choice without one.
  std::string region;
  /// `s3.path-style-access`. Unset: virtual-hosted requests to AWS, path-style to an
  /// endpoint (Arrow's default); true: always path-style; false: always virtual-hosted.
  std::optional<bool> path_style_access;
  /// `s3.retry.num-retries`: retries of a failed request (the AWS SDK's standard
  /// strategy, with its exponential backoff). Unset: the SDK's default.
  std::optional<int> retries;
  /// The environment variables read here, and floe's own requests' retry sleeps and
  /// jitter (S3Requests). Not owned.
  Env* env = Env::Default();
};

/// Reads S3Settings from `properties`. A key S3FileIO does not honour (any `s3.*` or
/// `client.*` key not in HonouredStoragePropertyKeys, or an honoured one at a value floe
/// cannot reproduce) is NotSupported naming the key, never its value; a malformed value
/// of an honoured key is InvalidInput naming the key.
/// Environment variables are read through `env`.
arrow::Result<S3Settings> S3SettingsFromProperties(
    const std::map<std::string, std::string>& properties, Env* env = Env::Default());

/// The storage keys among `properties` that floe's FileIO does not honour, by name only
/// (what the eligibility gate declines a write for; S3SettingsFromProperties refuses
/// the same list). Keys that are not storage keys (neither `s3.*` nor `client.*`) are
/// not looked at.
std::vector<std::string> UnhonouredStorageProperties(
    const std::map<std::string, std::string>& properties);

/// The `s3.*` and `client.*` keys floe's S3FileIO honours, for messages and docs.
const std::vector<std::string>& HonouredStoragePropertyKeys();

/// True when this build of floe has S3FileIO (FLOE_WITH_S3).
bool HasS3FileIO();

/// A FileIO for s3:// and s3a:// locations, configured by `properties`
/// (S3SettingsFromProperties); other locations (local paths, file: URIs, memory://) go to
/// MakeArrowFileIO with the same properties. Secrets given in `properties` never appear
/// in its errors.
///  - Reads are ranged GETs; uploads are single PUTs, or multipart for large files, and a
///    file exists only once its stream closed successfully.
///  - RenameNoReplace is NotSupported: object storage has no atomic rename.
///  - SyncFolder does nothing: a completed PUT is durable.
arrow::Result<std::shared_ptr<FileIO>> MakeS3FileIO(
    const std::map<std::string, std::string>& properties);

/// Ends Arrow's S3 support (the AWS SDK) if floe started it, as the process is about to
/// exit and after every S3 FileIO is gone: Arrow asks for it before static destruction,
/// and a finaliser run from atexit frees its clients twice. The CLI calls it last; in
/// Python, pyarrow's own exit hook does it.
void FinalizeStorage();

}  // namespace floe
