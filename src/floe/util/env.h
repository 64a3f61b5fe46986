// Env: everything floe asks of the machine besides storage (which is FileIO's): the
// clocks, sleeping, random numbers, temporary directories and environment variables,
// behind one interface (as LevelDB's Env) so that tests can control time and randomness.
//
// Code that needs one of these takes an `Env*` from its options (CommitTarget,
// CatalogOptions, WriteTask, the maintenance options), defaulting to Env::Default(); it
// never calls std::chrono clocks, std::this_thread::sleep_for, std::random_device,
// std::getenv or std::filesystem::temp_directory_path itself.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "arrow/result.h"

namespace floe {

class Env {
 public:
  virtual ~Env() = default;

  /// The process's real environment. Never null, never destroyed; thread-safe.
  static Env* Default();

  /// Wall-clock time: milliseconds since the Unix epoch (snapshot timestamps,
  /// last-updated-ms, file ages for maintenance).
  virtual int64_t NowMillis() = 0;
  /// A monotonic clock in microseconds from an arbitrary origin (timeouts, elapsed time).
  virtual int64_t MonotonicMicros() = 0;
  /// Blocks the calling thread for `micros` (no-op when not positive).
  virtual void SleepForMicros(int64_t micros) = 0;
  /// 64 uniformly random bits. Thread-safe.
  virtual uint64_t RandomUint64() = 0;
  /// The value of environment variable `name`, or nullopt when unset.
  virtual std::optional<std::string> GetVar(std::string_view name) = 0;
  /// The directory temporary files go in: TMPDIR when set, else the system's. A TMPDIR
  /// that is not a directory gives IOError naming it (it is never silently bypassed).
  virtual arrow::Result<std::string> TemporaryDirectory() = 0;

  /// Sleeps for `milliseconds` in slices of at most 10 ms, waking early when cancellation
  /// is requested (util/cancel.h); returns Cancelled naming `what` when it was.
  arrow::Status SleepUnlessCancelled(int64_t milliseconds, std::string_view what);
};

/// Forwards every call to another Env; derive from it to override a few.
class EnvWrapper : public Env {
 public:
  explicit EnvWrapper(Env* target) : target_(target) {}

  int64_t NowMillis() override { return target_->NowMillis(); }
  int64_t MonotonicMicros() override { return target_->MonotonicMicros(); }
  void SleepForMicros(int64_t micros) override { target_->SleepForMicros(micros); }
  uint64_t RandomUint64() override { return target_->RandomUint64(); }
  std::optional<std::string> GetVar(std::string_view name) override {
    return target_->GetVar(name);
  }
  arrow::Result<std::string> TemporaryDirectory() override {
    return target_->TemporaryDirectory();
  }

  Env* target() const { return target_; }

 private:
  Env* target_;
};

}  // namespace floe
