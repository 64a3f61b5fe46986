// libFuzzer: deletion-vector blobs (Puffin "deletion-vector-v1": length, magic, 64-bit
// Roaring bitmap in the portable format, CRC-32). Inputs with an odd first byte are
// wrapped in a valid length, magic and CRC so the fuzzer reaches the bitmap decoder.
// Invariant: positions or a clear InvalidMetadata error; no crash, no huge allocation.
// Seeds: two blobs iceberg-java 1.11 wrote (BaseDVFileWriter, via tests/parity), raw and
// as bare bitmaps.
#include <zlib.h>

#include <cstdint>
#include <string>

#include "floe/iceberg/scan/delete_files.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string blob;
  if (size > 0 && data[0] % 2 == 1) {
    std::string body("\xD1\xD3\x39\x64", 4);
    body.append(reinterpret_cast<const char*>(data) + 1, size - 1);
    auto length = static_cast<uint32_t>(body.size());
    for (int shift = 24; shift >= 0; shift -= 8)
      blob.push_back(static_cast<char>(length >> shift));
    blob += body;
    auto crc = static_cast<uint32_t>(crc32(crc32(0L, Z_NULL, 0),
                                           reinterpret_cast<const Bytef*>(body.data()),
                                           static_cast<uInt>(body.size())));
    for (int shift = 24; shift >= 0; shift -= 8)
      blob.push_back(static_cast<char>(crc >> shift));
  } else {
    blob.assign(reinterpret_cast<const char*>(data), size);
  }
  auto positions = floe::iceberg::DecodeDeletionVector(blob, "fuzz.puffin", 4096);
  if (!positions.ok() && positions.status().message().empty()) __builtin_trap();
  return 0;
}
