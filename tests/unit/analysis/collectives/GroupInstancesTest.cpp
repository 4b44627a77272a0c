// An owner's walk over a group's instances (analysis/collectives/GroupInstances.h):
// on any budget, spilled or not, it gives exactly matchGroup's instances of
// the decoded group after the move to the reference clocks, each with its
// members' origins and own-clock starts; an instance's problem names the
// first missing rank and the first stranger as the full check did.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "../../TempDirTest.h"
#include "xstack/analysis/collectives/GroupInstances.h"

namespace xstack {
namespace {

constexpr int64_t kRanks = 12;
constexpr int64_t kPerNode = 4;

// One arrival's encoding as a routed message carries it (OwnedGroupsTest's).
std::string encodingOf(const Arrival& a) {
  wire::Writer w;
  writeRankArrivals(w, RankArrivals{a.rank, 1, {a}, {}});
  wire::Writer empty;
  writeRankArrivals(empty, RankArrivals{a.rank, 1, {}, {}});
  const std::string full = w.take(), none = empty.take();
  const size_t head = none.size() - 1;
  return full.substr(head, full.size() - none.size());
}

// A group of every kind of instance: whole-group collectives (some with a
// member missing, one twice, one that disagrees), sends and receives between
// pairs, ties in start times, in an order no sort would give.
std::vector<Arrival> mixedArrivals(uint32_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Arrival> out;
  for (int64_t inst = 0; inst < 300; ++inst)
    for (int64_t rank = 0; rank < kRanks; ++rank) {
      if (rng() % 97 == 0) continue;  // a member missing
      Arrival a;
      a.rank = rank;
      a.group = "dp";
      a.collective = rng() % 211 == 0 ? "allgather" : "allreduce";
      a.bytes = rng() % 307 == 0 ? 8 : 4096;
      a.instance = inst;
      a.startNs = 1'000'000 + static_cast<uint64_t>(inst) * 1000 + rng() % 4 * 10;  // ties
      a.endNs = a.startNs + 500 + rng() % 3;
      a.launchNs = a.startNs - 40;
      a.freeNs = a.startNs - 100 - rng() % 50;
      a.computeNs = rng() % 1000;
      a.idleNs = rng() % 1000;
      a.memcpyNs = rng() % 100;
      a.step = inst / 100;
      out.push_back(a);
      if (rng() % 389 == 0) {  // the same rank twice: the same start, an earlier end
        out.push_back(a);
        out.back().endNs -= 1;
      }
      if (rng() % 389 == 0) out.push_back(a);  // the same rank twice, alike: input order decides
    }
  for (int64_t k = 0; k < 200; ++k)
    for (int64_t src = 0; src + 4 < kRanks; src += 4) {
      Arrival s;
      s.rank = src;
      s.group = "dp";
      s.collective = "send";
      s.peer = src + 4;
      s.bytes = 1 << 20;
      s.instance = k;
      s.startNs = 2'000'000 + static_cast<uint64_t>(k) * 700 + rng() % 5;
      s.endNs = s.startNs + 300;
      s.step = 1;
      Arrival r = s;
      r.rank = src + 4;
      r.peer = src;
      r.collective = "recv";
      r.startNs = s.startNs + rng() % 200;
      out.push_back(s);
      if (rng() % 151 != 0) out.push_back(r);  // a receive missing now and then
    }
  std::shuffle(out.begin(), out.end(), rng);
  // Each rank's own arrivals stay in its order of start, as a trace gives them.
  std::stable_sort(out.begin(), out.end(),
                   [](const Arrival& a, const Arrival& b) { return a.rank < b.rank; });
  return out;
}

std::vector<NodeClock> someClocks() {
  return {{0, 0, 0, 0, 3}, {1, 0, -2'500, 40, 3}, {2, 0, 7'000, 10, 3}};
}

// One instance as text: key, problem, and per member its fields and origin.
std::string instanceText(const InstanceMembers& in, const std::vector<MemberOrigin>& origins) {
  std::string s = std::to_string(std::get<0>(in.key)) + "," + std::to_string(std::get<1>(in.key)) +
                  "," + std::to_string(std::get<2>(in.key)) + " [" + in.problem + "]";
  for (size_t i = 0; i < in.members.size(); ++i) {
    const Arrival& a = *in.members[i];
    s += " " + std::to_string(a.rank) + ":" + a.collective + ":" + std::to_string(a.bytes) + ":" +
         std::to_string(a.startNs) + "-" + std::to_string(a.endNs) + ":" +
         std::to_string(a.launchNs) + ":" + std::to_string(a.freeNs) + ":" +
         std::to_string(a.computeNs) + ":" + std::to_string(a.idleNs) + ":" +
         std::to_string(a.memcpyNs) + ":" + std::to_string(a.step) + ":" + std::to_string(a.peer) +
         "<" + std::to_string(origins[i].origin.first) + "." +
         std::to_string(origins[i].origin.second) + "@" + std::to_string(origins[i].base.rank) +
         "/" + std::to_string(origins[i].base.startNs);
  }
  return s + "\n";
}

// matchGroup's instances of the decoded group, moved to the reference clocks.
std::string expectedWalk(const GroupBytes& g, const SpillFile* file,
                         const std::vector<int64_t>& ranks, const std::vector<NodeClock>& clocks) {
  std::vector<Arrival> arrivals;
  std::vector<Origin> origins;
  g.decode(file, arrivals, origins);
  std::vector<OutcomeBase> bases;
  for (Arrival& a : arrivals) {
    bases.push_back(outcomeBase(a));
    const int64_t off = clockOffsetOf(clocks, a.rank / kPerNode);
    for (uint64_t* t : {&a.startNs, &a.endNs, &a.launchNs, &a.freeNs})
      *t = toReferenceClock(*t, off);
  }
  const GroupMatch match = matchGroup(arrivals, ranks);
  std::string out;
  InstanceMembers in;
  for (size_t n = 0; n < match.instances.size(); ++n) {
    instanceOf(arrivals, match, n, in);
    std::vector<MemberOrigin> from;
    for (size_t i : match.instances[n].second) from.push_back({origins[i], bases[i]});
    out += instanceText(in, from);
  }
  return out;
}

class GroupInstancesTest : public TempDirTest {};

TEST_F(GroupInstancesTest, TheWalkGivesMatchGroupsInstancesOnAnyBudget) {
  const std::vector<NodeClock> clocks = someClocks();
  for (uint32_t seed : {1U, 2U}) {
    const std::vector<Arrival> in = mixedArrivals(seed);
    Expected<SpillFile> file = SpillFile::create(dir_.string());
    ASSERT_TRUE(file.ok());
    GroupBytes g;
    for (size_t i = 0; i < in.size(); ++i) {
      g.add(in[i].rank, {static_cast<size_t>(in[i].rank % 3), i}, encodingOf(in[i]),
            in[i].peer < 0);
      if (i % 1000 == 999) {
        ASSERT_TRUE(g.spillTo(*file));
      }
    }
    ASSERT_TRUE(file->flush().ok());
    for (const std::vector<int64_t>& given :
         {std::vector<int64_t>{}, std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}}) {
      const std::vector<int64_t> ranks = groupRanksOf(given, g);
      const std::string want = expectedWalk(g, &*file, ranks, clocks);
      ASSERT_GT(want.size(), 0U);
      // 1 byte: runs of 1,024 records and merge passes; 64 MiB: sorted in memory.
      for (uint64_t budget : {uint64_t{1}, uint64_t{64} << 20}) {
        SCOPED_TRACE("seed " + std::to_string(seed) + ", budget " + std::to_string(budget) +
                     ", ranks given " + std::to_string(given.size()));
        std::string got;
        walkGroupInstances(g, &*file, ranks, ClockMove{&clocks, kPerNode},
                           SpillOptions{dir_.string(), budget},
                           [&](const InstanceMembers& i, const std::vector<MemberOrigin>& o) {
                             got += instanceText(i, o);
                           });
        EXPECT_EQ(got, want);
      }
    }
  }
}

TEST_F(GroupInstancesTest, ArrivalsThatCannotBeReadBackThrow) {
  GroupBytes g;
  Arrival a;
  a.collective = "allreduce";
  g.add(0, {0, 0}, encodingOf(a), true);
  Expected<SpillFile> file = SpillFile::create(dir_.string());
  ASSERT_TRUE(file.ok());
  ASSERT_TRUE(g.spillTo(*file));
  ASSERT_TRUE(file->flush().ok());
  auto none = [](const InstanceMembers&, const std::vector<MemberOrigin>&) {};
  EXPECT_THROW(walkGroupInstances(g, nullptr, {0}, ClockMove{}, SpillOptions{}, none),
               std::runtime_error);
}

Arrival member(int64_t rank, const char* collective = "allreduce", uint64_t bytes = 64) {
  Arrival a;
  a.rank = rank;
  a.collective = collective;
  a.bytes = bytes;
  return a;
}

std::string problemOf(const std::vector<Arrival>& in, const std::vector<int64_t>& ranks,
                      InstanceKey key = {-1, -1, 0}) {
  std::vector<const Arrival*> members;
  for (const Arrival& a : in) members.push_back(&a);
  return instanceProblem(key, members, ranks);
}

TEST(InstanceProblem, NamesTheFirstMissingRankThenTheFirstStranger) {
  const std::vector<int64_t> group = {0, 1, 2, 3, 8};
  EXPECT_EQ(problemOf({member(0), member(1), member(2), member(3), member(8)}, group), "");
  EXPECT_EQ(problemOf({member(0), member(2), member(8)}, group), "rank 1 missing");
  EXPECT_EQ(problemOf({member(0), member(1), member(2), member(3)}, group), "rank 8 missing");
  EXPECT_EQ(problemOf({member(0), member(1), member(2), member(3), member(5), member(8)}, group),
            "rank 5 not in the group");
  EXPECT_EQ(problemOf({member(0), member(1), member(1)}, group), "rank 1 twice");
  EXPECT_EQ(problemOf({member(0), member(2), member(9)}, group), "rank 1 missing");
  EXPECT_EQ(problemOf({member(0), member(1, "allgather")}, group),
            "rank 0 allreduce, rank 1 allgather");
  EXPECT_EQ(problemOf({member(0), member(1, "allreduce", 8)}, group),
            "rank 0 64 bytes, rank 1 8 bytes");
  // A pair is checked against its two ends, not the group.
  EXPECT_EQ(problemOf({member(2, "send"), member(8, "recv")}, group, {2, 8, 0}), "");
  EXPECT_EQ(problemOf({member(2, "send")}, group, {2, 8, 0}), "rank 8 missing");
  EXPECT_EQ(problemOf({member(2, "send"), member(3, "recv")}, group, {2, 8, 0}), "rank 8 missing");
}

}  // namespace
}  // namespace xstack
