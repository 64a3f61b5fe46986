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

ScopedEnvironment::ScopedEnvironment(std::string name, const std::string& value)
    : name_(std::move(name)) {
  if (const char* old = std::getenv(name_.c_str())) saved_ = old;
  setenv(name_.c_str(), value.c_str(), 1);
}

ScopedEnvironment::~ScopedEnvironment() {
  if (saved_) {
    setenv(name_.c_str(), saved_->c_str(), 1);
  } else {
    unsetenv(name_.c_str());
  }
}

}  // namespace floe::testing
