#include "floe/util/mutex.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "floe/util/first_error_internal.h"

namespace floe {
namespace {

struct Counter {
  Mutex mutex;
  CondVar changed;
  int value FLOE_GUARDED_BY(mutex) = 0;
};

TEST(MutexTest, CondVarWakesAWaiterOnceTheConditionHolds) {
  Counter counter;
  constexpr int kThreads = 8;
  constexpr int kIncrements = 1000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kIncrements; ++i) {
        MutexLock lock(&counter.mutex);
        ++counter.value;
        counter.changed.SignalAll();
      }
    });
  }
  {
    MutexLock lock(&counter.mutex);
    while (counter.value < kThreads * kIncrements) counter.changed.Wait(&counter.mutex);
    EXPECT_EQ(counter.value, kThreads * kIncrements);
  }
  for (auto& thread : threads) thread.join();
}

TEST(MutexTest, WaitForTimesOutWithTheMutexHeldAgain) {
  Counter counter;
  std::thread other;
  {
    MutexLock lock(&counter.mutex);
    const auto start = std::chrono::steady_clock::now();
    // True only on a (spurious) wake-up: nobody signals.
    while (counter.changed.WaitFor(&counter.mutex, std::chrono::milliseconds(5))) {
    }
    EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(5));
    // Held again on return: the other thread waits for this scope to end.
    other = std::thread([&] {
      MutexLock inner(&counter.mutex);
      counter.value = 7;
    });
    counter.value = 1;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_EQ(counter.value, 1);
  }
  other.join();
  MutexLock lock(&counter.mutex);
  EXPECT_EQ(counter.value, 7);
}

TEST(FirstErrorTest, KeepsOnlyTheFirstErrorAcrossThreads) {
  FirstError error;
  EXPECT_TRUE(error.ok());
  EXPECT_FALSE(error.Record(arrow::Status::OK()));
  EXPECT_TRUE(error.ok());
  EXPECT_TRUE(error.Record(arrow::Status::IOError("first")));
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back(
        [&, t] { EXPECT_FALSE(error.Record(arrow::Status::Invalid("later ", t))); });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_FALSE(error.ok());
  EXPECT_TRUE(error.status().IsIOError());
  EXPECT_EQ(error.status().message(), "first");
}

TEST(FirstErrorTest, OneOfManyConcurrentErrorsIsKept) {
  FirstError error;
  std::vector<std::thread> threads;
  std::atomic<int> kept{0};
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      if (error.Record(arrow::Status::Invalid("thread ", t))) ++kept;
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(kept.load(), 1);
  EXPECT_TRUE(error.status().IsInvalid());
}

}  // namespace
}  // namespace floe
