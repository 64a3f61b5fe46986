#include "floe/util/secrets.h"

#include <algorithm>

#include <gtest/gtest.h>

namespace floe {
namespace {

TEST(SecretsTest, KeysThatHoldCredentials) {
  for (const char* key : {"s3.secret-access-key", "jdbc.password", "Token", "credential",
                          "s3.access-key-id", "gcs.oauth2.token", "adls.private_key",
                          "ssl.key", "PASSWD"}) {
    EXPECT_TRUE(IsSecretPropertyKey(key)) << key;
  }
  for (const char* key : {"s3.endpoint", "client.region", "write.format.default", "key",
                          "monkey", "keystore.type"}) {
    EXPECT_FALSE(IsSecretPropertyKey(key)) << key;
  }
  EXPECT_EQ(PrintableProperty("jdbc.password", "hunter2"), "***");
  EXPECT_EQ(PrintableProperty("s3.endpoint", "http://x"), "http://x");
}

TEST(SecretsTest, RedactUriHidesPasswordsAndSecretParameters) {
  EXPECT_EQ(RedactUri("postgresql://user:hunter2@host/db?password=x&a=b"),
            "postgresql://user:***@host/db?password=***&a=b");
  EXPECT_EQ(RedactUri("http://h/v1?token=abc&credential=id:s"),
            "http://h/v1?token=***&credential=***");
  EXPECT_EQ(RedactUri("sqlite:////tmp/c.db"), "sqlite:////tmp/c.db");
  EXPECT_EQ(RedactUri("postgresql://user@host/db"), "postgresql://user@host/db");
}

TEST(SecretsTest, SecretsOfUriFindsEncodedAndMalformedPasswords) {
  auto secrets = SecretsOfUri("postgresql://u:p%40ss@[::1/db?secret=s3&a=b");
  EXPECT_NE(std::find(secrets.begin(), secrets.end(), "p%40ss"), secrets.end());
  EXPECT_NE(std::find(secrets.begin(), secrets.end(), "p@ss"), secrets.end());
  EXPECT_NE(std::find(secrets.begin(), secrets.end(), "s3"), secrets.end());
  for (size_t i = 1; i < secrets.size(); ++i) {
    EXPECT_GE(secrets[i - 1].size(), secrets[i].size());  // longest first
  }
  EXPECT_EQ(RedactSecrets("could not parse postgresql://u:p@ss@host", {"p@ss", ""}),
            "could not parse postgresql://u:***@host");
}

}  // namespace
}  // namespace floe
