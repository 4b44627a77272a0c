#include <gtest/gtest.h>

#include <cstdint>

#include "xstack/core/CheckedMath.h"

namespace xstack {
namespace {

TEST(CheckedMath, CheckedAddReportsOverflow) {
  uint64_t u = 0;
  EXPECT_TRUE(checkedAdd<uint64_t>(1, 2, u));
  EXPECT_EQ(u, 3u);
  EXPECT_FALSE(checkedAdd<uint64_t>(UINT64_MAX, 1, u));
  int64_t s = 0;
  EXPECT_TRUE(checkedAdd<int64_t>(INT64_MAX - 1, 1, s));
  EXPECT_EQ(s, INT64_MAX);
  EXPECT_FALSE(checkedAdd<int64_t>(INT64_MAX, 1, s));
  EXPECT_FALSE(checkedAdd<int64_t>(INT64_MIN, -1, s));
}

TEST(CheckedMath, AddSaturatingHoldsAtTwoToThe63MinusOne) {
  uint64_t sum = kMaxSum - 5;
  EXPECT_FALSE(addSaturating(sum, 5));
  EXPECT_EQ(sum, kMaxSum);
  EXPECT_FALSE(addSaturating(sum, 0));  // adding nothing loses nothing
  EXPECT_TRUE(addSaturating(sum, 1));
  EXPECT_EQ(sum, kMaxSum);
  sum = kMaxSum;
  EXPECT_TRUE(addSaturating(sum, kMaxSum));  // 2^64 - 2: fits in uint64, still held
  EXPECT_EQ(sum, kMaxSum);
  sum = 3;
  EXPECT_TRUE(addSaturating(sum, UINT64_MAX));  // would wrap uint64
  EXPECT_EQ(sum, kMaxSum);
}

TEST(CheckedMath, SaturatingSumTellsTheFirstSaturationOnce) {
  SaturatingSum s;
  const uint64_t big = kMaxSum - 1;  // the longest event: ends at 2^63 - 1
  EXPECT_FALSE(s.add(big));
  EXPECT_TRUE(s.add(big));
  EXPECT_FALSE(s.add(big));  // held, already told
  EXPECT_TRUE(s.saturated);
  EXPECT_EQ(s.value, kMaxSum);
}

TEST(CheckedMath, MemoryInUseNeverNegativeAfterSaturating) {
  MemoryInUse m;
  const int64_t block = INT64_C(1) << 62;
  EXPECT_FALSE(m.add(block));
  EXPECT_FALSE(m.add(block - 1));  // exactly 2^63 - 1: not held
  EXPECT_EQ(m.bytes(), INT64_MAX);
  EXPECT_TRUE(m.add(block));  // 3 x 2^62 - 1: held
  EXPECT_EQ(m.bytes(), INT64_MAX);
  EXPECT_FALSE(m.add(-block));  // back down exactly: 2^63 - 1
  EXPECT_EQ(m.bytes(), INT64_MAX);
  EXPECT_FALSE(m.add(-block));
  EXPECT_EQ(m.bytes(), block - 1);
  EXPECT_FALSE(m.add(-(block - 1)));
  EXPECT_EQ(m.bytes(), 0);  // every block freed: 0, not INT64_MAX - 3 x 2^62 + 1 < 0
  EXPECT_FALSE(m.add(-1));  // a free of more than was held shows 0
  EXPECT_EQ(m.bytes(), 0);
}

TEST(CheckedMath, MemoryInUseTakesTheExtremes) {
  MemoryInUse m;
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(i == 0 ? !m.add(INT64_MAX) : m.add(INT64_MAX));
  EXPECT_EQ(m.bytes(), INT64_MAX);
  for (int i = 0; i < 4; ++i) m.add(-INT64_MAX);
  EXPECT_EQ(m.bytes(), 0);
  m.add(INT64_MIN);
  EXPECT_EQ(m.bytes(), 0);
}

}  // namespace
}  // namespace xstack
