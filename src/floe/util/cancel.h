// Cancelling long-running work. Two ways to ask, both checked at the points where writes,
// commits, scans and maintenance can stop safely:
//  - the process-wide request, which the floe command's SIGINT and SIGTERM handlers make
//    (the whole process is stopping);
//  - a CancellationToken, which cancels one operation only: a binding gives each call its
//    own token (one Python thread's Ctrl-C, or a progress callback that raises, stops
//    that thread's write and no other).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string_view>
#include <thread>

#include "arrow/status.h"

namespace floe {

/// Asks the work running in this process to stop, remembering `signal` (0 when not a
/// signal). Async-signal-safe: it only stores to lock-free atomics. Work that sees the
/// request fails with Cancelled at its next safe point, deleting what it wrote; work
/// past its commit point completes.
void RequestCancel(int signal = 0) noexcept;

/// The signal passed to RequestCancel (0 when none).
int CancelSignal() noexcept;

/// Clears the process-wide request (for tests).
void ResetCancel() noexcept;

/// A request to stop one operation. Shared by the thread that may cancel and every
/// thread the operation runs on; thread-safe.
class CancellationToken {
 public:
  CancellationToken() = default;
  CancellationToken(const CancellationToken&) = delete;
  CancellationToken& operator=(const CancellationToken&) = delete;

  /// Asks the operation to stop at its next safe point. Lock-free.
  void Cancel() noexcept { cancelled_.store(true, std::memory_order_release); }
  bool cancelled() const noexcept { return cancelled_.load(std::memory_order_acquire); }

 private:
  std::atomic<bool> cancelled_{false};
};

/// The token of the operation running on this thread (null when none).
const std::shared_ptr<CancellationToken>& CurrentCancellationToken() noexcept;

/// Makes `token` the current thread's token for the scope's lifetime, restoring the
/// previous one after. A thread that floe starts for an operation opens a scope with the
/// token of the thread that started it, so cancelling the operation reaches all of its
/// threads and no other operation's.
class CancellationScope {
 public:
  explicit CancellationScope(std::shared_ptr<CancellationToken> token) noexcept;
  ~CancellationScope();
  CancellationScope(const CancellationScope&) = delete;
  CancellationScope& operator=(const CancellationScope&) = delete;

 private:
  std::shared_ptr<CancellationToken> previous_;
};

/// Starts a thread running `work` within the calling thread's operation (under its
/// cancellation token): how floe starts every thread of one operation.
template <typename Work>
std::thread StartOperationThread(Work work) {
  return std::thread(
      [token = CurrentCancellationToken(), work = std::move(work)]() mutable {
        CancellationScope scope(std::move(token));
        work();
      });
}

/// True when the process-wide request was made (until ResetCancel) or this thread's
/// operation was cancelled.
bool CancelRequested() noexcept;

/// OK, or Cancelled naming `what` when CancelRequested().
arrow::Status CheckCancelled(std::string_view what);

}  // namespace floe
