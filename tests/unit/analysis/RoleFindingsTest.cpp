// The role rule and the network rule (docs/ANALYSIS.md) on hand-built step
// tables and net cells: a rank against the median of its role, roles kept
// apart, a node whose cross-node transfers are slower than elsewhere.
#include <gtest/gtest.h>

#include <map>
#include <vector>

#include "xstack/analysis/RoleFindings.h"

namespace xstack {
namespace {

// `ranks` ranks x 4 steps: compute `compute` ns (x factor(rank)), idle 1 ms
// (+ stall(rank)), a 1 % jitter by rank and step.
std::vector<RankTable> tables(int ranks, uint64_t compute, const std::map<int, double>& slow,
                              const std::map<int, uint64_t>& stall = {}) {
  std::vector<RankTable> out;
  for (int r = 0; r < ranks; ++r) {
    RankTable t;
    t.rank = r;
    for (int s = 0; s < 4; ++s) {
      StepRow row;
      row.step = s;
      const double jitter = 1 + 0.01 * ((r * 7 + s * 3) % 5 - 2) / 2.0;
      const double f = slow.count(r) ? slow.at(r) : 1.0;
      row.computeNs = static_cast<uint64_t>(static_cast<double>(compute) * f * jitter);
      row.idleNs = 1'000'000 + (stall.count(r) ? stall.at(r) : 0);
      row.stepNs = 20'000'000;
      t.steps.push_back(row);
    }
    out.push_back(t);
  }
  return out;
}

std::map<int64_t, uint64_t> stepMedians() {
  return {{0, 20'000'000}, {1, 20'000'000}, {2, 20'000'000}, {3, 20'000'000}};
}

// Roles: ranks 0-3 one role, 4-7 another (e.g. two pipeline stages).
std::vector<RankInfo> twoRoles() {
  std::vector<RankInfo> v;
  for (int r = 0; r < 8; ++r) v.push_back({r, 4, "0", r < 4 ? 11u : 22u});
  return v;
}

Topology eightPerNode() {
  Topology t;
  t.gpusPerTrainer = 8;
  t.groupSize = 1;
  return t;
}

TEST(RoleFindings, NamesTheRankBehindItsRoleWithItsCause) {
  // Role 22 computes 2x role 11: no finding for that; rank 6 at 1.3x its role: compute.
  auto t = tables(8, 5'000'000, {{4, 2.0}, {5, 2.0}, {6, 2.6}, {7, 2.0}});
  const std::vector<RankInfo> ranks = twoRoles();
  JobBoard board;
  board.collectiveRanks = &ranks;
  auto f = roleFindings(t, eightPerNode(), board, stepMedians(), 80'000'000, {});
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].ranks, std::vector<int64_t>{6});
  EXPECT_EQ(f[0].cause, "compute");
  EXPECT_TRUE(f[0].allSteps);
  EXPECT_NEAR(f[0].computeRatio, 1.3, 0.02);
}

TEST(RoleFindings, AStalledHostIsHostAndAHealthyJobHasNone) {
  const std::vector<RankInfo> ranks = twoRoles();
  JobBoard board;
  board.collectiveRanks = &ranks;
  auto stalled = roleFindings(tables(8, 5'000'000, {}, {{2, 4'000'000}}), eightPerNode(), board,
                              stepMedians(), 80'000'000, {});
  ASSERT_EQ(stalled.size(), 1u);
  EXPECT_EQ(stalled[0].ranks, std::vector<int64_t>{2});
  EXPECT_EQ(stalled[0].cause, "host");
  EXPECT_TRUE(
      roleFindings(tables(8, 5'000'000, {}), eightPerNode(), board, stepMedians(), 80'000'000, {})
          .empty());
}

TEST(RoleFindings, LeavesOutRanksAnotherFindingNamesAndNeedsTheBoard) {
  const std::vector<RankInfo> ranks = twoRoles();
  JobBoard board;
  board.collectiveRanks = &ranks;
  auto t = tables(8, 5'000'000, {{1, 1.5}});
  Finding known;
  known.ranks = {1};
  EXPECT_TRUE(roleFindings(t, eightPerNode(), board, stepMedians(), 80'000'000, {known}).empty());
  EXPECT_TRUE(roleFindings(t, eightPerNode(), JobBoard{}, stepMedians(), 80'000'000, {}).empty());
}

NetCell cell(int64_t node, uint64_t n, uint64_t ns) {
  NetCell c;
  c.collective = "send";
  c.bytes = 1 << 20;
  c.members = 2;
  c.node = node;
  c.instances = n;
  c.transferNs = ns;
  c.groups = 2;
  return c;
}

TEST(NetworkFindings, NamesTheNodeWhoseTransfersAreSlowerThanElsewhere) {
  // Pairs (0,1) and (1,2) take 3 ms, (2,3) 1 ms: node 1 touches only slow ones.
  CollectivesSummary s;
  s.net = {cell(-1, 30, 70'000'000), cell(0, 10, 30'000'000), cell(1, 20, 60'000'000),
           cell(2, 20, 40'000'000), cell(3, 10, 10'000'000)};
  JobBoard board;
  board.collectives = &s;
  Topology topo;
  topo.gpusPerTrainer = 2;
  topo.groupSize = 1;
  auto t = tables(8, 5'000'000, {});
  auto f = networkFindings(t, topo, board, 80'000'000, ".json");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].cause, "network");
  EXPECT_EQ(f[0].trainer, 1);
  EXPECT_EQ(f[0].ranks, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(f[0].costNs, 20'000'000u);  // (3 - 1) ms x 20 instances / 2 groups
}

TEST(NetworkFindings, NothingWhenEveryNodeIsAlike) {
  CollectivesSummary s;
  s.net = {cell(-1, 30, 30'000'000), cell(0, 10, 10'000'000), cell(1, 20, 20'000'000),
           cell(2, 20, 20'000'000), cell(3, 10, 10'000'000)};
  JobBoard board;
  board.collectives = &s;
  EXPECT_TRUE(networkFindings(tables(8, 5'000'000, {}), eightPerNode(), board, 80'000'000, ".json")
                  .empty());
}

}  // namespace
}  // namespace xstack
