// 128-bit UUIDs as Iceberg uses them: table uuids, operation ids, commit ids, snapshot
// ids.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "arrow/result.h"
#include "floe/util/env.h"

namespace floe {

/// A UUID held as its 16 bytes in RFC 4122 (big-endian) order. A value type.
class Uuid {
 public:
  Uuid() = default;
  explicit Uuid(const std::array<uint8_t, 16>& bytes) : bytes_(bytes) {}

  /// A random version-4 UUID from `env`'s random numbers. Thread-safe.
  static Uuid Random(Env* env = Env::Default());

  /// Parses the 8-4-4-4-12 hexadecimal form (either case). Invalid text gives Invalid.
  static arrow::Result<Uuid> Parse(std::string_view text);

  /// Lower-case hyphenated text, as java.util.UUID.toString() writes it.
  std::string ToString() const;

  /// The most and least significant 64 bits, as java.util.UUID holds them.
  int64_t MostSignificantBits() const;
  int64_t LeastSignificantBits() const;

  const std::array<uint8_t, 16>& bytes() const { return bytes_; }
  bool operator==(const Uuid& other) const = default;

 private:
  std::array<uint8_t, 16> bytes_{};
};

/// A new snapshot id drawn the way iceberg-java draws it: a random UUID's
/// (msb XOR lsb) & Long.MAX_VALUE.
int64_t NewSnapshotId(Env* env = Env::Default());

}  // namespace floe
