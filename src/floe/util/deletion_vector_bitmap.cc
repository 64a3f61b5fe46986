#include "floe/util/deletion_vector_bitmap.h"

#include <zlib.h>

#include <cstring>

#include "floe/util/error.h"

namespace floe {
namespace {

// Little-endian and big-endian reads, bounds checked by the caller.
uint32_t Le32(const unsigned char* p) {
  return uint32_t{p[0]} | (uint32_t{p[1]} << 8) | (uint32_t{p[2]} << 16) |
         (uint32_t{p[3]} << 24);
}
uint16_t Le16(const unsigned char* p) {
  return static_cast<uint16_t>(p[0] | (p[1] << 8));
}
uint64_t Le64(const unsigned char* p) {
  return uint64_t{Le32(p)} | (uint64_t{Le32(p + 4)} << 32);
}
uint32_t Be32(const unsigned char* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) |
         uint32_t{p[3]};
}

// A 32-bit Roaring bitmap in the portable serialization (RoaringFormatSpec), its values
// ORed with `high` << 32 into `out`. Returns the bytes consumed.
arrow::Result<size_t> DecodeRoaring32(const unsigned char* data, size_t size,
                                      uint64_t high, int64_t max_positions,
                                      std::vector<int64_t>* out,
                                      const std::string& where) {
  auto bad = [&](const std::string& what) {
    return MakeError(ErrorKind::kInvalidMetadata,
                     "deletion vector in " + where + ": " + what);
  };
  constexpr uint32_t kCookieNoRun = 12346;
  constexpr uint32_t kCookieRun = 12347;
  size_t at = 0;
  if (size < 4) return bad("truncated bitmap header");
  uint32_t cookie = Le32(data);
  uint32_t containers = 0;
  std::vector<bool> is_run;
  if ((cookie & 0xFFFF) == kCookieRun) {
    containers = (cookie >> 16) + 1;
    at = 4;
    size_t run_bytes = (containers + 7) / 8;
    if (size < at + run_bytes) return bad("truncated run flags");
    for (uint32_t i = 0; i < containers; ++i)
      is_run.push_back((data[at + i / 8] >> (i % 8)) & 1);
    at += run_bytes;
  } else if (cookie == kCookieNoRun) {
    if (size < 8) return bad("truncated bitmap header");
    containers = Le32(data + 4);
    at = 8;
    is_run.assign(containers, false);
  } else {
    return bad("unknown Roaring cookie");
  }
  if (containers > 65536) return bad("too many containers");
  if (size < at + size_t{containers} * 4) return bad("truncated container headers");
  std::vector<uint16_t> keys(containers);
  std::vector<uint32_t> cardinalities(containers);
  for (uint32_t i = 0; i < containers; ++i) {
    keys[i] = Le16(data + at + 4 * i);
    cardinalities[i] = uint32_t{Le16(data + at + 4 * i + 2)} + 1;
  }
  at += size_t{containers} * 4;
  // Offsets follow when there is no run container or at least 4 containers.
  if (cookie == kCookieNoRun || containers >= 4) {
    if (size < at + size_t{containers} * 4) return bad("truncated offsets");
    at += size_t{containers} * 4;
  }
  for (uint32_t i = 0; i < containers; ++i) {
    // Checked before each container adds at most 65536 more, so a small hostile blob
    // cannot claim billions of positions.
    if (static_cast<int64_t>(out->size()) > max_positions) {
      return bad("more positions than the record count or cardinality allows (" +
                 std::to_string(max_positions) + ")");
    }
    if (i > 0 && keys[i] <= keys[i - 1]) return bad("container keys out of order");
    uint64_t base = (high << 32) | (uint64_t{keys[i]} << 16);
    if (is_run[i]) {
      if (size < at + 2) return bad("truncated run container");
      uint16_t runs = Le16(data + at);
      at += 2;
      if (size < at + size_t{runs} * 4) return bad("truncated run container");
      for (uint16_t r = 0; r < runs; ++r) {
        uint32_t start = Le16(data + at + 4 * r);
        uint32_t length = Le16(data + at + 4 * r + 2);
        if (start + length > 0xFFFF) return bad("run past the container");
        if (static_cast<int64_t>(out->size()) > max_positions) {
          return bad("more positions than the record count or cardinality allows (" +
                     std::to_string(max_positions) + ")");
        }
        for (uint32_t v = start; v <= start + length; ++v)
          out->push_back(static_cast<int64_t>(base | v));
      }
      at += size_t{runs} * 4;
    } else if (cardinalities[i] > 4096) {
      if (size < at + 8192) return bad("truncated bitmap container");
      for (uint32_t word = 0; word < 1024; ++word) {
        uint64_t bits = Le64(data + at + 8 * word);
        while (bits) {
          int bit = __builtin_ctzll(bits);
          out->push_back(static_cast<int64_t>(base | (word * 64 + bit)));
          bits &= bits - 1;
        }
      }
      at += 8192;
    } else {
      if (size < at + size_t{cardinalities[i]} * 2)
        return bad("truncated array container");
      for (uint32_t v = 0; v < cardinalities[i]; ++v)
        out->push_back(static_cast<int64_t>(base | Le16(data + at + 2 * v)));
      at += size_t{cardinalities[i]} * 2;
    }
  }
  return at;
}

}  // namespace

