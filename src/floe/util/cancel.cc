#include "floe/util/cancel.h"

#include <string>
#include <utility>

#include "floe/util/error.h"

namespace floe {
namespace {

std::atomic<bool> cancel_requested{false};
std::atomic<int> cancel_signal{0};
static_assert(std::atomic<bool>::is_always_lock_free &&
                  std::atomic<int>::is_always_lock_free,
              "RequestCancel must be async-signal-safe");

thread_local std::shared_ptr<CancellationToken> current_token;

}  // namespace

void RequestCancel(int signal) noexcept {
  cancel_signal.store(signal, std::memory_order_relaxed);
  cancel_requested.store(true, std::memory_order_release);
}

int CancelSignal() noexcept { return cancel_signal.load(std::memory_order_relaxed); }

void ResetCancel() noexcept {
  cancel_requested.store(false, std::memory_order_release);
  cancel_signal.store(0, std::memory_order_relaxed);
}

const std::shared_ptr<CancellationToken>& CurrentCancellationToken() noexcept {
  return current_token;
}

CancellationScope::CancellationScope(std::shared_ptr<CancellationToken> token) noexcept
    : previous_(std::exchange(current_token, std::move(token))) {}

CancellationScope::~CancellationScope() { current_token = std::move(previous_); }

bool CancelRequested() noexcept {
  if (cancel_requested.load(std::memory_order_acquire)) return true;
  const auto& token = current_token;
  return token != nullptr && token->cancelled();
}

arrow::Status CheckCancelled(std::string_view what) {
  if (!CancelRequested()) return arrow::Status::OK();
  return MakeError(ErrorKind::kCancelled, std::string(what) + ": cancelled");
}

}  // namespace floe
