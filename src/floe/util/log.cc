#include "floe/util/log.h"

#include "floe/util/env.h"
#include "floe/util/mutex.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace floe {
namespace {

int Threshold() {
  static const int kThreshold = [] {
    auto setting = Env::Default()->GetVar("FLOE_LOG");
    if (!setting) return static_cast<int>(LogLevel::kWarning);
    if (*setting == "debug") return static_cast<int>(LogLevel::kDebug);
    if (*setting == "info") return static_cast<int>(LogLevel::kInfo);
    if (*setting == "off") return 100;
    return static_cast<int>(LogLevel::kWarning);
  }();
  return kThreshold;
}

}  // namespace

void Log(LogLevel level, std::string_view message) {
  if (static_cast<int>(level) < Threshold()) return;
  static Mutex mutex;  // one line at a time on stderr
  const char* name = level == LogLevel::kDebug  ? "debug"
                     : level == LogLevel::kInfo ? "info"
                                                : "warning";
  MutexLock lock(&mutex);
  std::fprintf(stderr, "floe: %s: %.*s\n", name, static_cast<int>(message.size()),
               message.data());
}

}  // namespace floe
