#include "floe/testing/temp_directory.h"

#include <cstdlib>
#include <utility>

#include "floe/util/uuid.h"

namespace floe::testing {

TempDirectory::TempDirectory() {
  const char* root = std::getenv("FLOE_TEST_TMPDIR");
  std::filesystem::path base = root && *root ? std::filesystem::path(root)
                                             : std::filesystem::temp_directory_path();
  path_ = base / ("floe-" + Uuid::Random().ToString());
  std::filesystem::create_directories(path_);
}

TempDirectory::~TempDirectory() {
  std::error_code ignored;  // best effort: a leftover temp dir must not fail a test
  std::filesystem::remove_all(path_, ignored);
}

namespace {

void SetOrUnset(const std::string& name, const std::optional<std::string>& value) {
  if (value) {
    setenv(name.c_str(), value->c_str(), 1);
  } else {
    unsetenv(name.c_str());
  }
}

}  // namespace

ScopedEnvironment::ScopedEnvironment(std::string name, const std::string& value)
    : ScopedEnvironment(Changes{{std::move(name), value}}) {}

ScopedEnvironment::ScopedEnvironment(const Changes& changes) {
  for (const auto& [name, value] : changes) {
    const char* old = std::getenv(name.c_str());
    saved_.emplace_back(name,
                        old == nullptr ? std::nullopt : std::optional<std::string>(old));
    SetOrUnset(name, value);
  }
}

ScopedEnvironment::~ScopedEnvironment() {
  for (auto it = saved_.rbegin(); it != saved_.rend(); ++it)
    SetOrUnset(it->first, it->second);
}

ScopedEnvironment::Changes NoAwsCredentials() {
  return {{"AWS_ACCESS_KEY_ID", std::nullopt},
          {"AWS_SECRET_ACCESS_KEY", std::nullopt},
          {"AWS_SESSION_TOKEN", std::nullopt},
          {"AWS_PROFILE", std::nullopt},
          {"AWS_SHARED_CREDENTIALS_FILE", "/nonexistent/floe-test/credentials"},
          {"AWS_CONFIG_FILE", "/nonexistent/floe-test/config"},
          {"AWS_EC2_METADATA_DISABLED", "true"}};
}

}  // namespace floe::testing
