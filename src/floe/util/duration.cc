#include "floe/util/duration.h"

#include <charconv>
#include <limits>
#include <string>

#include "floe/util/error.h"
#include "floe/util/number_text.h"

namespace floe {

arrow::Result<int64_t> ParseDurationMs(std::string_view text) {
  struct Unit {
    std::string_view suffix;
    int64_t ms;
  };
  // "ms" before "m" and "s".
  constexpr Unit kUnits[] = {
      {"ms", 1}, {"d", 86400000}, {"h", 3600000}, {"m", 60000}, {"s", 1000}};
  for (const auto& unit : kUnits) {
    if (text.size() <= unit.suffix.size() ||
        text.substr(text.size() - unit.suffix.size()) != unit.suffix) {
      continue;
    }
    std::string_view digits = text.substr(0, text.size() - unit.suffix.size());
    const std::optional<int64_t> value = ParseDigits(digits);
    if (value && *value <= std::numeric_limits<int64_t>::max() / unit.ms) {
      return *value * unit.ms;
    }
    break;
  }
  return MakeError(
      ErrorKind::kInvalidInput,
      "'" + std::string(text) + "' is not a duration (e.g. 3d, 12h, 30m, 45s)");
}

}  // namespace floe
