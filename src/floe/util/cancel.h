// Cancelling long-running work: a process-wide flag that a signal handler (the floe
// command's SIGINT and SIGTERM handlers) or a binding's interrupt handler sets, and that
// writes, commits, scans and maintenance check at points where stopping is safe.
#pragma once

#include <cstdint>
#include <string_view>

#include "arrow/status.h"

namespace floe {

/// Asks the work running in this process to stop, remembering `signal` (0 when not a
/// signal). Async-signal-safe: it only stores to lock-free atomics. Work that sees the
/// request fails with Cancelled at its next safe point, deleting what it wrote; work
/// past its commit point completes.
void RequestCancel(int signal = 0) noexcept;

/// True once RequestCancel was called (until ResetCancel).
bool CancelRequested() noexcept;

/// The signal passed to RequestCancel (0 when none).
int CancelSignal() noexcept;

/// Clears the request (for tests, and for a binding that handled one interrupt).
void ResetCancel() noexcept;

/// OK, or Cancelled naming `what` when cancellation was requested.
arrow::Status CheckCancelled(std::string_view what);

}  // namespace floe
