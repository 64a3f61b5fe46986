#include "floe/util/test_hooks_internal.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "floe/util/env.h"
#include "floe/util/number_text.h"

namespace floe {

void TestPausePoint(std::string_view point) {
  Env* env = Env::Default();
  if (auto thrown = env->GetVar("FLOE_TEST_THROW_AT"); thrown && point == *thrown) {
    throw std::out_of_range("floe: test: thrown at " + std::string(point));
  }
  auto wanted = env->GetVar("FLOE_TEST_PAUSE_AT");
  if (!wanted || point != *wanted) return;
  int64_t ms = 60000;
  if (auto text = env->GetVar("FLOE_TEST_PAUSE_MS")) {
    ms = std::clamp<int64_t>(ParseJavaLong(*text).value_or(ms), 0, int64_t{1} << 40);
  }
  std::string line = "floe: test: paused at " + std::string(point) + "\n";
  std::fputs(line.c_str(), stderr);
  std::fflush(stderr);
  env->SleepForMicros(ms * 1000);
}

}  // namespace floe
