// OverlapLanes: the lanes a linear scan would choose, in
// O(log lanes) tree probes per call.
#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <random>
#include <vector>

#include "xstack/render/OverlapLanes.h"

using xstack::OverlapLanes;

namespace {

// The rule written as a scan over every lane (the encoder's earlier code).
struct ScanLanes {
  std::vector<std::vector<uint64_t>> open;
  size_t laneFor(uint64_t endNs) const {
    for (size_t i = 0; i < open.size(); ++i)
      if (open[i].empty() || endNs <= open[i].back()) return i;
    return open.size();
  }
  std::optional<size_t> firstEndingBy(uint64_t tsNs) const {
    std::optional<size_t> next;
    for (size_t i = 0; i < open.size(); ++i)
      if (!open[i].empty() && open[i].back() <= tsNs &&
          (!next || open[i].back() < open[*next].back()))
        next = i;
    return next;
  }
};

// One slice through both, as the encoder does it: close what ended, take
// the lowest lane it nests in, else a new lane.
void openBoth(OverlapLanes& tree, ScanLanes& scan, uint64_t ts, uint64_t end) {
  for (;;) {
    std::optional<size_t> a = tree.firstEndingBy(ts), b = scan.firstEndingBy(ts);
    ASSERT_EQ(a, b) << "closing at " << ts;
    if (!a) break;
    ASSERT_EQ(tree.innermostEnd(*a), scan.open[*a].back());
    tree.close(*a);
    scan.open[*a].pop_back();
  }
  size_t lane = tree.laneFor(end);
  ASSERT_EQ(lane, scan.laneFor(end)) << "slice " << ts << ".." << end;
  if (lane == tree.size()) {
    ASSERT_EQ(tree.addLane(), lane);
    scan.open.emplace_back();
  }
  tree.open(lane, end);
  scan.open[lane].push_back(end);
}

}  // namespace

TEST(OverlapLanes, ChoosesTheLanesOfAScanOnRandomSlices) {
  std::mt19937_64 rng(21);
  for (int round = 0; round < 20; ++round) {
    OverlapLanes tree;
    ScanLanes scan;
    uint64_t ts = 0;
    for (int i = 0; i < 3000; ++i) {
      ts += rng() % 4;  // ties in start and end on purpose
      const uint64_t dur = rng() % (round % 2 ? 400 : 20);
      openBoth(tree, scan, ts, ts + dur);
      if (HasFailure()) return;
    }
    openBoth(tree, scan, UINT64_MAX, UINT64_MAX);  // the encoder's finish()
    EXPECT_EQ(tree.size(), scan.open.size());
  }
}

TEST(OverlapLanes, AnEmptyLaneTakesAnySliceAndEndsNever) {
  OverlapLanes t;
  EXPECT_EQ(t.laneFor(0), 0u);  // no lane yet
  EXPECT_EQ(t.addLane(), 0u);
  EXPECT_EQ(t.laneFor(UINT64_MAX), 0u);
  EXPECT_EQ(t.firstEndingBy(UINT64_MAX), std::nullopt);
  t.open(0, 10);
  EXPECT_EQ(t.laneFor(11), 1u);  // does not nest: a new lane is needed
  EXPECT_EQ(t.laneFor(10), 0u);  // ends with it: nests
  EXPECT_EQ(t.firstEndingBy(9), std::nullopt);
  EXPECT_EQ(t.firstEndingBy(10), 0u);
}

// The shapes: 40k slices crossing each other (40k lanes at once),
// and 100k ordinary slices after them. A scan visits every lane per call;
// the tree at most log2(leaves) + 1 nodes per call.
TEST(OverlapLanes, EachCallProbesLogLanesNodes) {
  for (uint64_t n : {4000ull, 40000ull}) {
    OverlapLanes tree;
    uint64_t calls = 0;
    auto slice = [&](uint64_t ts, uint64_t end) {
      for (++calls; std::optional<size_t> l = tree.firstEndingBy(ts); ++calls) tree.close(*l);
      ++calls;
      const size_t lane = tree.laneFor(end);
      if (lane == tree.size()) tree.addLane();
      tree.open(lane, end);
      return lane;
    };
    for (uint64_t i = 0; i < n; ++i) slice(i, n + i);  // each crosses all open ones
    EXPECT_EQ(tree.size(), n);
    for (uint64_t ts = 4 * n; ts < 4 * n + 1000000; ts += 10) ASSERT_EQ(slice(ts, ts + 5), 0u);
    const double perCall = double(tree.probes()) / double(calls);
    EXPECT_LE(perCall, std::ceil(std::log2(double(n))) + 1) << n << " lanes";
    EXPECT_GT(calls, 200000u);
  }
}