arrow::Result<std::vector<int64_t>> DecodeFramedDeletionVector(std::string_view blob,
                                                               const std::string& where,
                                                               int64_t max_positions) {
  auto bad = [&](const std::string& what) {
    return MakeError(ErrorKind::kInvalidMetadata,
                     "deletion vector in " + where + ": " + what);
  };
  const auto* data = reinterpret_cast<const unsigned char*>(blob.data());
  if (blob.size() < 12) return bad("too short");
  // Length (big-endian) of magic + bitmap, the magic, the bitmap, then a CRC-32 of magic
  // and bitmap (big-endian).
  uint32_t length = Be32(data);
  if (length < 4 || size_t{length} + 8 != blob.size())
    return bad("length does not match");
  static constexpr unsigned char kMagic[] = {0xD1, 0xD3, 0x39, 0x64};
  if (std::memcmp(data + 4, kMagic, 4) != 0) return bad("wrong magic");
  uint32_t expected_crc = Be32(data + 4 + length);
  uLong crc = crc32(0L, Z_NULL, 0);
  crc = crc32(crc, data + 4, length);
  if (static_cast<uint32_t>(crc) != expected_crc) return bad("CRC-32 mismatch");
  return DecodeDeletionVectorBitmap(blob.substr(4, length), where, max_positions);
}

arrow::Result<std::vector<int64_t>> DecodeDeletionVectorBitmap(
    std::string_view magic_and_bitmap, const std::string& where, int64_t max_positions) {
  auto bad = [&](const std::string& what) {
    return MakeError(ErrorKind::kInvalidMetadata,
                     "deletion vector in " + where + ": " + what);
  };
  static constexpr unsigned char kMagic[] = {0xD1, 0xD3, 0x39, 0x64};
  if (magic_and_bitmap.size() < 4 ||
      std::memcmp(magic_and_bitmap.data(), kMagic, 4) != 0) {
    return bad("wrong magic");
  }
  const auto* data = reinterpret_cast<const unsigned char*>(magic_and_bitmap.data());
  const size_t length = magic_and_bitmap.size();
  const unsigned char* bitmap = data + 4;
  size_t size = length - 4;
  if (size < 8) return bad("truncated bitmap count");
  uint64_t buckets = Le64(bitmap);
  size_t at = 8;
  std::vector<int64_t> positions;
  int64_t previous_high = -1;
  for (uint64_t b = 0; b < buckets; ++b) {
    if (size < at + 4) return bad("truncated bucket key");
    uint32_t high = Le32(bitmap + at);
    if (static_cast<int64_t>(high) <= previous_high)
      return bad("bucket keys out of order");
    previous_high = high;
    at += 4;
    ARROW_ASSIGN_OR_RAISE(size_t used, DecodeRoaring32(bitmap + at, size - at, high,
                                                       max_positions, &positions, where));
    at += used;
  }
  if (at != size) return bad("trailing bytes after the bitmap");
  if (static_cast<int64_t>(positions.size()) > max_positions) {
    return bad("more positions than the record count or cardinality allows (" +
               std::to_string(max_positions) + ")");
  }
  return positions;
}

namespace {

void PutLe16(std::string* out, uint32_t v) {
  out->push_back(static_cast<char>(v & 0xFF));
  out->push_back(static_cast<char>((v >> 8) & 0xFF));
}
void PutLe32(std::string* out, uint32_t v) {
  PutLe16(out, v & 0xFFFF);
  PutLe16(out, v >> 16);
}
void PutBe32(std::string* out, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8)
    out->push_back(static_cast<char>((v >> shift) & 0xFF));
}

// One container's low 16-bit values, serialised as whichever kind is smallest: an array
// (2 bytes a value, at most 4096 values), a bitmap (8 KiB) or runs (2 bytes, then 4 a
// run), the kinds tied going to array or bitmap, as Roaring's runOptimize decides.
struct Container {
  uint16_t key = 0;
  std::vector<uint16_t> values;
  bool run = false;
  std::string body;
};

