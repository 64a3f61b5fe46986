#include "floe/cli/flags.h"

#include "floe/util/error.h"

namespace floe::cli {

arrow::Result<std::map<std::string, std::string>> ParseKeyValues(
    const std::vector<std::string>& pairs, const std::string& flag) {
  std::map<std::string, std::string> result;
  for (const auto& pair : pairs) {
    size_t equals = pair.find('=');
    if (equals == std::string::npos || equals == 0) {
      return MakeError(ErrorKind::kInvalidInput, flag + " expects KEY=VALUE");
    }
    result[pair.substr(0, equals)] = pair.substr(equals + 1);
  }
  return result;
}

}  // namespace floe::cli
