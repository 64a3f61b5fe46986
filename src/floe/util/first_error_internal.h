// The first error of work spread over threads (a write's tasks, a compaction's workers):
// later errors, often consequences of the first (a cancelled queue), are dropped.
#pragma once

#include "arrow/status.h"
#include "floe/util/mutex.h"

namespace floe {

/// Thread-safe.
class FirstError {
 public:
  /// Keeps `status` if it is an error and none was kept before; true when it was kept.
  bool Record(const arrow::Status& status) FLOE_EXCLUDES(mutex_) {
    if (status.ok()) return false;
    MutexLock lock(&mutex_);
    if (!status_.ok()) return false;
    status_ = status;
    return true;
  }
  /// True while no error was recorded.
  bool ok() const FLOE_EXCLUDES(mutex_) {
    MutexLock lock(&mutex_);
    return status_.ok();
  }
  /// The error recorded first, or OK.
  arrow::Status status() const FLOE_EXCLUDES(mutex_) {
    MutexLock lock(&mutex_);
    return status_;
  }

 private:
  mutable Mutex mutex_;
  arrow::Status status_ FLOE_GUARDED_BY(mutex_);
};

}  // namespace floe