void EncodeContainer(Container* container) {
  const auto& values = container->values;
  std::vector<std::pair<uint16_t, uint16_t>> runs;  // start, length - 1
  for (const uint16_t value : values) {
    if (!runs.empty() && value == runs.back().first + runs.back().second + 1) {
      ++runs.back().second;
    } else {
      runs.emplace_back(value, 0);
    }
  }
  const size_t plain = values.size() <= 4096 ? 2 * values.size() : 8192;
  const size_t as_runs = 2 + 4 * runs.size();
  std::string& out = container->body;
  if (as_runs < plain) {
    container->run = true;
    PutLe16(&out, static_cast<uint32_t>(runs.size()));
    for (const auto& [start, length] : runs) {
      PutLe16(&out, start);
      PutLe16(&out, length);
    }
  } else if (values.size() <= 4096) {
    for (uint16_t v : values) PutLe16(&out, v);
  } else {
    std::vector<uint64_t> words(1024, 0);
    for (uint16_t v : values) words[v / 64] |= uint64_t{1} << (v % 64);
    for (uint64_t word : words) {
      PutLe32(&out, static_cast<uint32_t>(word));
      PutLe32(&out, static_cast<uint32_t>(word >> 32));
    }
  }
}

// A 32-bit Roaring bitmap of `containers` in the portable serialization.
void EncodeRoaring32(std::vector<Container>& containers, std::string* out) {
  constexpr uint32_t kCookieNoRun = 12346;
  constexpr uint32_t kCookieRun = 12347;
  constexpr size_t kNoOffsetThreshold = 4;
  const auto count = static_cast<uint32_t>(containers.size());
  bool any_run = false;
  for (auto& container : containers) {
    EncodeContainer(&container);
    any_run = any_run || container.run;
  }
  size_t header = 0;
  if (any_run) {
    PutLe32(out, kCookieRun | ((count - 1) << 16));
    std::string flags((count + 7) / 8, '\0');
    for (uint32_t i = 0; i < count; ++i) {
      if (containers[i].run)
        flags[i / 8] = static_cast<char>(flags[i / 8] | (1 << (i % 8)));
    }
    *out += flags;
    header = 4 + flags.size();
  } else {
    PutLe32(out, kCookieNoRun);
    PutLe32(out, count);
    header = 8;
  }
  for (const auto& container : containers) {
    PutLe16(out, container.key);
    PutLe16(out, static_cast<uint32_t>(container.values.size() - 1));
  }
  header += 4 * containers.size();
  if (!any_run || containers.size() >= kNoOffsetThreshold) {
    // Offsets from the start of this bitmap to each container's body.
    size_t offset = header + 4 * containers.size();
    for (const auto& container : containers) {
      PutLe32(out, static_cast<uint32_t>(offset));
      offset += container.body.size();
    }
  }
  for (const auto& container : containers) *out += container.body;
}

}  // namespace

std::string EncodeDeletionVectorBitmap(const std::vector<int64_t>& positions) {
  std::string out("\xD1\xD3\x39\x64", 4);
  // Buckets (high 32 bits) 0 to the highest, each a list of containers (next 16 bits).
  std::vector<std::vector<Container>> buckets;
  for (int64_t position : positions) {
    const auto value = static_cast<uint64_t>(position);
    const auto high = static_cast<size_t>(value >> 32);
    const auto key = static_cast<uint16_t>(value >> 16);
    if (buckets.size() <= high) buckets.resize(high + 1);
    auto& containers = buckets[high];
    if (containers.empty() || containers.back().key != key) {
      containers.emplace_back();
      containers.back().key = key;
    }
    containers.back().values.push_back(static_cast<uint16_t>(value));
  }
  const uint64_t count = buckets.size();
  PutLe32(&out, static_cast<uint32_t>(count));
  PutLe32(&out, static_cast<uint32_t>(count >> 32));
  for (size_t high = 0; high < buckets.size(); ++high) {
    PutLe32(&out, static_cast<uint32_t>(high));
    EncodeRoaring32(buckets[high], &out);
  }
  return out;
}

std::string EncodeFramedDeletionVector(const std::vector<int64_t>& positions) {
  const std::string body = EncodeDeletionVectorBitmap(positions);
  std::string out;
  PutBe32(&out, static_cast<uint32_t>(body.size()));
  out += body;
  const auto crc = static_cast<uint32_t>(
      crc32(crc32(0L, Z_NULL, 0), reinterpret_cast<const Bytef*>(body.data()),
            static_cast<uInt>(body.size())));
  PutBe32(&out, crc);
  return out;
}

}  // namespace floe
