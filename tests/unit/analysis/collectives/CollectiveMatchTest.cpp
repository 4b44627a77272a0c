// The "collectives" analysis' matching and statistics on hand-built arrivals
// (analysis/collectives/CollectiveMatch.h): two groups, a late rank, a
// mismatched instance, a missing member, send/recv pairs, busbw factors,
// the late rank's cause, and the CSV text.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <random>

#include "xstack/analysis/collectives/CollectiveMatch.h"
#include "xstack/analysis/collectives/GroupInstances.h"

namespace xstack {
namespace {

Arrival arrival(int64_t rank, std::string group, std::string collective, uint64_t bytes,
                int64_t instance, uint64_t start, uint64_t end, int64_t peer = -1) {
  Arrival a;
  a.rank = rank;
  a.group = std::move(group);
  a.collective = std::move(collective);
  a.bytes = bytes;
  a.instance = instance;
  a.startNs = start;
  a.endNs = end;
  a.peer = peer;
  return a;
}

// Group "": allreduce of 1024 bytes on ranks 0..3, rank 3 late in instance
// 0 (by 300 ns), rank 1 in instance 1 (by 100 ns). Group "1": allgather of
// 2048 bytes on ranks 0 and 1, rank 1 late by 50 ns.
CollectivesSummary twoGroups() {
  std::vector<Arrival> all;
  for (int64_t r = 0; r < 4; ++r) {
    all.push_back(arrival(r, "", "allreduce", 1024, 0, r == 3 ? 400 : 100, 500));
    all.push_back(arrival(r, "", "allreduce", 1024, 1, r == 1 ? 1100 : 1000, 1300));
  }
  std::vector<Arrival> g1{arrival(1, "1", "allgather", 2048, 0, 50, 150),
                          arrival(0, "1", "allgather", 2048, 0, 0, 150)};
  CollectivesSummary s;
  summarizeGroup("1", g1, {}, s);  // any order of groups gives the same summary
  summarizeGroup("", all, {}, s);
  return s;
}

TEST(CollectiveMatch, TwoGroupsAndTheirLateRanks) {
  const CollectivesSummary s = twoGroups();
  EXPECT_EQ(s.groups, 2u);
  EXPECT_EQ(s.matched, 3u);
  EXPECT_EQ(s.problems, 0u);
  ASSERT_EQ(s.rows.size(), 2u);
  const CollectiveRow& ar = s.rows[0];
  EXPECT_EQ(ar.group, "");
  EXPECT_EQ(ar.collective, "allreduce");
  EXPECT_EQ(ar.count, 2u);
  EXPECT_EQ(ar.transferP50Ns, 100u);  // 500 - 400
  EXPECT_EQ(ar.transferP95Ns, 200u);  // 1300 - 1100
  EXPECT_EQ(ar.waitNs, 3 * 300u + 3 * 100u);
  EXPECT_EQ(ar.topLateRank, 1);  // once each: the lower rank
  EXPECT_EQ(ar.topLateCount, 1u);
  ASSERT_TRUE(ar.hasBusbw);
  EXPECT_DOUBLE_EQ(ar.busbwP50Gbps, 1024.0 / 200 * 1.5);  // lower of 7.68 and 15.36
  const CollectiveRow& ag = s.rows[1];
  EXPECT_EQ(ag.group, "1");
  EXPECT_DOUBLE_EQ(ag.busbwP50Gbps, 2048.0 / 100 * 0.5);
  EXPECT_EQ(ag.topLateRank, 1);
  ASSERT_EQ(s.ranks.size(), 4u);
  EXPECT_EQ(s.ranks[0].waitedNs, 300u + 100u + 50u);
  EXPECT_EQ(s.ranks[3].waitedNs, 100u);
  EXPECT_EQ(s.ranks[3].causedNs[static_cast<int>(LateCause::Unknown)], 900u);
  EXPECT_EQ(s.ranks[1].causedNs[static_cast<int>(LateCause::Unknown)], 300u + 50u);
}

// One entry per (group, last arriver): the members' waits charged to it there.
void expectGroupBlame(const GroupBlame& g, const std::string& group, int64_t rank,
                      uint64_t waitedForNs, uint64_t instances) {
  EXPECT_EQ(g.group, group);
  EXPECT_EQ(g.rank, rank);
  EXPECT_EQ(g.waitedForNs, waitedForNs);
  EXPECT_EQ(g.instances, instances);
}

TEST(CollectiveMatch, GroupBlamePerGroupAndLateRank) {
  const CollectivesSummary s = twoGroups();
  ASSERT_EQ(s.groupBlame.size(), 3u);
  expectGroupBlame(s.groupBlame[0], "", 1, 3 * 100u, 1);
  expectGroupBlame(s.groupBlame[1], "", 3, 3 * 300u, 1);
  expectGroupBlame(s.groupBlame[2], "1", 1, 50u, 1);
}

TEST(CollectiveMatch, GroupBlameMergesAndTravels) {
  // The same (group, rank) from two summaries is joined (sums), the others kept in order.
  CollectivesSummary a, b;
  a.groupBlame = {{"dp", 3, 100, 1}, {"tp", 0, 7, 2}};
  b.groupBlame = {{"dp", 3, 50, 2}, {"dp", 1, 5, 1}, {"<g>", 9, 1, 1}};
  wire::Writer w;
  writeSummary(w, b);
  const std::string bytes = w.take();
  wire::Reader r(bytes);
  CollectivesSummary back = readSummary(r);
  ASSERT_TRUE(r.finish().ok());
  ASSERT_EQ(back.groupBlame.size(), 3u);
  expectGroupBlame(back.groupBlame[2], "<g>", 9, 1, 1);
  mergeSummary(a, std::move(back));
  ASSERT_EQ(a.groupBlame.size(), 4u);
  expectGroupBlame(a.groupBlame[0], "<g>", 9, 1, 1);
  expectGroupBlame(a.groupBlame[1], "dp", 1, 5, 1);
  expectGroupBlame(a.groupBlame[2], "dp", 3, 150, 3);
  expectGroupBlame(a.groupBlame[3], "tp", 0, 7, 2);
}

TEST(CollectiveMatch, MismatchedAndIncompleteInstancesAreProblems) {
  std::vector<Arrival> a;
  for (int64_t r = 0; r < 3; ++r) {
    a.push_back(arrival(r, "7", "allreduce", r == 2 ? 2048 : 1024, 0, 10, 20));  // bytes differ
    if (r != 2) a.push_back(arrival(r, "7", "allreduce", 1024, 1, 30, 40));      // rank 2 missing
    a.push_back(arrival(r, "7", r == 1 ? "broadcast" : "allreduce", 1024, 2, 50, 60));
    a.push_back(arrival(r, "7", "allreduce", 1024, 3, 70, 80));
  }
  CollectivesSummary s;
  summarizeGroup("7", a, {}, s);
  EXPECT_EQ(s.matched, 1u);
  EXPECT_EQ(s.problems, 3u);
  ASSERT_EQ(s.examples.size(), 3u);
  EXPECT_EQ(s.examples[0].text,
            "group \"7\" allreduce instance 0: rank 0 1024 bytes, rank 2 2048 bytes");
  EXPECT_EQ(s.examples[1].text, "group \"7\" allreduce instance 1: rank 2 missing");
  EXPECT_EQ(s.examples[2].text,
            "group \"7\" allreduce instance 2: rank 0 allreduce, rank 1 broadcast");
  ASSERT_EQ(s.rows.size(), 1u);
  EXPECT_EQ(s.rows[0].count, 1u);
}

// All-to-alls: each rank's splits are its own, so members' bytes may differ
// (PyTorch's all_to_allv, MoE token routing); the instance is matched, its
// bytes are its largest member's, and an alltoallv's instances of any size
// make one row (bytes 0), as do an alltoall's uneven ones. Any other
// collective's sizes must still agree.
TEST(CollectiveMatch, AllToAllMembersMaySendDifferentBytes) {
  std::vector<Arrival> a;
  for (int64_t r = 0; r < 4; ++r) {
    a.push_back(arrival(r, "5", "alltoallv", 1000 + 100 * static_cast<uint64_t>(r), 0,
                        r == 2 ? 150 : 100, 400));
    a.push_back(arrival(r, "5", "alltoallv", 500 + 10 * static_cast<uint64_t>(r), 1,
                        r == 2 ? 1010 : 1000, 1300));
    a.push_back(arrival(r, "5", "alltoall", r == 0 ? 64 : 32, 2, 2000, 2100));  // uneven
    a.push_back(arrival(r, "5", "alltoall", 32, 3, 3000, 3100));
  }
  CollectivesSummary s;
  summarizeGroup("5", a, {}, s);
  EXPECT_EQ(s.matched, 4u);
  EXPECT_EQ(s.problems, 0u);
  ASSERT_EQ(s.rows.size(), 3u);
  EXPECT_EQ(s.rows[0].collective, "alltoall");
  EXPECT_EQ(s.rows[0].bytes, 0u);  // its members' sizes differ
  ASSERT_TRUE(s.rows[0].hasBusbw);
  EXPECT_DOUBLE_EQ(s.rows[0].busbwP50Gbps, 64.0 / 100 * 0.75);  // its largest member's bytes
  EXPECT_EQ(s.rows[1].collective, "alltoall");
  EXPECT_EQ(s.rows[1].bytes, 32u);  // an even one keeps its size
  EXPECT_EQ(s.rows[2].collective, "alltoallv");
  EXPECT_EQ(s.rows[2].bytes, 0u);  // sizes vary: one row
  EXPECT_EQ(s.rows[2].count, 2u);
  EXPECT_EQ(s.rows[2].topLateRank, 2);
  ASSERT_TRUE(s.rows[2].hasBusbw);
  // Nearest-rank p50 of 1300 B / 250 ns and 530 B / 290 ns, x (n-1)/n = 0.75.
  EXPECT_DOUBLE_EQ(s.rows[2].busbwP50Gbps, 530.0 / 290 * 0.75);
  // The median of the calls' sizes (each its largest member's): nearest-rank of {530, 1300}.
  EXPECT_EQ(s.rows[2].bytesP50, 530u);
  EXPECT_EQ(s.rows[0].bytesP50, 64u);
  EXPECT_EQ(s.rows[1].bytesP50, 32u);  // a row of one size: that size
  const std::vector<InstanceSlice> slices = instanceSlices(a, {});
  ASSERT_EQ(slices.size(), 4u);
  EXPECT_EQ(slices[0].bytes, 1300u);
  EXPECT_EQ(slices[1].bytes, 530u);
  EXPECT_EQ(slices[2].bytes, 64u);

  std::vector<Arrival> b{arrival(0, "6", "allgather", 8, 0, 0, 10),
                         arrival(1, "6", "allgather", 16, 0, 0, 10)};
  CollectivesSummary t;
  summarizeGroup("6", b, {}, t);
  EXPECT_EQ(t.problems, 1u);
  EXPECT_TRUE(sizesMayDiffer("alltoallv") && sizesMayDiffer("alltoall"));
  EXPECT_FALSE(sizesMayDiffer("allgather") || sizesMayDiffer("send"));
  EXPECT_TRUE(sizesVaryByCall("alltoallv"));
  EXPECT_FALSE(sizesVaryByCall("alltoall") || sizesVaryByCall("allreduce"));
}

TEST(CollectiveMatch, TheGroupsRanksWhenKnownNameTheMissingMember) {
  // Ranks 0 and 1 agree, but the group is {0, 1, 5}: rank 5 never came.
  std::vector<Arrival> a{arrival(0, "2", "allgather", 8, 0, 0, 10),
                         arrival(1, "2", "allgather", 8, 0, 0, 10)};
  CollectivesSummary s;
  summarizeGroup("2", a, {0, 1, 5}, s);
  EXPECT_EQ(s.matched, 0u);
  EXPECT_EQ(s.problems, 1u);
  ASSERT_EQ(s.examples.size(), 1u);
  EXPECT_EQ(s.examples[0].text, "group \"2\" allgather instance 0: rank 5 missing");
}

// Pipeline stages send both ways (activations forward, gradients back): a
// send pairs with the recv of its direction, never with the peer's own send.
TEST(CollectiveMatch, SendsBothWaysPairByDirection) {
  std::vector<Arrival> a{
      arrival(0, "", "send", 64, 0, 100, 200, 1),
      arrival(1, "", "send", 64, 0, 120, 220, 0),
      arrival(1, "", "recv", 64, 0, 150, 210, 0),
      arrival(0, "", "recv", 64, 0, 160, 230, 1),
  };
  CollectivesSummary s;
  summarizeGroup("", a, {}, s);
  EXPECT_EQ(s.matched, 2u);
  EXPECT_EQ(s.problems, 0u);
}

TEST(CollectiveMatch, SendAndRecvPairByPeerAndOrder) {
  std::vector<Arrival> a{
      arrival(0, "", "send", 64, 0, 100, 200, 1), arrival(1, "", "recv", 64, 0, 150, 210, 0),
      arrival(0, "", "send", 64, 1, 300, 400, 1), arrival(1, "", "recv", 64, 1, 290, 420, 0),
      arrival(2, "", "send", 64, 0, 0, 10, 3),  // rank 3 never receives it
  };
  CollectivesSummary s;
  summarizeGroup("", a, {}, s);
  EXPECT_EQ(s.matched, 2u);
  EXPECT_EQ(s.problems, 1u);
  ASSERT_EQ(s.examples.size(), 1u);
  EXPECT_EQ(s.examples[0].text, "group \"\" send instance 0 (ranks 2 -> 3): rank 3 missing");
  ASSERT_EQ(s.rows.size(), 1u);
  EXPECT_EQ(s.rows[0].collective, "send");  // a pair counts as one send
  EXPECT_EQ(s.rows[0].count, 2u);
  EXPECT_EQ(s.rows[0].transferP50Ns, 60u);  // 210 - 150, 420 - 300 = 120
  EXPECT_EQ(s.rows[0].waitNs, 50u + 10u);
  EXPECT_DOUBLE_EQ(s.rows[0].busbwP50Gbps, 64.0 / 120);  // the lower of 64/60, 64/120
  EXPECT_EQ(s.rows[0].topLateRank, 0);                   // late once each: the lower rank
}

TEST(CollectiveMatch, BusBandwidthFactorsAreNcclTests) {
  EXPECT_DOUBLE_EQ(busBandwidthFactor("allreduce", 4), 1.5);
  EXPECT_DOUBLE_EQ(busBandwidthFactor("allgather", 4), 0.75);
  EXPECT_DOUBLE_EQ(busBandwidthFactor("reduce_scatter", 2), 0.5);
  EXPECT_DOUBLE_EQ(busBandwidthFactor("alltoall", 8), 0.875);
  EXPECT_DOUBLE_EQ(busBandwidthFactor("alltoallv", 8), 0.875);
  EXPECT_DOUBLE_EQ(busBandwidthFactor("allgather_coalesced", 8), 0.875);
  EXPECT_DOUBLE_EQ(busBandwidthFactor("allreduce_coalesced", 4), 1.5);
  EXPECT_DOUBLE_EQ(busBandwidthFactor("_coalesced", 4), 1);
  EXPECT_DOUBLE_EQ(busBandwidthFactor("broadcast", 4), 1);
  EXPECT_DOUBLE_EQ(busBandwidthFactor("reduce", 4), 1);
  EXPECT_DOUBLE_EQ(busBandwidthFactor("send", 2), 1);
  EXPECT_DOUBLE_EQ(busBandwidthFactor("recv", 2), 1);
}

TEST(CollectiveMatch, TheLateRanksCause) {
  // Rank 2 is 1000 ns late in both: it computed 600 ns longer than the
  // median in instance 0 (>= half its lateness); in instance 1 it computed
  // as long but its GPU idled longer.
  std::vector<Arrival> a;
  for (int64_t r = 0; r < 3; ++r) {
    Arrival x = arrival(r, "", "allreduce", 4, 0, r == 2 ? 2000 : 1000, 2100);
    x.computeNs = r == 2 ? 1100 : 500;
    a.push_back(x);
    Arrival y = arrival(r, "", "allreduce", 4, 1, r == 2 ? 5000 : 4000, 5100);
    y.computeNs = 500;
    y.idleNs = r == 2 ? 900 : 0;
    a.push_back(y);
  }
  CollectivesSummary s;
  summarizeGroup("", a, {}, s);
  ASSERT_EQ(s.ranks.size(), 3u);
  EXPECT_EQ(s.ranks[2].causedNs[static_cast<int>(LateCause::Compute)], 2000u);
  EXPECT_EQ(s.ranks[2].causedNs[static_cast<int>(LateCause::Host)], 2000u);
  EXPECT_EQ(s.ranks[2].causedNs[static_cast<int>(LateCause::Unknown)], 0u);
}

TEST(CollectiveMatch, ALateRankWhoseCopiesTookLongerIsMemcpy) {
  // Rank 1 is 1000 ns late in both: in instance 0 its copies took 700 ns
  // longer than the median's (>= half its lateness) and its GPU also idled a
  // little longer: memcpy comes before host. In instance 1 its copies took
  // only 400 ns longer: host.
  std::vector<Arrival> a;
  for (int64_t r = 0; r < 3; ++r) {
    Arrival x = arrival(r, "", "allreduce", 4, 0, r == 1 ? 2000 : 1000, 2100);
    x.computeNs = 500;
    x.memcpyNs = r == 1 ? 900 : 200;
    x.idleNs = r == 1 ? 300 : 0;
    a.push_back(x);
    Arrival y = arrival(r, "", "allreduce", 4, 1, r == 1 ? 5000 : 4000, 5100);
    y.memcpyNs = r == 1 ? 600 : 200;
    y.idleNs = r == 1 ? 600 : 0;
    a.push_back(y);
  }
  CollectivesSummary s;
  summarizeGroup("", a, {}, s);
  ASSERT_EQ(s.ranks.size(), 3u);
  EXPECT_EQ(s.ranks[1].causedNs[static_cast<int>(LateCause::Memcpy)], 2000u);
  EXPECT_EQ(s.ranks[1].causedNs[static_cast<int>(LateCause::Host)], 2000u);
  EXPECT_STREQ(lateCauseName(LateCause::Memcpy), "memcpy");
}

TEST(CollectiveMatch, ALateRankThatWasItselfWaitingPassesTheWaitOn) {
  // Instance 0: rank 2 is 1000 ns late and was free 800 ns after the median
  // member (its previous collective ended late): waiting, checked before
  // compute even though it also computed 600 ns longer. Instance 1: free
  // 400 ns late only (< half of 1000): its compute explains it.
  std::vector<Arrival> a;
  for (int64_t r = 0; r < 3; ++r) {
    Arrival x = arrival(r, "", "allreduce", 4, 0, r == 2 ? 2000 : 1000, 2100);
    x.freeNs = r == 2 ? 900 : 100;
    x.computeNs = r == 2 ? 1100 : 500;
    a.push_back(x);
    Arrival y = arrival(r, "", "allreduce", 4, 1, r == 2 ? 5000 : 4000, 5100);
    y.freeNs = r == 2 ? 3000 : 2600;
    y.computeNs = r == 2 ? 1100 : 500;
    a.push_back(y);
  }
  CollectivesSummary s;
  summarizeGroup("", a, {}, s);
  ASSERT_EQ(s.ranks.size(), 3u);
  EXPECT_EQ(s.ranks[2].causedNs[static_cast<int>(LateCause::Waiting)], 2000u);
  EXPECT_EQ(s.ranks[2].causedNs[static_cast<int>(LateCause::Compute)], 2000u);
  EXPECT_STREQ(lateCauseName(LateCause::Waiting), "waiting");
  // Ties in top_cause: compute before waiting.
  const std::string csv = waitsCsv(s, {{0, 1, "0", 0}, {1, 1, "0", 0}, {2, 1, "0", 0}});
  EXPECT_NE(csv.find("\n2,0,0.000,0.004,compute,,\n"), std::string::npos) << csv;
}

TEST(CollectiveMatch, OwnersSummariesMergeAndTravel) {
  CollectivesSummary a, b, both;
  const CollectivesSummary whole = twoGroups();
  std::vector<Arrival> g1{arrival(1, "1", "allgather", 2048, 0, 50, 150),
                          arrival(0, "1", "allgather", 2048, 0, 0, 150)};
  summarizeGroup("1", g1, {}, b);
  std::vector<Arrival> all;
  for (int64_t r = 0; r < 4; ++r) {
    all.push_back(arrival(r, "", "allreduce", 1024, 0, r == 3 ? 400 : 100, 500));
    all.push_back(arrival(r, "", "allreduce", 1024, 1, r == 1 ? 1100 : 1000, 1300));
  }
  summarizeGroup("", all, {}, a);
  wire::Writer w;
  writeSummary(w, b);
  const std::string bytes = w.take();
  wire::Reader r(bytes);
  CollectivesSummary back = readSummary(r);
  ASSERT_TRUE(r.finish().ok());
  mergeSummary(both, std::move(back));
  mergeSummary(both, std::move(a));
  EXPECT_EQ(collectivesCsv(both), collectivesCsv(whole));
  std::vector<RankInfo> ranks{{0, 2, "n0"}, {1, 2, "n0"}, {2, 2, "n1"}, {3, 2, "n1"}};
  EXPECT_EQ(waitsCsv(both, ranks), waitsCsv(whole, ranks));
  ASSERT_EQ(both.groupBlame.size(), whole.groupBlame.size());
  for (size_t i = 0; i < both.groupBlame.size(); ++i)
    expectGroupBlame(both.groupBlame[i], whole.groupBlame[i].group, whole.groupBlame[i].rank,
                     whole.groupBlame[i].waitedForNs, whole.groupBlame[i].instances);
}

// A random group of 8 ranks on 2 nodes: all-reduces of two sizes and
// send/recv pairs, late ranks, and instances with a member missing or
// disagreeing (problems, more than kProblemExamples of them).
std::vector<Arrival> randomGroup(std::mt19937_64& rng) {
  std::vector<Arrival> all;
  for (int64_t n = 0; n < 60; ++n) {
    const uint64_t bytes = n % 3 == 0 ? 4096 : 1024;
    const int64_t missing = rng() % 9 == 0 ? static_cast<int64_t>(rng() % 8) : -1;
    for (int64_t r = 0; r < 8; ++r) {
      if (r == missing) continue;
      const uint64_t start = 1000 * n + rng() % 300;
      const uint64_t size = rng() % 23 == 0 ? bytes * 2 : bytes;  // a member that disagrees
      all.push_back(arrival(r, "g", "allreduce", size, n, start, 1000 * n + 400 + rng() % 50));
    }
  }
  for (int64_t n = 0; n < 40; ++n) {
    const auto src = static_cast<int64_t>(rng() % 7);
    const uint64_t at = 100000 + 500 * n;
    all.push_back(arrival(src, "g", "send", 512, n, at + rng() % 100, at + 300, src + 1));
    if (rng() % 11 != 0)
      all.push_back(arrival(src + 1, "g", "recv", 512, n, at + rng() % 100, at + 300, src));
  }
  std::shuffle(all.begin(), all.end(), rng);
  return all;
}

// A group's summary is the same bytes whether one builder sees every
// instance or the instances are split into shards (inShard), one builder
// each, absorbed into one another in any order.
TEST(CollectiveMatch, ShardsAbsorbedSummarizeAsOneBuilder) {
  std::mt19937_64 rng(17);
  for (int trial = 0; trial < 20; ++trial) {
    const std::vector<Arrival> all = randomGroup(rng);
    const GroupMatch match = matchGroup(all, {});
    auto encoded = [](CollectivesSummary& s) {
      wire::Writer w;
      writeSummary(w, s);
      return w.take();
    };
    CollectivesSummary whole;
    summarizeMatched("g", all, match, whole, 4);
    ASSERT_GT(whole.problems, kProblemExamples);
    for (unsigned count : {2U, 3U, 5U}) {
      std::vector<std::unique_ptr<GroupSummaryBuilder>> shards;
      for (unsigned s = 0; s < count; ++s)
        shards.push_back(std::make_unique<GroupSummaryBuilder>("g", 4));
      InstanceMembers instance;
      for (size_t n = 0; n < match.instances.size(); ++n) {
        instanceOf(all, match, n, instance);
        for (unsigned s = 0; s < count; ++s)
          if (inShard(instance.key, {s, count})) shards[s]->add(instance);
      }
      std::shuffle(shards.begin(), shards.end(), rng);
      for (unsigned s = 1; s < count; ++s) shards[0]->absorb(std::move(*shards[s]));
      CollectivesSummary split;
      shards[0]->finish(split);
      EXPECT_EQ(encoded(split), encoded(whole)) << "trial " << trial << ", " << count << " shards";
      EXPECT_EQ(collectivesCsv(split), collectivesCsv(whole));
    }
  }
}

// Every instance is in exactly one shard of any count.
TEST(CollectiveMatch, EachInstanceIsInOneShard) {
  for (unsigned count = 1; count <= 8; ++count)
    for (int64_t low : {-1, 0, 3})
      for (int64_t instance = 0; instance < 50; ++instance) {
        const InstanceKey key{low, low < 0 ? -1 : low + 1, instance};
        int in = 0;
        for (unsigned s = 0; s < count; ++s) in += inShard(key, {s, count}) ? 1 : 0;
        EXPECT_EQ(in, 1) << count << " " << low << " " << instance;
      }
}

TEST(CollectiveMatch, CsvText) {
  const CollectivesSummary s = twoGroups();
  EXPECT_EQ(collectivesCsv(s),
            "group,collective,bytes,count,transfer_p50_ms,transfer_p95_ms,busbw_p50_gbps,wait_ms,"
            "top_late_rank,top_late_share,bytes_p50\n"
            ",allreduce,1024,2,0.000,0.000,7.680,0.001,1,0.500,1024\n"
            "1,allgather,2048,1,0.000,0.000,10.240,0.000,1,1.000,2048\n");
  std::vector<RankInfo> ranks{{0, 1, "n0"}, {1, 0, "n0"}, {2, 1, "n,1"}, {3, 1, "n1"}};
  EXPECT_EQ(
      waitsCsv(s, ranks),
      "rank,node,waited_ms_per_step,caused_ms_per_step,top_cause,clock_offset_us,clock_spread_us\n"
      "0,n0,0.000,0.000,,,\n"
      "1,n0,0.000,0.000,unknown,,\n"
      "2,\"n,1\",0.000,0.000,,,\n"
      "3,n1,0.000,0.001,unknown,,\n");
  EXPECT_EQ(msText(1234567), "1.235");
  EXPECT_EQ(msText(499), "0.000");
  EXPECT_EQ(msText(500), "0.001");
  const std::vector<std::string> lines = collectivesSummaryLines(s, ranks);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(
      lines[0],
      "collectives: 2 groups, 3 instances matched (0 unmatched); per rank in waits.csv (a rank "
      "late because it waited itself: cause waiting)");
  EXPECT_EQ(waitsCsv(CollectivesSummary{}, ranks),
            "rank,node,waited_ms_per_step,caused_ms_per_step,top_cause,clock_offset_us,clock_"
            "spread_us\n");
  EXPECT_TRUE(collectivesSummaryLines(CollectivesSummary{}, ranks).empty());
}

TEST(CollectiveMatch, OwnerIsAFunctionOfTheGroupName) {
  for (int size : {1, 2, 3, 7}) {
    for (const char* g : {"", "0", "1", "default_pg"}) {
      const int o = collectiveGroupOwner(g, size);
      EXPECT_GE(o, size > 1 ? 1 : 0);  // rank 0 owns no group when there are others
      EXPECT_LT(o, size);
      EXPECT_EQ(o, collectiveGroupOwner(std::string(g), size));
    }
  }
  EXPECT_EQ(collectiveGroupOwner("anything", 1), 0);
  // 1 + FNV-1a 64 ("a" hashes to 0xaf63dc4c8601ec8c) mod (size - 1).
  EXPECT_EQ(collectiveGroupOwner("a", 1000003), 793535);
  EXPECT_EQ(collectiveGroupOwner("", 1000003), 361152);
}

}  // namespace
}  // namespace xstack
