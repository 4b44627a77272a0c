// The --timings gather's message: stage times and counts survive it exactly;
// a message cut short or garbled is an Error, never a throw.
#include <gtest/gtest.h>

#include "xstack/transport/StageTimes.h"
#include "xstack/transport/TypedMessages.h"

namespace xstack {
namespace {

TEST(StageTimes, RoundTripAndABadMessageIsAnError) {
  StageClock c;
  c.mark("launch");
  c.mark("work");
  c.count("render_decodes", 4);
  const std::string bytes = encodeMessage(stageTimesOf(c), writeStageTimes);
  const StageTimes back = decodeMessage<StageTimes>(bytes, "the timings", readStageTimes).value();
  ASSERT_EQ(back.stages.size(), 2u);
  EXPECT_EQ(back.stages[1].stage, "work");
  EXPECT_EQ(back.stages[1].wallSeconds, c.stages()[1].wallSeconds);
  EXPECT_EQ(back.stages[1].cpuSeconds, c.stages()[1].cpuSeconds);
  ASSERT_EQ(back.counts.size(), 1u);
  EXPECT_EQ(back.counts[0], (std::pair<std::string, uint64_t>{"render_decodes", 4}));
  for (size_t n = 0; n < bytes.size(); ++n)
    EXPECT_FALSE(decodeMessage<StageTimes>(bytes.substr(0, n), "t", readStageTimes).ok()) << n;
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::string bad = bytes;
    bad[i] = static_cast<char>(bad[i] ^ 0xff);
    EXPECT_NO_THROW((void)decodeMessage<StageTimes>(bad, "t", readStageTimes)) << i;
  }
  EXPECT_FALSE(decodeMessage<StageTimes>("garbage;;x y z;", "t", readStageTimes).ok());
}

}  // namespace
}  // namespace xstack
