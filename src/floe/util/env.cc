#include "floe/util/env.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <thread>

#include "arrow/status.h"
#include "floe/util/cancel.h"

namespace floe {
namespace {

class PosixEnv final : public Env {
 public:
  int64_t NowMillis() override {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }

  int64_t MonotonicMicros() override {
    return std::chrono::duration_cast<std::chrono::microseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }

  void SleepForMicros(int64_t micros) override {
    if (micros > 0) std::this_thread::sleep_for(std::chrono::microseconds(micros));
  }

  uint64_t RandomUint64() override {
    // One generator per thread, seeded from the system's entropy: no lock, no sharing.
    thread_local std::mt19937_64 generator = [] {
      std::random_device device;
      std::seed_seq seed{device(), device(), device(), device(), device(), device()};
      return std::mt19937_64(seed);
    }();
    return generator();
  }

  std::optional<std::string> GetVar(std::string_view name) override {
    const char* value = std::getenv(std::string(name).c_str());
    if (value == nullptr) return std::nullopt;
    return std::string(value);
  }

  arrow::Result<std::string> TemporaryDirectory() override {
    std::error_code error;
    auto base = std::filesystem::temp_directory_path(error);
    if (error) {
      return arrow::Status::IOError("TMPDIR '", GetVar("TMPDIR").value_or(""),
                                    "' is not a directory (", error.message(),
                                    "): set TMPDIR to a local directory with room");
    }
    return base.string();
  }
};

}  // namespace

Env* Env::Default() {
  static auto* env = new PosixEnv();  // never destroyed: threads may outlive main
  return env;
}

arrow::Status Env::SleepUnlessCancelled(int64_t milliseconds, std::string_view what) {
  // A wait from a property (commit.retry.max-wait-ms) may be any long: at most about 35
  // years, so the deadline in microseconds cannot overflow.
  const int64_t bounded = std::clamp<int64_t>(milliseconds, 0, int64_t{1} << 40);
  const int64_t until = MonotonicMicros() + bounded * 1000;
  while (!CancelRequested()) {
    const int64_t now = MonotonicMicros();
    if (now >= until) break;
    SleepForMicros(std::min<int64_t>(until - now, 10000));
  }
  return CheckCancelled(what);
}

}  // namespace floe
