// MurmurHash3 x86_32 with seed 0: Guava's murmur3_32_fixed, which Iceberg's bucket
// transform and object-storage location provider hash with.
#pragma once

#include <cstddef>
#include <cstdint>

namespace floe {

/// The 32-bit hash of `size` bytes.
int32_t Murmur3Hash32(const uint8_t* data, size_t size);

/// The hash of a long as its 8 little-endian bytes (Guava's hashLong).
int32_t Murmur3HashLong(int64_t value);

}  // namespace floe
