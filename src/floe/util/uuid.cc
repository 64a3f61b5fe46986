#include "floe/util/uuid.h"

#include <limits>

#include "arrow/status.h"

namespace floe {
namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

Uuid Uuid::Random(Env* env) {
  std::array<uint8_t, 16> bytes;
  uint64_t high = env->RandomUint64();
  uint64_t low = env->RandomUint64();
  for (int i = 0; i < 8; ++i) {
    bytes[i] = static_cast<uint8_t>(high >> (56 - 8 * i));
    bytes[8 + i] = static_cast<uint8_t>(low >> (56 - 8 * i));
  }
  bytes[6] = static_cast<uint8_t>((bytes[6] & 0x0F) | 0x40);  // version 4
  bytes[8] = static_cast<uint8_t>((bytes[8] & 0x3F) | 0x80);  // IETF variant
  return Uuid(bytes);
}

arrow::Result<Uuid> Uuid::Parse(std::string_view text) {
  if (text.size() != 36 || text[8] != '-' || text[13] != '-' || text[18] != '-' ||
      text[23] != '-') {
    return arrow::Status::Invalid("invalid UUID '", text, "'");
  }
  std::array<uint8_t, 16> bytes;
  size_t position = 0;
  for (int i = 0; i < 16; ++i) {
    if (text[position] == '-') ++position;
    int high = HexValue(text[position]);
    int low = HexValue(text[position + 1]);
    if (high < 0 || low < 0) return arrow::Status::Invalid("invalid UUID '", text, "'");
    bytes[i] = static_cast<uint8_t>(high * 16 + low);
    position += 2;
  }
  return Uuid(bytes);
}

std::string Uuid::ToString() const {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string text;
  text.reserve(36);
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) text.push_back('-');
    text.push_back(kHex[bytes_[i] >> 4]);
    text.push_back(kHex[bytes_[i] & 0x0F]);
  }
  return text;
}

int64_t Uuid::MostSignificantBits() const {
  uint64_t value = 0;
  for (int i = 0; i < 8; ++i) value = (value << 8) | bytes_[i];
  return static_cast<int64_t>(value);
}

int64_t Uuid::LeastSignificantBits() const {
  uint64_t value = 0;
  for (int i = 8; i < 16; ++i) value = (value << 8) | bytes_[i];
  return static_cast<int64_t>(value);
}

int64_t NewSnapshotId(Env* env) {
  Uuid uuid = Uuid::Random(env);
  return (uuid.MostSignificantBits() ^ uuid.LeastSignificantBits()) &
         std::numeric_limits<int64_t>::max();
}

}  // namespace floe
