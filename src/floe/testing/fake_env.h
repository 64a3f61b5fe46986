// FakeEnv: an Env for tests whose clocks move only when something sleeps or the test
// advances them, whose random numbers repeat from a seed, and whose environment
// variables are the test's own.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <string_view>

#include "floe/util/env.h"
#include "floe/util/mutex.h"

namespace floe::testing {

class FakeEnv final : public EnvWrapper {
 public:
  /// Starts at `now_ms` on the wall clock (2026-01-01 by default) and 0 on the monotonic
  /// one. Temporary directories are the real environment's.
  explicit FakeEnv(int64_t now_ms = 1767225600000, uint64_t seed = 42)
      : EnvWrapper(Env::Default()), now_us_(now_ms * 1000), random_(seed) {}

  int64_t NowMillis() override {
    MutexLock lock(&mutex_);
    return now_us_ / 1000;
  }
  int64_t MonotonicMicros() override {
    MutexLock lock(&mutex_);
    return now_us_ - start_us_;
  }
  /// Returns at once, moving both clocks forward by `micros` and counting the sleep.
  void SleepForMicros(int64_t micros) override {
    MutexLock lock(&mutex_);
    if (micros <= 0) return;
    now_us_ += micros;
    slept_us_ += micros;
    ++sleeps_;
  }
  uint64_t RandomUint64() override {
    MutexLock lock(&mutex_);
    return random_();
  }
  /// Only the variables SetVar set: the process's environment is not consulted.
  std::optional<std::string> GetVar(std::string_view name) override {
    MutexLock lock(&mutex_);
    auto found = vars_.find(std::string(name));
    if (found == vars_.end()) return std::nullopt;
    return found->second;
  }

  void SetVar(const std::string& name, const std::string& value) {
    MutexLock lock(&mutex_);
    vars_[name] = value;
  }
  /// Moves both clocks forward without a sleep.
  void Advance(int64_t micros) {
    MutexLock lock(&mutex_);
    now_us_ += micros;
  }
  /// The total of every SleepForMicros, and how many there were.
  int64_t slept_micros() const {
    MutexLock lock(&mutex_);
    return slept_us_;
  }
  int sleeps() const {
    MutexLock lock(&mutex_);
    return sleeps_;
  }

 private:
  mutable Mutex mutex_;
  int64_t now_us_ FLOE_GUARDED_BY(mutex_);
  const int64_t start_us_ = now_us_;
  int64_t slept_us_ FLOE_GUARDED_BY(mutex_) = 0;
  int sleeps_ FLOE_GUARDED_BY(mutex_) = 0;
  std::mt19937_64 random_ FLOE_GUARDED_BY(mutex_);
  std::map<std::string, std::string> vars_ FLOE_GUARDED_BY(mutex_);
};

}  // namespace floe::testing
