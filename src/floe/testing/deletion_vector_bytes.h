// Test input for deletion-vector decoders: 64-bit Roaring bitmaps in the portable form
// (array containers), and the framed blob Iceberg's Puffin files and Delta's deletion
// vector files both store. Built byte by byte here, from RoaringFormatSpec.
#pragma once

#include <zlib.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace floe::testing {

inline std::string Le16(uint16_t v) {
  return {static_cast<char>(v & 0xFF), static_cast<char>(v >> 8)};
}
inline std::string Le32(uint32_t v) { return Le16(v & 0xFFFF) + Le16(v >> 16); }
inline std::string Be32(uint32_t v) {
  return {static_cast<char>(v >> 24), static_cast<char>((v >> 16) & 0xFF),
          static_cast<char>((v >> 8) & 0xFF), static_cast<char>(v & 0xFF)};
}

/// The magic number and `bitmap` framed: big-endian length, the bytes, big-endian CRC-32.
inline std::string Blob(const std::string& bitmap) {
  std::string body = std::string("\xD1\xD3\x39\x64", 4) + bitmap;
  auto crc = static_cast<uint32_t>(crc32(crc32(0L, Z_NULL, 0),
                                         reinterpret_cast<const Bytef*>(body.data()),
                                         static_cast<uInt>(body.size())));
  return Be32(static_cast<uint32_t>(body.size())) + body + Be32(crc);
}

/// One bucket (high 32 bits = `high`) holding one array container (key 0) of `values`.
inline std::string ArrayBitmap(uint32_t high, const std::vector<uint16_t>& values) {
  std::string out = std::string(8, '\0');
  out[0] = 1;  // one bucket
  out += Le32(high);
  out += Le32(12346) + Le32(1);  // no-run cookie, one container
  out += Le16(0) + Le16(static_cast<uint16_t>(values.size() - 1));
  out += Le32(0);  // offset (present without runs)
  for (uint16_t v : values) out += Le16(v);
  return out;
}

/// Any ascending positions (at most 4096 per 65536-row container), as array containers.
inline std::string PortableBitmap(const std::vector<int64_t>& positions) {
  std::map<uint32_t, std::map<uint16_t, std::vector<uint16_t>>> buckets;
  for (int64_t p : positions) {
    const auto value = static_cast<uint64_t>(p);
    buckets[static_cast<uint32_t>(value >> 32)][static_cast<uint16_t>(value >> 16)]
        .push_back(static_cast<uint16_t>(value));
  }
  std::string out = std::string(8, '\0');
  out[0] = static_cast<char>(buckets.size());
  for (const auto& [high, containers] : buckets) {
    out += Le32(high);
    out += Le32(12346) + Le32(static_cast<uint32_t>(containers.size()));
    std::string headers, offsets, values;
    const uint32_t start = 8 + 8 * static_cast<uint32_t>(containers.size());
    for (const auto& [key, low] : containers) {
      headers += Le16(key) + Le16(static_cast<uint16_t>(low.size() - 1));
      offsets += Le32(start + static_cast<uint32_t>(values.size()));
      for (uint16_t v : low) values += Le16(v);
    }
    out += headers + offsets + values;
  }
  return out;
}

}  // namespace floe::testing
