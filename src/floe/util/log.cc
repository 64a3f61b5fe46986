#include "floe/util/log.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

namespace floe {
namespace {

int Threshold() {
  static const int threshold = [] {
    const char* setting = std::getenv("FLOE_LOG");
    if (setting == nullptr) return static_cast<int>(LogLevel::kWarning);
    if (std::strcmp(setting, "debug") == 0) return static_cast<int>(LogLevel::kDebug);
    if (std::strcmp(setting, "info") == 0) return static_cast<int>(LogLevel::kInfo);
    if (std::strcmp(setting, "off") == 0) return 100;
    return static_cast<int>(LogLevel::kWarning);
  }();
  return threshold;
}

}  // namespace

void Log(LogLevel level, std::string_view message) {
  if (static_cast<int>(level) < Threshold()) return;
  static std::mutex mutex;
  const char* name = level == LogLevel::kDebug  ? "debug"
                     : level == LogLevel::kInfo ? "info"
                                                : "warning";
  std::lock_guard<std::mutex> lock(mutex);
  std::fprintf(stderr, "floe: %s: %.*s\n", name, static_cast<int>(message.size()),
               message.data());
}

}  // namespace floe
