#include "floe/task/partition_dealer_internal.h"

#include <thread>

#include <gtest/gtest.h>

namespace floe {
namespace {

// A partition stays with the task it was first dealt to, whatever comes after.
TEST(PartitionDealerTest, APartitionKeepsItsTask) {
  PartitionDealer dealer(3);
  const int first = dealer.Owner("day=1", 100);
  dealer.Owner("day=2", 5000);
  dealer.Owner("day=3", 5000);
  dealer.Written(first, 100);
  EXPECT_EQ(dealer.Owner("day=1", 1), first);
  EXPECT_EQ(dealer.Owner("day=1", 1'000'000), first);
}

// A new partition goes to the task with the fewest rows waiting, so the next partition
// of input grouped by partition goes to a task that is free, not to the one still
// writing the last.
TEST(PartitionDealerTest, ANewPartitionGoesToTheTaskWithTheLeastWaiting) {
  PartitionDealer dealer(2);
  EXPECT_EQ(dealer.Owner("day=1", 1000), 0);
  EXPECT_EQ(dealer.Owner("day=1", 1000), 0);  // 2000 waiting for task 0
  EXPECT_EQ(dealer.Owner("day=2", 10), 1);    // task 1 is free
  EXPECT_EQ(dealer.Owner("day=3", 10), 1);    // 10 waiting against 2000
  dealer.Written(0, 2000);                    // task 0 is done with day 1
  EXPECT_EQ(dealer.Owner("day=4", 10), 0);
  // Equal rows waiting: the task given fewer rows so far (task 1: 20 against 2010).
  dealer.Written(0, 10);
  dealer.Written(1, 20);
  EXPECT_EQ(dealer.Owner("day=5", 10), 1);
}

// Input grouped by partition, equal partitions, tasks that keep up: the partitions are
// dealt in turn, where a hash could give one task most of them.
TEST(PartitionDealerTest, EqualPartitionsAreDealtEvenly) {
  PartitionDealer dealer(2);
  int per_task[2] = {0, 0};
  for (int day = 0; day < 31; ++day) {
    const int task = dealer.Owner("day=" + std::to_string(day), 322'580);
    ++per_task[task];
    dealer.Written(task, 322'580);
  }
  EXPECT_EQ(per_task[0], 16);
  EXPECT_EQ(per_task[1], 15);
}

// Tasks report what they wrote from their own threads while the reading thread deals.
TEST(PartitionDealerTest, TasksReportFromTheirThreads) {
  PartitionDealer dealer(2);
  std::thread writer([&] {
    for (int i = 0; i < 10000; ++i) dealer.Written(1, 1);
  });
  for (int i = 0; i < 10000; ++i) dealer.Owner("p" + std::to_string(i % 50), 1);
  writer.join();
  EXPECT_GE(dealer.Owner("p0", 0), 0);
}

}  // namespace
}  // namespace floe
