#include <gtest/gtest.h>

#include "xstack/core/StageClock.h"

namespace xstack {
namespace {

TEST(StageClock, StagesInOrderWithNonNegativeTimes) {
  StageClock c;
  c.mark("launch");
  volatile double x = 0;
  for (int i = 0; i < 200000; ++i) x = x + i;
  c.mark("work");
  ASSERT_EQ(c.stages().size(), 2u);
  EXPECT_EQ(c.stages()[0].stage, "launch");
  EXPECT_EQ(c.stages()[1].stage, "work");
  for (const auto& s : c.stages()) {
    EXPECT_GE(s.wallSeconds, 0);
    EXPECT_GE(s.cpuSeconds, 0);
  }
  EXPECT_GE(c.elapsed(), c.stages()[0].wallSeconds + c.stages()[1].wallSeconds - 1e-6);
  c.count("render_decodes", 4);
  ASSERT_EQ(c.counts().size(), 1u);
  EXPECT_EQ(c.counts()[0].second, 4u);
}

}  // namespace
}  // namespace xstack
