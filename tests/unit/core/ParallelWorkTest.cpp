// forEachItem (--threads' loop), workersFor, cpusOfProcess and SharedBudget.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <stdexcept>
#include <thread>
#include <vector>

#include "xstack/core/ParallelWork.h"

namespace xstack {
namespace {

TEST(ParallelWork, WorkersAreAtLeastOneAndAtMostTheItems) {
  EXPECT_EQ(workersFor(0, 5), 1U);
  EXPECT_EQ(workersFor(4, 0), 1U);
  EXPECT_EQ(workersFor(4, 2), 2U);
  EXPECT_EQ(workersFor(3, 10), 3U);
  EXPECT_GE(cpusOfProcess(), 1U);
}

TEST(ParallelWork, EveryItemRunsOnceAndEachWorkersItemsAscend) {
  for (unsigned threads : {1U, 2U, 4U}) {
    const size_t n = 200;
    std::vector<std::atomic<int>> runs(n);
    std::vector<std::vector<size_t>> byWorker(threads);
    forEachItem(n, threads, [&](size_t i, unsigned w) {
      ASSERT_LT(w, threads);
      ++runs[i];
      byWorker[w].push_back(i);  // one worker writes its own vector
    });
    for (size_t i = 0; i < n; ++i) EXPECT_EQ(runs[i].load(), 1) << i;
    for (const auto& items : byWorker) EXPECT_TRUE(std::is_sorted(items.begin(), items.end()));
  }
}

TEST(ParallelWork, OneWorkerRunsOnTheCallingThreadInOrder) {
  std::vector<size_t> order;
  const auto me = std::this_thread::get_id();
  forEachItem(5, 1, [&](size_t i, unsigned) {
    EXPECT_EQ(std::this_thread::get_id(), me);
    order.push_back(i);
  });
  EXPECT_EQ(order, (std::vector<size_t>{0, 1, 2, 3, 4}));
}

TEST(ParallelWork, AFailureIsRethrownAfterTheWorkersStop) {
  std::atomic<int> running{0};
  EXPECT_THROW(forEachItem(50, 3,
                           [&](size_t i, unsigned) {
                             ++running;
                             if (i == 7) throw std::runtime_error("item 7");
                             --running;
                           }),
               std::runtime_error);
  EXPECT_EQ(running.load(), 1);  // only the failed item never finished; no worker is left
}

TEST(ParallelWork, SharedBudgetNeverHandsOutMoreThanItsTotal) {
  SharedBudget b(100);
  const uint64_t a = b.claim(0);  // all of it
  EXPECT_EQ(a, 100U);
  EXPECT_EQ(b.claim(0), 0U);  // nothing left while it is claimed
  b.settle(a, 30);            // 70 back
  EXPECT_EQ(b.used(), 30U);
  EXPECT_EQ(b.claim(50), 50U);
  EXPECT_EQ(b.claim(0), 20U);
  b.settle(50, 80);  // cannot use more than it claimed
  EXPECT_EQ(b.used(), 80U);
}

TEST(ParallelWork, SharedBudgetHoldsUnderThreads) {
  SharedBudget b(1000);
  std::atomic<uint64_t> out{0}, most{0};
  forEachItem(400, 4, [&](size_t i, unsigned) {
    const uint64_t got = b.claim(7);
    const uint64_t now = out += got;
    uint64_t seen = most.load();
    while (now > seen && !most.compare_exchange_weak(seen, now)) {
    }
    out -= got;
    b.settle(got, i % 3 == 0 ? 1 : 0);
  });
  EXPECT_LE(most.load(), 1000U);  // never more out at once than the total
  EXPECT_LE(b.used(), 1000U);
  EXPECT_EQ(b.used(), std::min<uint64_t>(134, 1000));  // 134 items of 400 used 1 each
}

}  // namespace
}  // namespace xstack
