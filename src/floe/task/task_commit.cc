#include "floe/task/task_commit.h"

#include "floe/util/error.h"

namespace floe {
namespace {

void AppendU32(uint32_t value, std::string* out) {
  for (int shift = 24; shift >= 0; shift -= 8)
    out->push_back(static_cast<char>(value >> shift));
}

bool ReadU32(std::string_view data, size_t* position, uint32_t* value) {
  if (data.size() - *position < 4) return false;
  uint32_t result = 0;
  for (int i = 0; i < 4; ++i)
    result = (result << 8) | static_cast<uint8_t>(data[*position + i]);
  *position += 4;
  *value = result;
  return true;
}

bool IsValidUtf8(std::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    auto byte = static_cast<uint8_t>(text[i]);
    size_t length = byte < 0x80           ? 1
                    : (byte >> 5) == 0x6  ? 2
                    : (byte >> 4) == 0xE  ? 3
                    : (byte >> 3) == 0x1E ? 4
                                          : 0;
    if (length == 0 || i + length > text.size()) return false;
    for (size_t k = 1; k < length; ++k) {
      if ((static_cast<uint8_t>(text[i + k]) & 0xC0) != 0x80) return false;
    }
    i += length;
  }
  return true;
}

arrow::Status Corrupt(const std::string& why) {
  return MakeError(ErrorKind::kInvalidMetadata, "task commit message: " + why);
}

arrow::Result<size_t> ParseLocations(std::string_view message,
                                     std::vector<std::string>* out) {
  size_t position = 0;
  uint32_t count = 0;
  if (!ReadU32(message, &position, &count))
    return Corrupt("truncated before the location count");
  // Each location takes at least its 4-byte length.
  if (count > (message.size() - position) / 4) {
    return Corrupt("claims " + std::to_string(count) + " locations in " +
                   std::to_string(message.size()) + " bytes");
  }
  out->reserve(count);
  for (uint32_t i = 0; i < count; ++i) {
    uint32_t length = 0;
    if (!ReadU32(message, &position, &length)) {
      return Corrupt("truncated in the length of location " + std::to_string(i));
    }
    if (length > message.size() - position) {
      return Corrupt("location " + std::to_string(i) +
                     " runs past the end of the message");
    }
    std::string_view location = message.substr(position, length);
    if (location.empty() || !IsValidUtf8(location)) {
      return Corrupt("location " + std::to_string(i) + " is empty or not UTF-8");
    }
    out->emplace_back(location);
    position += length;
  }
  return position;
}

}  // namespace

std::string EncodeTaskCommit(const TaskCommit& message) {
  std::string out;
  AppendU32(static_cast<uint32_t>(message.locations.size()), &out);
  for (const auto& location : message.locations) {
    AppendU32(static_cast<uint32_t>(location.size()), &out);
    out += location;
  }
  out += message.files;
  return out;
}

arrow::Result<std::vector<std::string>> DecodeTaskCommitLocations(
    std::string_view message) {
  std::vector<std::string> locations;
  ARROW_RETURN_NOT_OK(ParseLocations(message, &locations).status());
  return locations;
}

arrow::Result<TaskCommit> DecodeTaskCommit(std::string_view message) {
  TaskCommit decoded;
  ARROW_ASSIGN_OR_RAISE(size_t end, ParseLocations(message, &decoded.locations));
  decoded.files = std::string(message.substr(end));
  return decoded;
}

}  // namespace floe
