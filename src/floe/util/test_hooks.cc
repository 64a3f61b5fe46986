#include "floe/util/test_hooks.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

namespace floe {

void TestPausePoint(std::string_view point) {
  const char* wanted = std::getenv("FLOE_TEST_PAUSE_AT");
  if (wanted == nullptr || point != wanted) return;
  long long ms = 60000;
  if (const char* text = std::getenv("FLOE_TEST_PAUSE_MS")) ms = std::atoll(text);
  std::string line = "floe: test: paused at " + std::string(point) + "\n";
  std::fputs(line.c_str(), stderr);
  std::fflush(stderr);
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
}

}  // namespace floe
