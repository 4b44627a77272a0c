// BoundedQueue (rank 0's render thread -> writer) and BufferPool (recycled
// piece buffers).
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>

#include "xstack/core/BoundedQueue.h"
#include "xstack/core/BufferPool.h"

namespace xstack {
namespace {

TEST(BoundedQueue, KeepsOrderAndNeverHoldsMoreThanItsCapacity) {
  BoundedQueue<int> q(3);
  std::atomic<int> pushed{0};
  std::thread producer([&] {
    for (int i = 0; i < 1000; ++i) {
      ASSERT_TRUE(q.push(i));
      ++pushed;
    }
  });
  for (int i = 0; i < 1000; ++i) {
    auto v = q.pop();
    ASSERT_TRUE(v.has_value());
    EXPECT_EQ(*v, i);
    EXPECT_LE(pushed.load() - i, 4);  // 3 queued + the one just popped
  }
  producer.join();
}

TEST(BoundedQueue, CloseWakesABlockedProducerAndDrainsTheRest) {
  BoundedQueue<int> q(1);
  ASSERT_TRUE(q.push(1));
  bool second = true;
  std::thread producer([&] { second = q.push(2); });  // blocks: full
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  q.close();
  producer.join();
  EXPECT_FALSE(second);
  EXPECT_EQ(q.pop(), 1);
  EXPECT_EQ(q.pop(), std::nullopt);
}

TEST(BufferPool, GivesBackCapacityEmptyAndKeepsABoundedNumber) {
  BufferPool pool(2);
  EXPECT_EQ(pool.take().capacity(), std::string().capacity());
  std::string a(1 << 20, 'a'), b(1 << 20, 'b'), c(1 << 20, 'c');
  pool.give(std::move(a));
  pool.give(std::move(b));
  pool.give(std::move(c));  // over the bound: dropped
  std::string x = pool.take(), y = pool.take(), z = pool.take();
  EXPECT_TRUE(x.empty());
  EXPECT_GE(x.capacity(), size_t{1} << 20);
  EXPECT_GE(y.capacity(), size_t{1} << 20);
  EXPECT_LT(z.capacity(), size_t{1} << 20);
}

}  // namespace
}  // namespace xstack
