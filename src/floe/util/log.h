// Minimal logging for what floe does on its own behalf (best-effort cleanup, retries).
// Messages go to stderr unless FLOE_LOG=off. Never log credentials: callers pass
// locations and property names only.
#pragma once

#include <string_view>

namespace floe {

enum class LogLevel { kDebug, kInfo, kWarning };

/// Writes "floe: <level>: <message>" to stderr when `level` is at or above the threshold
/// (FLOE_LOG=debug|info|warning|off; default warning). Thread-safe.
void Log(LogLevel level, std::string_view message);

}  // namespace floe
