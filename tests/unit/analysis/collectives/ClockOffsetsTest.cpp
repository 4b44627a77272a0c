// Clock offsets between nodes from the collectives' ends
// (analysis/collectives/ClockOffsets.h): samples of matched instances only,
// exact integer sums whatever the split over owners, the least-squares fit
// on a chain and on a cycle, unlinked sets, the wire, the reference clock.
#include <gtest/gtest.h>

#include "xstack/analysis/collectives/ClockOffsets.h"

namespace xstack {
namespace {

constexpr uint64_t kT0 = 1'700'000'000'000'000'000ull;

Arrival member(int64_t rank, int64_t instance, uint64_t end, std::string collective = "allreduce",
               int64_t peer = -1) {
  Arrival a;
  a.rank = rank;
  a.collective = std::move(collective);
  a.bytes = 64;
  a.instance = instance;
  a.peer = peer;
  a.startNs = end - 1000;
  a.endNs = end;
  return a;
}

// Ranks 0..5, 2 per node: node 1's clock 5 µs ahead, node 2's 3 µs behind.
std::vector<Arrival> threeNodes(int64_t instances) {
  const int64_t skew[] = {0, 5000, -3000};
  std::vector<Arrival> out;
  for (int64_t i = 0; i < instances; ++i)
    for (int64_t r = 0; r < 6; ++r)
      out.push_back(member(r, i,
                           kT0 + 100'000 * static_cast<uint64_t>(i) + 20 * (r % 2) +
                               static_cast<uint64_t>(skew[r / 2])));
  return out;
}

TEST(ClockOffsets, MatchedCollectivesAcrossNodesAreSampled) {
  ClockPairs pairs;
  addClockSamples(threeNodes(4), {}, 2, pairs);
  ASSERT_EQ(pairs.size(), 2u);  // (0, 1) and (0, 2): each node with the lowest
  EXPECT_EQ(pairs.at({0, 1}).count, 4u);
  EXPECT_EQ(static_cast<int64_t>(pairs.at({0, 1}).sumNs), 4 * 5000);
  EXPECT_EQ(static_cast<int64_t>(pairs.at({0, 2}).sumNs), 4 * -3000);
  const std::vector<NodeClock> clocks = solveClockOffsets(pairs);
  ASSERT_EQ(clocks.size(), 3u);
  EXPECT_EQ(clocks[1].offsetNs, 5000);
  EXPECT_EQ(clocks[2].offsetNs, -3000);
  EXPECT_EQ(clocks[2].reference, 0);
  EXPECT_EQ(clocks[1].spreadNs, 0u);
  // No node count, one node, a send/recv pair, an instance missing a member: no sample.
  ClockPairs none;
  addClockSamples(threeNodes(2), {}, 0, none);
  addClockSamples(threeNodes(2), {}, 6, none);
  addClockSamples({member(0, 0, kT0, "send", 2), member(2, 0, kT0 + 9, "recv", 0)}, {}, 2, none);
  addClockSamples({member(0, 0, kT0), member(2, 0, kT0 + 9)}, {0, 2, 4}, 2, none);
  EXPECT_TRUE(none.empty());
}

TEST(ClockOffsets, AnySplitOverOwnersSumsToTheSameBytes) {
  const std::vector<Arrival> all = threeNodes(6);
  ClockPairs whole, first, second, merged;
  addClockSamples(all, {}, 2, whole);
  addClockSamples({all.begin(), all.begin() + 18}, {}, 2, first);
  addClockSamples({all.begin() + 18, all.end()}, {}, 2, second);
  for (const ClockPairs* part : {&second, &first}) {
    std::vector<ClockPair> list;
    for (const auto& [key, p] : *part) list.push_back(p);
    wire::Writer w;
    writeClockPairs(w, list);
    const std::string bytes = w.take();
    wire::Reader r(bytes, "pairs");
    mergeClockPairs(merged, readClockPairs(r));
    ASSERT_TRUE(r.finish().ok());
  }
  ASSERT_EQ(merged.size(), whole.size());
  for (const auto& [key, p] : whole) {
    EXPECT_EQ(merged.at(key).count, p.count);
    EXPECT_TRUE(merged.at(key).sumNs == p.sumNs && merged.at(key).sumSqNs == p.sumSqNs);
  }
}

TEST(ClockOffsets, LeastSquaresOnACycleAndUnlinkedSets) {
  // 0 -> 1: +100 (10 samples), 1 -> 2: +100 (10), 0 -> 2: +260 (20): the fit
  // spreads the disagreement by weight. Nodes 7 and 9 form a set of their own.
  ClockPairs pairs;
  auto add = [&](int64_t a, int64_t b, uint64_t n, int64_t each) {
    ClockPair& p = pairs[{a, b}];
    p.a = a;
    p.b = b;
    p.count = n;
    p.sumNs = static_cast<__int128>(each) * n;
    p.sumSqNs = static_cast<__int128>(each) * each * n;
  };
  add(0, 1, 10, 100);
  add(1, 2, 10, 100);
  add(0, 2, 20, 260);
  add(7, 9, 4, -40);
  const std::vector<NodeClock> c = solveClockOffsets(pairs);
  ASSERT_EQ(c.size(), 5u);
  EXPECT_EQ(c[0].offsetNs, 0);
  // Minimizes 10(o1-100)^2 + 10(o2-o1-100)^2 + 20(o2-260)^2: o1 = 124, o2 = 248.
  EXPECT_NEAR(static_cast<double>(c[1].offsetNs), 124, 1);
  EXPECT_NEAR(static_cast<double>(c[2].offsetNs), 248, 1);
  EXPECT_EQ(c[3].node, 7);
  EXPECT_EQ(c[3].reference, 7);
  EXPECT_EQ(c[4].offsetNs, -40);
  EXPECT_EQ(clockOffsetOf(c, 9), -40);
  EXPECT_EQ(clockOffsetOf(c, 8), 0);
  const std::string line = clockSummaryLine(c);
  EXPECT_NE(line.find("5 nodes"), std::string::npos) << line;
  EXPECT_NE(line.find("+0.248 us (node 2)"), std::string::npos) << line;
  EXPECT_NE(line.find("2 sets of nodes"), std::string::npos) << line;
  wire::Writer w;
  writeNodeClocks(w, c);
  const std::string bytes = w.take();
  wire::Reader r(bytes, "clocks");
  const std::vector<NodeClock> back = readNodeClocks(r);
  ASSERT_EQ(back.size(), c.size());
  EXPECT_EQ(back[2].offsetNs, c[2].offsetNs);
  EXPECT_EQ(back[4].reference, 7);
  EXPECT_TRUE(clockSummaryLine({}).empty());
}

TEST(ClockOffsets, TheReferenceClockSaturatesAndKeepsUnknownTimes) {
  EXPECT_EQ(toReferenceClock(1000, 300), 700u);
  EXPECT_EQ(toReferenceClock(1000, -300), 1300u);
  EXPECT_EQ(toReferenceClock(100, 300), 0u);
  EXPECT_EQ(toReferenceClock(UINT64_MAX - 5, -300), UINT64_MAX);
  EXPECT_EQ(toReferenceClock(0, 300), 0u);
  EXPECT_EQ(toReferenceClock(toReferenceClock(kT0, 1234), -1234), kT0);
}

}  // namespace
}  // namespace xstack
