// Durations given on the command line ("3d", "12h", "30m", "45s", "500ms").
#pragma once

#include <cstdint>
#include <string_view>

#include "arrow/result.h"

namespace floe {

/// Milliseconds of a duration: a non-negative integer followed by d, h, m, s or ms.
/// Anything else gives InvalidInput.
arrow::Result<int64_t> ParseDurationMs(std::string_view text);

}  // namespace floe
