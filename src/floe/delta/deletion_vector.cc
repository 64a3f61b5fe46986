#include "floe/delta/deletion_vector.h"

#include <array>
#include <cstring>

#include "arrow/buffer.h"
#include "arrow/io/interfaces.h"
#include "floe/util/deletion_vector_bitmap.h"
#include "floe/util/error.h"
#include "floe/util/location.h"

namespace floe::delta {
namespace {

constexpr char kZ85Alphabet[] =
    "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/"
    "*?&<>()[]{}@%$#";

arrow::Status Invalid(const std::string& where, const std::string& what) {
  return MakeError(ErrorKind::kInvalidMetadata, "deletion vector " + where + ": " + what);
}

std::string UuidText(const std::string& bytes) {
  static const char kHex[] = "0123456789abcdef";
  std::string text;
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) text.push_back('-');
    auto byte = static_cast<unsigned char>(bytes[i]);
    text.push_back(kHex[byte >> 4]);
    text.push_back(kHex[byte & 15]);
  }
  return text;
}

}  // namespace

arrow::Result<std::string> DecodeZ85(std::string_view text) {
  static const std::array<int, 256> kValue = [] {
    std::array<int, 256> value{};
    value.fill(-1);
    for (int i = 0; i < 85; ++i) value[static_cast<unsigned char>(kZ85Alphabet[i])] = i;
    return value;
  }();
  if (text.size() % 5 != 0) {
    return MakeError(
        ErrorKind::kInvalidMetadata,
        "a Z85 text has a multiple of 5 characters, not " + std::to_string(text.size()));
  }
  std::string out;
  out.reserve(text.size() / 5 * 4);
  for (size_t i = 0; i < text.size(); i += 5) {
    uint64_t word = 0;
    for (size_t j = 0; j < 5; ++j) {
      int digit = kValue[static_cast<unsigned char>(text[i + j])];
      if (digit < 0) {
        return MakeError(ErrorKind::kInvalidMetadata,
                         "a Z85 text holds a character outside its alphabet");
      }
      word = word * 85 + static_cast<uint64_t>(digit);
    }
    if (word > 0xFFFFFFFFull) {
      return MakeError(ErrorKind::kInvalidMetadata, "a Z85 group exceeds 32 bits");
    }
    for (int shift = 24; shift >= 0; shift -= 8)
      out.push_back(static_cast<char>((word >> shift) & 0xFF));
  }
  return out;
}

arrow::Result<std::string> DeletionVectorLocation(const std::string& table_root,
                                                  const DeletionVector& dv) {
  if (dv.storage_type == "p") return dv.path_or_inline;
  if (dv.storage_type != "u" || dv.path_or_inline.size() < 20) {
    return Invalid(dv.path_or_inline,
                   "storage type " + dv.storage_type + " names no file of its own");
  }
  const std::string_view id(dv.path_or_inline);
  ARROW_ASSIGN_OR_RAISE(std::string uuid, DecodeZ85(id.substr(id.size() - 20)));
  const std::string prefix(id.substr(0, id.size() - 20));
  if (prefix.find("..") != std::string::npos || prefix.find('/') != std::string::npos) {
    return Invalid(dv.path_or_inline, "its prefix leads outside the table");
  }
  return StripTrailingSlash(table_root) + "/" + (prefix.empty() ? "" : prefix + "/") +
         "deletion_vector_" + UuidText(uuid) + ".bin";
}

arrow::Result<std::vector<int64_t>> ReadDeletionVector(FileIO& io,
                                                       const std::string& table_root,
                                                       const DeletionVector& dv) {
  if (dv.cardinality < 0 || dv.size_in_bytes < 0)
    return Invalid(dv.path_or_inline, "a negative cardinality or size");
  std::vector<int64_t> positions;
  std::string where = "inline in the log";
  if (dv.storage_type == "i") {
    ARROW_ASSIGN_OR_RAISE(std::string bytes, DecodeZ85(dv.path_or_inline));
    if (static_cast<size_t>(dv.size_in_bytes) > bytes.size())
      return Invalid(where, "shorter than its sizeInBytes");
    bytes.resize(static_cast<size_t>(dv.size_in_bytes));
    ARROW_ASSIGN_OR_RAISE(positions,
                          DecodeDeletionVectorBitmap(bytes, where, dv.cardinality));
  } else {
    ARROW_ASSIGN_OR_RAISE(where, DeletionVectorLocation(table_root, dv));
    // The file: a version byte, then at `offset` each vector framed as Iceberg frames its
    // Puffin blobs (a big-endian size, the bytes, their big-endian CRC-32).
    const int64_t offset = dv.offset.value_or(1);
    ARROW_ASSIGN_OR_RAISE(auto file, io.OpenInput(where));
    ARROW_ASSIGN_OR_RAISE(int64_t length, file->GetSize());
    if (offset < 1 || offset + 8 + int64_t{dv.size_in_bytes} > length) {
      return Invalid(where, "offset " + std::to_string(offset) + " and size " +
                                std::to_string(dv.size_in_bytes) + " run past its " +
                                std::to_string(length) + " bytes");
    }
    ARROW_ASSIGN_OR_RAISE(auto framed, file->ReadAt(offset, 8 + dv.size_in_bytes));
    const std::string_view blob(reinterpret_cast<const char*>(framed->data()),
                                static_cast<size_t>(framed->size()));
    ARROW_ASSIGN_OR_RAISE(positions,
                          DecodeFramedDeletionVector(blob, where, dv.cardinality));
  }
  if (static_cast<int64_t>(positions.size()) != dv.cardinality) {
    return Invalid(where, "holds " + std::to_string(positions.size()) +
                              " positions where the log says " +
                              std::to_string(dv.cardinality));
  }
  return positions;
}

}  // namespace floe::delta
