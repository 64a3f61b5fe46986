#include "floe/io/s3_request_internal.h"

#include <optional>
#include <string>

#include <gtest/gtest.h>

#include "floe/io/s3_file_io.h"
#include "floe/testing/temp_directory.h"
#include "floe/util/error.h"

namespace floe {
namespace {

S3Settings Settings(const std::string& endpoint, std::optional<bool> path_style) {
  S3Settings settings;
  settings.endpoint = endpoint;
  settings.access_key_id = "AKID";
  settings.secret_access_key = "secret";
  settings.region = "eu-west-1";
  settings.path_style_access = path_style;
  return settings;
}

TEST(S3RequestsTest, KeysAreEncodedOnceAsSigV4SignsThem) {
  auto requests = S3Requests::Make(Settings("http://127.0.0.1:9000/", std::nullopt));
  // Path-style to an endpoint by default; unreserved characters and '/' stay.
  EXPECT_EQ(requests->UrlOf("bkt", "wh/t/data/a-b_c.d~e.parquet"),
            "http://127.0.0.1:9000/bkt/wh/t/data/a-b_c.d~e.parquet");
  EXPECT_EQ(requests->UrlOf("bkt", "d/x=y/a b&c/z\xC3\xBC%2F+!.json"),
            "http://127.0.0.1:9000/bkt/d/x%3Dy/a%20b%26c/z%C3%BC%252F%2B%21.json");
  auto virtual_hosted = S3Requests::Make(Settings("https://s3.example:8443", false));
  EXPECT_EQ(virtual_hosted->UrlOf("bkt", "k"), "https://bkt.s3.example:8443/k");
  auto aws = S3Requests::Make(Settings("", std::nullopt));
  EXPECT_EQ(aws->UrlOf("bkt", "a/b"), "https://bkt.s3.eu-west-1.amazonaws.com/a/b");
}

TEST(S3RequestsTest, KeysComeFromTheSettingsElseFromTheSourceAskedEveryTime) {
  testing::ScopedEnvironment no_keys(testing::NoAwsCredentials());
  S3Settings settings;
  settings.endpoint = "http://127.0.0.1:9000";
  // Without keys or a source: the environment's, here none.
  auto none = S3Requests::Make(settings);
  const arrow::Status refused = none->CheckCredentials();
  EXPECT_EQ(KindOf(refused), ErrorKind::kNotSupported);
  EXPECT_NE(refused.message().find("s3.access-key-id"), std::string::npos);
  EXPECT_NE(refused.message().find("AWS_ACCESS_KEY_ID"), std::string::npos);
  {
    testing::ScopedEnvironment keys(testing::ScopedEnvironment::Changes{
        {"AWS_ACCESS_KEY_ID", "AKENV"}, {"AWS_SECRET_ACCESS_KEY", "from-env"}});
    EXPECT_TRUE(none->CheckCredentials().ok());
  }
  // A source is asked before every request, so keys it refreshes are used.
  int asked = 0;
  auto sourced = S3Requests::Make(settings, [&asked] {
    ++asked;
    return asked < 2 ? S3Credentials{} : S3Credentials{"AKSRC", "from-source", ""};
  });
  EXPECT_FALSE(sourced->CheckCredentials().ok());
  EXPECT_TRUE(sourced->CheckCredentials().ok());
  EXPECT_EQ(asked, 2);
  // Keys in the settings win: the source is never asked.
  settings.access_key_id = "AKID";
  settings.secret_access_key = "secret";
  auto given = S3Requests::Make(settings, [&asked] {
    ++asked;
    return S3Credentials{};
  });
  EXPECT_TRUE(given->CheckCredentials().ok());
  EXPECT_EQ(asked, 2);
}

TEST(S3RequestsTest, DeleteObjectsBodiesEscapeKeysAndAnswersAreReadPerKey) {
  const std::string body = DeleteObjectsBody({"a/b.parquet", "x<&>'\"y"});
  EXPECT_NE(body.find("<Quiet>true</Quiet>"), std::string::npos);
  EXPECT_NE(body.find("<Object><Key>a/b.parquet</Key></Object>"), std::string::npos);
  EXPECT_NE(body.find("<Key>x&lt;&amp;&gt;&apos;&quot;y</Key>"), std::string::npos);
  const std::string answer =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?><DeleteResult "
      "xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Error><Key>x&lt;&amp;y</Key>"
      "<Code>AccessDenied</Code><Message>Access Denied</Message></Error><Error><Key>"
      "c</Key><Code>InternalError</Code></Error></DeleteResult>";
  auto errors = DeleteObjectsErrors(answer);
  ASSERT_EQ(errors.size(), 2u);
  EXPECT_EQ(errors[0].first, "x<&y");
  EXPECT_EQ(errors[0].second, "AccessDenied: Access Denied");
  EXPECT_EQ(errors[1].first, "c");
  EXPECT_EQ(errors[1].second, "InternalError");
  EXPECT_TRUE(DeleteObjectsErrors("<DeleteResult></DeleteResult>").empty());
  EXPECT_TRUE(DeleteObjectsErrors("<Error><Key>unterminated").empty());
}

TEST(S3RequestsTest, UnfinishedUploadsAreReadFromAListMultipartUploadsAnswer) {
  // As AWS documents the answer: uploads with their key, id, initiator and times.
  const std::string answer =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?><ListMultipartUploadsResult "
      "xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Bucket>b</Bucket>"
      "<KeyMarker></KeyMarker><UploadIdMarker></UploadIdMarker><IsTruncated>false"
      "</IsTruncated><Upload><Key>wh/t/data/a&amp;b.parquet</Key><UploadId>VXBsb2FkIElE"
      "</UploadId><Initiator><ID>x</ID></Initiator><Initiated>2026-12-06T00:00:00.000Z"
      "</Initiated></Upload><Upload><Key>wh/t/data/a&amp;b.parquet.2</Key><UploadId>id2"
      "</UploadId></Upload><Upload><Key>no-id</Key></Upload></"
      "ListMultipartUploadsResult>";
  auto uploads = MultipartUploadsListed(answer);
  ASSERT_EQ(uploads.size(), 2u);
  EXPECT_EQ(uploads[0].first, "wh/t/data/a&b.parquet");
  EXPECT_EQ(uploads[0].second, "VXBsb2FkIElE");
  EXPECT_EQ(uploads[1].first, "wh/t/data/a&b.parquet.2");
  EXPECT_TRUE(MultipartUploadsListed("<ListMultipartUploadsResult/>").empty());
  EXPECT_TRUE(MultipartUploadsListed("<Upload><Key>unterminated").empty());
}

}  // namespace
}  // namespace floe
