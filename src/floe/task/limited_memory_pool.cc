#include "floe/task/limited_memory_pool.h"

#include <cctype>
#include <charconv>

#include "floe/util/error.h"

namespace floe {

LimitedMemoryPool::LimitedMemoryPool(arrow::MemoryPool* parent, int64_t limit)
    : parent_(parent), limit_(limit) {}

bool LimitedMemoryPool::Reserve(int64_t bytes) {
  int64_t current = used_.load();
  while (true) {
    if (current + bytes > limit_) return false;
    if (used_.compare_exchange_weak(current, current + bytes)) break;
  }
  int64_t now = current + bytes;
  int64_t peak = peak_.load();
  while (now > peak && !peak_.compare_exchange_weak(peak, now)) {
  }
  return true;
}

arrow::Status LimitedMemoryPool::Allocate(int64_t size, int64_t alignment,
                                          uint8_t** out) {
  if (!Reserve(size)) {
    return arrow::Status::OutOfMemory("allocating ", size,
                                      " bytes would pass the memory limit of ", limit_,
                                      " bytes (", used_.load(), " in use)");
  }
  auto status = parent_->Allocate(size, alignment, out);
  if (!status.ok()) {
    used_ -= size;
    return status;
  }
  total_ += size;
  ++allocations_;
  return status;
}

arrow::Status LimitedMemoryPool::Reallocate(int64_t old_size, int64_t new_size,
                                            int64_t alignment, uint8_t** ptr) {
  int64_t growth = new_size - old_size;
  if (growth > 0 && !Reserve(growth)) {
    return arrow::Status::OutOfMemory("growing a buffer to ", new_size,
                                      " bytes would pass the memory limit of ", limit_,
                                      " bytes (", used_.load(), " in use)");
  }
  auto status = parent_->Reallocate(old_size, new_size, alignment, ptr);
  if (!status.ok()) {
    if (growth > 0) used_ -= growth;
    return status;
  }
  if (growth < 0) used_ += growth;
  if (growth > 0) total_ += growth;
  ++allocations_;
  return status;
}

void LimitedMemoryPool::Free(uint8_t* buffer, int64_t size, int64_t alignment) {
  parent_->Free(buffer, size, alignment);
  used_ -= size;
}

}  // namespace floe
