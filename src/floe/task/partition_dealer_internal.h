// Which task writes which partition, when one process's tasks share a write's partitions
// out and one reading thread splits the input for them (Iceberg's WriteJob, Delta's
// write). Format-neutral.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "floe/task/write_format.h"

namespace floe {

/// Deals each partition to one task for the whole write, as a hash distribution would
/// (so a partition's files come from one task), but chooses the task when the partition
/// first appears: the one with the fewest rows still waiting to be written, then the one
/// given the fewest rows. With a hash, a task whose partitions came first or were larger
/// did the work while the other waited: on input grouped by day, the next day's rows
/// queued behind the task writing this day's whenever the two days hashed alike, and 31
/// days split 45:55 over two tasks.
///
/// Owner() is called by the reading thread only; Written() by the tasks' threads.
class PartitionDealer {
 public:
  explicit PartitionDealer(int tasks)
      : waiting_(std::make_unique<std::atomic<int64_t>[]>(static_cast<size_t>(tasks))),
        given_(static_cast<size_t>(tasks), 0) {
    for (int i = 0; i < tasks; ++i) waiting_[static_cast<size_t>(i)] = 0;
  }

  /// The task that writes partition `key`, given `rows` more of its rows.
  int Owner(const std::string& key, int64_t rows) {
    auto [found, inserted] = owners_.emplace(key, 0);
    if (inserted) {
      int best = 0;
      for (size_t i = 1; i < given_.size(); ++i) {
        const int64_t waiting = waiting_[i].load();
        const int64_t best_waiting = waiting_[static_cast<size_t>(best)].load();
        if (waiting < best_waiting ||
            (waiting == best_waiting && given_[i] < given_[static_cast<size_t>(best)])) {
          best = static_cast<int>(i);
        }
      }
      found->second = best;
    }
    const auto task = static_cast<size_t>(found->second);
    waiting_[task] += rows;
    given_[task] += rows;
    return found->second;
  }
  /// The PartitionOwner that deals with this dealer (it must outlive the function).
  PartitionOwner AsOwner() {
    return [this](const std::string& key, int64_t rows) { return Owner(key, rows); };
  }
  /// `task` wrote `rows` of the rows it was given.
  void Written(int task, int64_t rows) { waiting_[static_cast<size_t>(task)] -= rows; }

 private:
  std::unordered_map<std::string, int> owners_;
  std::unique_ptr<std::atomic<int64_t>[]> waiting_;
  std::vector<int64_t> given_;
};

}  // namespace floe
