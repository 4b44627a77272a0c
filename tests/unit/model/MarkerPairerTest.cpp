// Forward/backward spans from step marks (docs/FORMAT.md section 3).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "xstack/model/MarkerPairer.h"

namespace xstack {
namespace {

StepMark fB(uint64_t ts) { return {ts, Phase::Forward, true}; }
StepMark fE(uint64_t ts) { return {ts, Phase::Forward, false}; }
StepMark bB(uint64_t ts) { return {ts, Phase::Backward, true}; }
StepMark bE(uint64_t ts) { return {ts, Phase::Backward, false}; }

std::vector<Span> pairAll(const std::vector<StepMark>& ms, Warnings& w) {
  MarkerPairer p;
  for (const StepMark& m : ms) p.add(m);
  return p.pair(w);
}

void expectSpan(const Span& s, Phase phase, int64_t step, uint64_t start, uint64_t end) {
  EXPECT_EQ(s.phase, phase);
  EXPECT_EQ(s.step, step);
  EXPECT_EQ(s.startNs, start);
  EXPECT_EQ(s.endNs, end);
}

TEST(MarkerPairer, ForwardBackwardPairsWithSteps) {
  Warnings w;
  std::vector<StepMark> ms;
  for (uint64_t step = 0; step < 4; ++step) {
    uint64_t t = 1000 * step;
    ms.insert(ms.end(), {fB(t), fE(t + 100), bB(t + 200), bE(t + 450)});
  }
  auto spans = pairAll(ms, w);
  EXPECT_TRUE(w.empty());
  ASSERT_EQ(spans.size(), 8u);
  for (int64_t step = 0; step < 4; ++step) {
    uint64_t t = 1000 * static_cast<uint64_t>(step);
    expectSpan(spans[static_cast<size_t>(2 * step)], Phase::Forward, step, t, t + 100);
    expectSpan(spans[static_cast<size_t>(2 * step + 1)], Phase::Backward, step, t + 200, t + 450);
  }
}

TEST(MarkerPairer, DurationIsEndStartMinusBeginStart) {
  Warnings w;
  auto spans = pairAll({fB(1700000000000000123u), fE(1700000000987654321u)}, w);
  ASSERT_EQ(spans.size(), 1u);
  EXPECT_EQ(spans[0].endNs - spans[0].startNs, 987654198u);
}

TEST(MarkerPairer, UnmatchedEndIsDroppedAndCounted) {
  Warnings w;
  auto spans = pairAll({fE(5), bE(6), fB(10), fE(20), fE(30)}, w);
  ASSERT_EQ(spans.size(), 1u);
  expectSpan(spans[0], Phase::Forward, 0, 10, 20);
  EXPECT_EQ(w.count(Warn::MarkerUnmatchedEnd), 3u);
  EXPECT_EQ(w.total(), 3u);
}

TEST(MarkerPairer, RepeatedBeginReplacesTheOpenOne) {
  Warnings w;
  auto spans = pairAll({fB(10), fB(15), fE(20), bB(30), bB(31), bB(32), bE(40)}, w);
  ASSERT_EQ(spans.size(), 2u);
  expectSpan(spans[0], Phase::Forward, 0, 15, 20);
  expectSpan(spans[1], Phase::Backward, 0, 32, 40);
  EXPECT_EQ(w.count(Warn::MarkerReplacedBegin), 3u);
  EXPECT_EQ(w.total(), 3u);
}

TEST(MarkerPairer, BeginStillOpenAtTheEndIsDroppedAndCounted) {
  Warnings w;
  auto spans = pairAll({fB(10), fE(20), bB(30), fB(40)}, w);
  ASSERT_EQ(spans.size(), 1u);
  expectSpan(spans[0], Phase::Forward, 0, 10, 20);
  EXPECT_EQ(w.count(Warn::MarkerUnmatchedBegin), 2u);
  EXPECT_EQ(w.total(), 2u);
}

TEST(MarkerPairer, PhasesPairIndependently) {
  // A backward opens while the forward is still open: each _E closes its own phase.
  Warnings w;
  auto spans = pairAll({fB(10), bB(12), fE(20), bE(25)}, w);
  EXPECT_TRUE(w.empty());
  ASSERT_EQ(spans.size(), 2u);
  expectSpan(spans[0], Phase::Forward, 0, 10, 20);
  expectSpan(spans[1], Phase::Backward, 0, 12, 25);
}

TEST(MarkerPairer, MarkersOutOfInputOrderAreSortedByTimestamp) {
  Warnings w;
  // Step 1 listed before step 0, and each pair's end before its begin.
  auto spans =
      pairAll({bE(1450), bB(1200), fE(1100), fB(1000), bE(450), fE(100), bB(200), fB(0)}, w);
  EXPECT_TRUE(w.empty());
  ASSERT_EQ(spans.size(), 4u);
  expectSpan(spans[0], Phase::Forward, 0, 0, 100);
  expectSpan(spans[1], Phase::Backward, 0, 200, 450);
  expectSpan(spans[2], Phase::Forward, 1, 1000, 1100);
  expectSpan(spans[3], Phase::Backward, 1, 1200, 1450);
}

TEST(MarkerPairer, EqualTimestampsKeepInputOrder) {
  // A zero-length span: B and E at the same ns pair in input order.
  Warnings w;
  auto spans = pairAll({fB(7), fE(7)}, w);
  EXPECT_TRUE(w.empty());
  ASSERT_EQ(spans.size(), 1u);
  expectSpan(spans[0], Phase::Forward, 0, 7, 7);
}

TEST(MarkerPairer, BackwardTakesTheStepOfTheLastForwardThatBeganBeforeIt) {
  Warnings w;
  // Two forwards, then two backwards: both backwards belong to step 1.
  auto spans = pairAll({fB(0), fE(10), fB(20), fE(30), bB(40), bE(50), bB(60), bE(70)}, w);
  ASSERT_EQ(spans.size(), 4u);
  expectSpan(spans[0], Phase::Forward, 0, 0, 10);
  expectSpan(spans[1], Phase::Forward, 1, 20, 30);
  expectSpan(spans[2], Phase::Backward, 1, 40, 50);
  expectSpan(spans[3], Phase::Backward, 1, 60, 70);
}

TEST(MarkerPairer, BackwardBeforeAnyForwardIsStepZero) {
  Warnings w;
  auto spans = pairAll({bB(0), bE(5), fB(10), fE(20), bB(30), bE(40)}, w);
  ASSERT_EQ(spans.size(), 3u);
  expectSpan(spans[0], Phase::Backward, 0, 0, 5);
  expectSpan(spans[1], Phase::Forward, 0, 10, 20);
  expectSpan(spans[2], Phase::Backward, 0, 30, 40);
}

TEST(MarkerPairer, BackwardInsideAForwardSpanTakesThatForwardsStep) {
  Warnings w;
  auto spans = pairAll({fB(0), fE(10), fB(100), bB(150), bE(160), fE(200)}, w);
  ASSERT_EQ(spans.size(), 3u);
  expectSpan(spans[1], Phase::Forward, 1, 100, 200);
  expectSpan(spans[2], Phase::Backward, 1, 150, 160);
}

TEST(MarkerPairer, StepsCountOnlyCompletedForwardSpans) {
  Warnings w;
  // The first forward _B is replaced, an _E is dropped: still steps 0 and 1.
  auto spans = pairAll({fB(0), fB(5), fE(10), fE(12), bB(15), bE(18), fB(20), fE(30)}, w);
  ASSERT_EQ(spans.size(), 3u);
  expectSpan(spans[0], Phase::Forward, 0, 5, 10);
  expectSpan(spans[1], Phase::Backward, 0, 15, 18);
  expectSpan(spans[2], Phase::Forward, 1, 20, 30);
  EXPECT_EQ(w.count(Warn::MarkerReplacedBegin), 1u);
  EXPECT_EQ(w.count(Warn::MarkerUnmatchedEnd), 1u);
}

TEST(MarkerPairer, SpansAreOrderedByStartForwardFirstOnTies) {
  Warnings w;
  auto spans = pairAll({bB(100), bE(200), fB(100), fE(150)}, w);
  ASSERT_EQ(spans.size(), 2u);
  EXPECT_EQ(spans[0].phase, Phase::Forward);
  EXPECT_EQ(spans[1].phase, Phase::Backward);
  EXPECT_EQ(spans[1].step, 0);
}

TEST(MarkerPairer, NoMarkersNoSpansAndPairingResets) {
  Warnings w;
  MarkerPairer p;
  EXPECT_TRUE(p.pair(w).empty());
  p.add(fB(1));
  p.add(fE(2));
  EXPECT_EQ(p.pair(w).size(), 1u);
  EXPECT_TRUE(p.pair(w).empty());  // the markers were consumed
  EXPECT_TRUE(w.empty());
}

}  // namespace
}  // namespace xstack
