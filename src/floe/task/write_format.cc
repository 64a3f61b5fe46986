#include "floe/task/write_format.h"

namespace floe {

bool PartitionShare::Owns(std::string_view key) const {
  return count <= 1 || std::hash<std::string_view>{}(key) % static_cast<size_t>(count) ==
                           static_cast<size_t>(index);
}

std::string_view WriterModeName(WriterMode mode) {
  switch (mode) {
    case WriterMode::kUnpartitioned:
      return "unpartitioned";
    case WriterMode::kClustered:
      return "clustered";
    case WriterMode::kFanout:
      return "fanout";
  }
  return "unpartitioned";
}

}  // namespace floe
