#include "floe/task/write_format.h"

#include <algorithm>

#include "arrow/compute/api_vector.h"
#include "arrow/datum.h"

namespace floe {

bool PartitionShare::Owns(std::string_view key) const {
  return count <= 1 || OwnerOf(key, count) == index;
}

int PartitionShare::OwnerOf(std::string_view key, int count) {
  if (count <= 1) return 0;
  return static_cast<int>(std::hash<std::string_view>{}(key) %
                          static_cast<size_t>(count));
}

arrow::Result<std::shared_ptr<arrow::RecordBatch>> PartitionRows::Gathered() const {
  if (!take) return rows;
  ARROW_ASSIGN_OR_RAISE(auto taken, arrow::compute::Take(rows, take));
  return taken.record_batch();
}

arrow::Result<std::vector<std::vector<PartitionRows>>> WriteFormat::SplitShares(
    const std::shared_ptr<arrow::RecordBatch>& batch, int count,
    const PartitionOwner& owner) const {
  if (owner) {
    std::vector<std::vector<PartitionRows>> shares(
        static_cast<size_t>(std::max(count, 1)));
    ARROW_ASSIGN_OR_RAISE(auto groups, Split(batch, PartitionShare{}));
    for (auto& group : groups) {
      const int index = owner(group.key, group.num_rows());
      shares[static_cast<size_t>(index)].push_back(std::move(group));
    }
    return shares;
  }
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
