// Test helpers: a temporary directory removed when the test ends, environment variables
// set or unset until the test ends.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace floe::testing {

/// A fresh directory under $FLOE_TEST_TMPDIR (or the system temp dir), deleted with its
/// contents on destruction.
class TempDirectory {
 public:
  TempDirectory();
  ~TempDirectory();
  TempDirectory(const TempDirectory&) = delete;
  TempDirectory& operator=(const TempDirectory&) = delete;

  const std::filesystem::path& path() const { return path_; }
  /// path() / name as a string.
  std::string Child(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

/// Sets environment variables (or unsets those given nullopt) until destruction, then
/// restores (or unsets) each.
class ScopedEnvironment {
 public:
  using Changes = std::vector<std::pair<std::string, std::optional<std::string>>>;

  ScopedEnvironment(std::string name, const std::string& value);
  explicit ScopedEnvironment(const Changes& changes);
  ~ScopedEnvironment();
  ScopedEnvironment(const ScopedEnvironment&) = delete;
  ScopedEnvironment& operator=(const ScopedEnvironment&) = delete;

 private:
  Changes saved_;  // each variable with the value it had
};

/// For ScopedEnvironment: no AWS credentials anywhere the AWS credential chain looks (no
/// keys in the environment, no shared credentials or config file, no instance metadata).
ScopedEnvironment::Changes NoAwsCredentials();

}  // namespace floe::testing

/// Asserts that an arrow::Status or arrow::Result is OK, printing the status otherwise.
#define FLOE_ASSERT_OK(expr)                                   \
  do {                                                         \
    auto&& _floe_result = (expr);                              \
    ASSERT_TRUE(::floe::testing::StatusOf(_floe_result).ok())  \
        << ::floe::testing::StatusOf(_floe_result).ToString(); \
  } while (false)

// NOLINTBEGIN(bugprone-macro-parentheses): `lhs` may be a declaration.
#define FLOE_ASSIGN_OR_FAIL_IMPL(result_name, lhs, rexpr)           \
  auto&& result_name = (rexpr);                                     \
  ASSERT_TRUE(result_name.ok()) << result_name.status().ToString(); \
  lhs = std::move(result_name).ValueUnsafe();

#define FLOE_CONCAT_INNER(a, b) a##b
#define FLOE_CONCAT(a, b) FLOE_CONCAT_INNER(a, b)
/// `lhs = value of rexpr`, failing the test when rexpr is an error.
#define FLOE_ASSIGN_OR_FAIL(lhs, rexpr) \
  FLOE_ASSIGN_OR_FAIL_IMPL(FLOE_CONCAT(_floe_result_, __LINE__), lhs, rexpr)
// NOLINTEND(bugprone-macro-parentheses)

#include "arrow/result.h"
#include "arrow/status.h"

namespace floe::testing {
inline const arrow::Status& StatusOf(const arrow::Status& status) { return status; }
template <typename T>
arrow::Status StatusOf(const arrow::Result<T>& result) {
  return result.status();
}
}  // namespace floe::testing
