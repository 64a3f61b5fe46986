#include "floe/util/murmur3_internal.h"

#include <cstring>

namespace floe {
namespace {

constexpr uint32_t kC1 = 0xcc9e2d51;
constexpr uint32_t kC2 = 0x1b873593;

inline uint32_t RotateLeft(uint32_t value, int shift) {
  return (value << shift) | (value >> (32 - shift));
}

inline uint32_t MixK1(uint32_t k1) {
  k1 *= kC1;
  k1 = RotateLeft(k1, 15);
  return k1 * kC2;
}

inline uint32_t MixH1(uint32_t h1, uint32_t k1) {
  h1 ^= k1;
  h1 = RotateLeft(h1, 13);
  return h1 * 5 + 0xe6546b64;
}

inline uint32_t Finalize(uint32_t h1, size_t length) {
  h1 ^= static_cast<uint32_t>(length);
  h1 ^= h1 >> 16;
  h1 *= 0x85ebca6b;
  h1 ^= h1 >> 13;
  h1 *= 0xc2b2ae35;
  h1 ^= h1 >> 16;
  return h1;
}

}  // namespace

int32_t Murmur3Hash32(const uint8_t* data, size_t size) {
  uint32_t h1 = 0;
  size_t blocks = size / 4;
  for (size_t i = 0; i < blocks; ++i) {
    uint32_t k1;
    std::memcpy(&k1, data + 4 * i, 4);  // little-endian reads, as Guava does
    h1 = MixH1(h1, MixK1(k1));
  }
  const uint8_t* tail = data + 4 * blocks;
  uint32_t k1 = 0;
  switch (size & 3) {
    case 3:
      k1 ^= static_cast<uint32_t>(tail[2]) << 16;
      [[fallthrough]];
    case 2:
      k1 ^= static_cast<uint32_t>(tail[1]) << 8;
      [[fallthrough]];
    case 1:
      k1 ^= tail[0];
      h1 ^= MixK1(k1);
      break;
    default:
      break;
  }
  return static_cast<int32_t>(Finalize(h1, size));
}

int32_t Murmur3HashLong(int64_t value) {
  uint8_t bytes[8];
  std::memcpy(bytes, &value, 8);
  return Murmur3Hash32(bytes, 8);
}

}  // namespace floe
