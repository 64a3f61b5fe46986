// A memory pool with a ceiling, so a write that needs more memory than it was given fails
// with an error that says so, instead of the process being killed.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "arrow/memory_pool.h"

namespace floe {

/// Forwards to `parent` while the bytes it holds stay within `limit`; an allocation past
/// the limit fails with OutOfMemory. Thread-safe (tasks of one write may share one pool).
class LimitedMemoryPool final : public arrow::MemoryPool {
 public:
  LimitedMemoryPool(arrow::MemoryPool* parent, int64_t limit);

  arrow::Status Allocate(int64_t size, int64_t alignment, uint8_t** out) override;
  arrow::Status Reallocate(int64_t old_size, int64_t new_size, int64_t alignment,
                           uint8_t** ptr) override;
  void Free(uint8_t* buffer, int64_t size, int64_t alignment) override;

  int64_t bytes_allocated() const override { return used_.load(); }
  int64_t max_memory() const override { return peak_.load(); }
  int64_t total_bytes_allocated() const override { return total_.load(); }
  int64_t num_allocations() const override { return allocations_.load(); }
  std::string backend_name() const override { return parent_->backend_name(); }
  int64_t limit() const { return limit_; }

 private:
  bool Reserve(int64_t bytes);

  arrow::MemoryPool* parent_;
  int64_t limit_;
  std::atomic<int64_t> used_{0};
  std::atomic<int64_t> peak_{0};
  std::atomic<int64_t> total_{0};
  std::atomic<int64_t> allocations_{0};
};

}  // namespace floe
