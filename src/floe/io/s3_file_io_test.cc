#include "floe/io/s3_file_io.h"

#include <gtest/gtest.h>

#include "floe/util/error.h"

namespace floe {
namespace {

using Properties = std::map<std::string, std::string>;

TEST(S3SettingsTest, ReadsIcebergJavaKeys) {
  auto settings = S3SettingsFromProperties({{"s3.endpoint", "http://127.0.0.1:9000"},
                                            {"s3.access-key-id", "AKID"},
                                            {"s3.secret-access-key", "secret"},
                                            {"s3.session-token", "token"},
                                            {"s3.path-style-access", "TRUE"},
                                            {"client.region", "eu-west-1"},
                                            {"s3.retry.num-retries", "3"},
                                            {"warehouse", "s3://b/w"}});
  ASSERT_TRUE(settings.ok()) << settings.status().ToString();
  EXPECT_EQ(settings->endpoint, "http://127.0.0.1:9000");
  EXPECT_EQ(settings->access_key_id, "AKID");
  EXPECT_EQ(settings->secret_access_key, "secret");
  EXPECT_EQ(settings->session_token, "token");
  EXPECT_EQ(settings->path_style_access, true);
  EXPECT_EQ(settings->region, "eu-west-1");
  EXPECT_EQ(settings->retries, 3);
  // pyiceberg's s3.region is read too; an endpoint without a region signs for us-east-1.
  EXPECT_EQ(S3SettingsFromProperties({{"s3.region", "ap-south-1"}})->region,
            "ap-south-1");
  if (std::getenv("AWS_REGION") == nullptr &&
      std::getenv("AWS_DEFAULT_REGION") == nullptr) {
    EXPECT_EQ(S3SettingsFromProperties({{"s3.endpoint", "https://s3.example"}})->region,
              "us-east-1");
  }
  // iceberg-java's booleans: anything but "true" (any case) is false.
  EXPECT_EQ(
      S3SettingsFromProperties({{"s3.path-style-access", "yes"}})->path_style_access,
      false);
}

TEST(S3SettingsTest, RefusesKeysItDoesNotHonourByNameOnly) {
  for (const auto& [key, value] : Properties{{"s3.sse.type", "kms"},
                                             {"s3.acl", "public-read"},
                                             {"s3.remote-signing-enabled", "true"},
                                             {"s3.delete-enabled", "false"},
                                             {"s3.staging-dir", "/tmp/stage-value"},
                                             {"client.factory", "com.example.Value"}}) {
    auto settings = S3SettingsFromProperties({{key, value}});
    ASSERT_FALSE(settings.ok()) << key;
    EXPECT_EQ(KindOf(settings.status()), ErrorKind::kNotSupported) << key;
    EXPECT_NE(settings.status().message().find(key), std::string::npos);
    EXPECT_EQ(settings.status().message().find(value), std::string::npos)
        << settings.status().message();
    EXPECT_EQ(UnhonouredStorageProperties({{key, value}}), std::vector<std::string>{key});
  }
  // At their defaults, the default-only keys change nothing, and are accepted.
  EXPECT_TRUE(S3SettingsFromProperties({{"s3.sse.type", "NONE"},
                                        {"s3.delete-enabled", "true"},
                                        {"s3.checksum-enabled", "false"}})
                  .ok());
  // Keys of other kinds are not storage keys.
  EXPECT_TRUE(UnhonouredStorageProperties({{"write.format.default", "orc"}}).empty());
  const auto& honoured = HonouredStoragePropertyKeys();
  EXPECT_TRUE(std::is_sorted(honoured.begin(), honoured.end()));
  EXPECT_NE(std::find(honoured.begin(), honoured.end(), "s3.endpoint"), honoured.end());
}

TEST(S3SettingsTest, MalformedValuesNameTheirKeyNotTheirValue) {
  const Properties cases[] = {
      {{"s3.endpoint", "ftp://host-value"}},
      {{"s3.access-key-id", "AKID-value"}},
      {{"s3.secret-access-key", "secret-value"}},
      {{"s3.session-token", "token-value"}},
      {{"client.region", "eu-west-1"}, {"s3.region", "us-west-2"}},
      {{"s3.retry.num-retries", "-1"}},
      {{"s3.retry.num-retries", "3x"}},
  };
  for (const auto& properties : cases) {
    auto settings = S3SettingsFromProperties(properties);
    ASSERT_FALSE(settings.ok()) << properties.begin()->first;
    EXPECT_EQ(KindOf(settings.status()), ErrorKind::kInvalidInput);
    EXPECT_NE(settings.status().message().find(properties.begin()->first),
              std::string::npos)
        << settings.status().message();
    for (const auto& [key, value] : properties) {
      EXPECT_EQ(settings.status().message().find(value), std::string::npos)
          << settings.status().message();
    }
  }
}

TEST(S3FileIOTest, LocationsMustNameABucketAndCarryNoCredentials) {
  EXPECT_TRUE(CheckSupportedLocation("s3://bucket/key").ok());
  EXPECT_TRUE(CheckSupportedLocation("s3a://bucket").ok());
  EXPECT_EQ(KindOf(CheckSupportedLocation("s3:///key")), ErrorKind::kInvalidInput);
  EXPECT_EQ(KindOf(CheckSupportedLocation("s3://")), ErrorKind::kInvalidInput);
  EXPECT_EQ(KindOf(CheckSupportedLocation("s3:bucket/key")), ErrorKind::kInvalidInput);
  auto credentials = CheckSupportedLocation("s3://AKID:hunter2@bucket/key");
  EXPECT_EQ(KindOf(credentials), ErrorKind::kInvalidInput);
  EXPECT_EQ(credentials.message().find("hunter2"), std::string::npos)
      << credentials.message();
  EXPECT_EQ(KindOf(CheckSupportedLocation("s3n://bucket/key")), ErrorKind::kNotSupported);
}

TEST(S3FileIOTest, FailuresNameTheLocationAndNeverTheSecret) {
  // Nothing listens on port 9 of loopback: every request fails at once.
  const std::string secret = "unit-test-secret/never+printed";
  auto io = MakeS3FileIO({{"s3.endpoint", "http://127.0.0.1:9"},
                          {"s3.access-key-id", "AKIDUNITTEST"},
                          {"s3.secret-access-key", secret},
                          {"s3.retry.num-retries", "0"}});
  ASSERT_TRUE(io.ok()) << io.status().ToString();
  auto input = (*io)->OpenInput("s3://bucket/table/data/file.parquet");
  ASSERT_FALSE(input.ok());
  EXPECT_NE(input.status().message().find("s3://bucket/table/data/file.parquet"),
            std::string::npos)
      << input.status().message();
  auto written = (*io)->WriteAll("s3://bucket/table/metadata/v1.json", "{}");
  ASSERT_FALSE(written.ok());
  for (const auto& message : {input.status().message(), written.message()}) {
    EXPECT_EQ(message.find(secret), std::string::npos) << message;
  }
  EXPECT_EQ(KindOf((*io)->RenameNoReplace("s3://bucket/a", "s3://bucket/b")),
            ErrorKind::kNotSupported);
  // Local locations go to the local FileIO.
  EXPECT_TRUE((*io)->Exists("/").ok());
  // Objects appear whole and every request is a round trip; local files neither.
  EXPECT_TRUE((*io)->WritesAppearWhole("s3://bucket/t/_delta_log/_last_checkpoint"));
  EXPECT_TRUE((*io)->HighLatency("s3a://bucket/t"));
  EXPECT_FALSE((*io)->WritesAppearWhole("/tmp/t/_delta_log/_last_checkpoint"));
  EXPECT_FALSE((*io)->HighLatency("/tmp/t"));
}

// Arrow's S3 support, once started, is ended once, after the last test (it cannot start
// again in the process): every S3 FileIO of a test is gone by then.
class FinalizeStorageAfterTheTests final : public ::testing::Environment {
 public:
  void TearDown() override { FinalizeStorage(); }
};
const auto* const kFinalizer =
    ::testing::AddGlobalTestEnvironment(new FinalizeStorageAfterTheTests);

}  // namespace
}  // namespace floe
