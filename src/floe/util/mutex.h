// A mutex, its scoped lock and a condition variable that Clang's thread-safety analysis
// understands (-Wthread-safety, on in Clang builds: see cmake/FloeTargets.cmake). A
// member a mutex guards is declared FLOE_GUARDED_BY(mutex_); a function that must be
// called with the mutex held says FLOE_REQUIRES(mutex_). The analysis then refuses, at
// compile time, a read or write of the member without the lock. LevelDB's port::Mutex and
// Abseil's Mutex are the model; std::mutex carries no annotations, so floe's code holds
// these instead.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>

#if defined(__clang__)
#define FLOE_THREAD_ANNOTATION(x) __attribute__((x))
#else
#define FLOE_THREAD_ANNOTATION(x)
#endif

#define FLOE_CAPABILITY(x) FLOE_THREAD_ANNOTATION(capability(x))
#define FLOE_SCOPED_CAPABILITY FLOE_THREAD_ANNOTATION(scoped_lockable)
#define FLOE_GUARDED_BY(x) FLOE_THREAD_ANNOTATION(guarded_by(x))
#define FLOE_PT_GUARDED_BY(x) FLOE_THREAD_ANNOTATION(pt_guarded_by(x))
#define FLOE_REQUIRES(...) FLOE_THREAD_ANNOTATION(requires_capability(__VA_ARGS__))
#define FLOE_EXCLUDES(...) FLOE_THREAD_ANNOTATION(locks_excluded(__VA_ARGS__))
#define FLOE_ACQUIRE(...) FLOE_THREAD_ANNOTATION(acquire_capability(__VA_ARGS__))
#define FLOE_RELEASE(...) FLOE_THREAD_ANNOTATION(release_capability(__VA_ARGS__))
#define FLOE_ASSERT_CAPABILITY(x) FLOE_THREAD_ANNOTATION(assert_capability(x))
#define FLOE_NO_THREAD_SAFETY_ANALYSIS FLOE_THREAD_ANNOTATION(no_thread_safety_analysis)

namespace floe {

class CondVar;

/// A non-recursive mutex. Thread-safe; not copyable or movable.
class FLOE_CAPABILITY("mutex") Mutex {
 public:
  Mutex() = default;
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;

  void Lock() FLOE_ACQUIRE() { mutex_.lock(); }
  void Unlock() FLOE_RELEASE() { mutex_.unlock(); }
  /// Tells the analysis the caller holds the mutex (it checks nothing at run time).
  void AssertHeld() const FLOE_ASSERT_CAPABILITY(this) {}

 private:
  friend class CondVar;
  std::mutex mutex_;
};

/// Holds a Mutex for its scope.
class FLOE_SCOPED_CAPABILITY MutexLock {
 public:
  explicit MutexLock(Mutex* mutex) FLOE_ACQUIRE(mutex) : mutex_(mutex) { mutex_->Lock(); }
  ~MutexLock() FLOE_RELEASE() { mutex_->Unlock(); }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

 private:
  Mutex* const mutex_;
};

/// A condition variable waited on with its Mutex held. Wait in a loop over the condition
/// (`while (!ready_) changed_.Wait(&mutex_);`): the analysis sees the guarded reads
/// there, which it cannot in a predicate lambda. Thread-safe.
class CondVar {
 public:
  CondVar() = default;
  CondVar(const CondVar&) = delete;
  CondVar& operator=(const CondVar&) = delete;

  /// Releases `mutex` while waiting; holds it again on return (also on a spurious
  /// wake-up).
  void Wait(Mutex* mutex) FLOE_REQUIRES(mutex) {
    std::unique_lock<std::mutex> lock(mutex->mutex_, std::adopt_lock);
    condition_.wait(lock);
    lock.release();
  }
  /// As Wait, for at most `timeout`; false when it timed out.
  template <typename Rep, typename Period>
  bool WaitFor(Mutex* mutex, std::chrono::duration<Rep, Period> timeout)
      FLOE_REQUIRES(mutex) {
    std::unique_lock<std::mutex> lock(mutex->mutex_, std::adopt_lock);
    const bool woken = condition_.wait_for(lock, timeout) == std::cv_status::no_timeout;
    lock.release();
    return woken;
  }
  void Signal() { condition_.notify_one(); }
  void SignalAll() { condition_.notify_all(); }

 private:
  std::condition_variable condition_;
};

}  // namespace floe
