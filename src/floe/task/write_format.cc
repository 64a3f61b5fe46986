#include "floe/task/write_format.h"

#include <algorithm>

namespace floe {

bool PartitionShare::Owns(std::string_view key) const {
  return count <= 1 || OwnerOf(key, count) == index;
}

int PartitionShare::OwnerOf(std::string_view key, int count) {
  if (count <= 1) return 0;
  return static_cast<int>(std::hash<std::string_view>{}(key) %
                          static_cast<size_t>(count));
}

arrow::Result<std::vector<std::vector<PartitionRows>>> WriteFormat::SplitShares(
    const std::shared_ptr<arrow::RecordBatch>& batch, int count) const {
  std::vector<std::vector<PartitionRows>> shares;
  for (int i = 0; i < std::max(count, 1); ++i) {
    ARROW_ASSIGN_OR_RAISE(auto groups,
                          Split(batch, PartitionShare{i, std::max(count, 1)}));
    shares.push_back(std::move(groups));
  }
  return shares;
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
