#include "floe/util/test_hooks.h"

#include <cstdio>
#include <cstdlib>
#include <string>

#include "floe/util/env.h"

namespace floe {

void TestPausePoint(std::string_view point) {
  Env* env = Env::Default();
  auto wanted = env->GetVar("FLOE_TEST_PAUSE_AT");
  if (!wanted || point != *wanted) return;
  long long ms = 60000;
  if (auto text = env->GetVar("FLOE_TEST_PAUSE_MS")) ms = std::atoll(text->c_str());
  std::string line = "floe: test: paused at " + std::string(point) + "\n";
  std::fputs(line.c_str(), stderr);
  std::fflush(stderr);
  env->SleepForMicros(ms * 1000);
}

}  // namespace floe
