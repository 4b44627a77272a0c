// The critical path on hand-built arrivals (analysis/collectives/CriticalPath.h):
// the own-work windows and their measure, each arrival's outcome, the walk
// on one rank (a jump to the last arriver, the rank's own collective, an
// unmatched instance, a step start), across ranks, the wire checks and the
// CSV text.
#include <gtest/gtest.h>

#include "xstack/analysis/collectives/CriticalPath.h"
#include "xstack/transport/TypedMessages.h"

namespace xstack {
namespace {

Arrival arrival(int64_t rank, std::string collective, int64_t instance, uint64_t start,
                uint64_t end, std::string group = "g") {
  Arrival a;
  a.rank = rank;
  a.group = std::move(group);
  a.collective = std::move(collective);
  a.instance = instance;
  a.startNs = start;
  a.endNs = end;
  a.step = 0;
  return a;
}

// A profile of `rank` with one step [0, 1000) and `arrivals` (by start), its
// own work all compute (the times of each window: compute = its length).
struct TestProfile {
  CollectivesPart part;
  std::vector<ArrivalOutcome> outcomes;
  WalkProfile walk() const { return walkProfileOf(part.arrivals, part.walk, outcomes); }
};

TestProfile testProfile(int64_t rank, std::vector<Arrival> arrivals,
                        std::vector<ArrivalOutcome> outcomes) {
  TestProfile p;
  p.part.arrivals.rank = rank;
  p.part.walk = planOwnWork(arrivals, {{0, 0, 1000, {}}});
  for (size_t i = 0; i < arrivals.size(); ++i)
    p.part.walk.before[i].times.computeNs = arrivals[i].startNs - p.part.walk.before[i].fromNs;
  for (StepWork& s : p.part.walk.steps) s.tail.times.computeNs = s.endNs - s.tail.fromNs;
  p.part.arrivals.arrivals = std::move(arrivals);
  p.outcomes = std::move(outcomes);
  return p;
}

WalkProfile profile(int64_t rank, std::vector<Arrival> arrivals,
                    std::vector<ArrivalOutcome> outcomes) {
  return testProfile(rank, std::move(arrivals), std::move(outcomes)).walk();
}

using Row = std::tuple<int64_t, std::string, uint64_t, uint64_t, std::string>;

std::vector<Row> rows(std::vector<PathSegment> latestFirst) {
  std::vector<Row> out;
  for (auto it = latestFirst.rbegin(); it != latestFirst.rend(); ++it)
    out.emplace_back(it->rank, segmentKindName(it->kind), it->startNs, it->durNs, it->detail);
  return out;
}

TEST(CriticalPathPlan, PreviousArrivalIsTheLatestEndBeforeEachStart) {
  // a [100, 400) overlaps b [200, 300); c starts at 350 (b ended, a not yet);
  // d at 500 (a ended last). An arrival outside the step has an empty window.
  std::vector<Arrival> a{arrival(0, "x", 0, 100, 400), arrival(0, "y", 0, 200, 300),
                         arrival(0, "z", 0, 350, 360), arrival(0, "w", 0, 500, 600),
                         arrival(0, "v", 0, 1200, 1300)};
  const RankWalk w = planOwnWork(a, {{0, 0, 1000, {}}, {0, 2000, 3000, {}}});
  ASSERT_EQ(w.steps.size(), 1u);  // a step number once: the first window
  ASSERT_EQ(w.before.size(), 5u);
  EXPECT_EQ(w.before[0].prev, -1);
  EXPECT_EQ(w.before[0].fromNs, 0u);  // the step's start
  EXPECT_EQ(w.before[1].prev, -1);
  EXPECT_EQ(w.before[2].prev, 1);
  EXPECT_EQ(w.before[2].fromNs, 300u);
  EXPECT_EQ(w.before[3].prev, 0);
  EXPECT_EQ(w.before[3].fromNs, 400u);
  EXPECT_EQ(w.before[4].prev, -1);
  EXPECT_EQ(w.before[4].fromNs, 1200u);
  EXPECT_EQ(w.steps[0].tail.prev, 3);
  EXPECT_EQ(w.steps[0].tail.fromNs, 600u);
}

TEST(CriticalPathPlan, OverlappingWindowsKeepEachArrivalInItsStep) {
  // Step 1's window [800, 2000) starts before step 0's [0, 1000) ends.
  std::vector<Arrival> a{arrival(0, "x", 0, 100, 200), arrival(0, "y", 0, 850, 900),
                         arrival(0, "z", 0, 950, 980)};
  a[1].step = 1;
  const RankWalk w = planOwnWork(a, {{0, 0, 1000, {}}, {1, 800, 2000, {}}});
  EXPECT_EQ(w.before[2].prev, 0);  // y is step 1's
  EXPECT_EQ(w.before[1].prev, -1);
  EXPECT_EQ(w.before[1].fromNs, 800u);
  EXPECT_EQ(w.steps[0].tail.prev, 2);
  EXPECT_EQ(w.steps[1].tail.prev, 1);
}

TEST(CriticalPathPlan, PrefixMeasureOfAUnion) {
  PrefixMeasure m({0, 5, 10, 15, 25, 40, 100});
  m.add({10, 20});
  m.add({30, 50});
  m.finish();
  EXPECT_EQ(m.at(0), 0u);
  EXPECT_EQ(m.at(10), 0u);
  EXPECT_EQ(m.at(15), 5u);
  EXPECT_EQ(m.at(25), 10u);
  EXPECT_EQ(m.at(40), 20u);
  EXPECT_EQ(m.at(100), 30u);
}

TEST(CriticalPathPlan, WindowTimesAddUpToTheirLength) {
  std::vector<Arrival> a{arrival(0, "x", 0, 500, 600)};
  RankWalk w = planOwnWork(a, {{0, 0, 1000, {}}});
  const std::vector<uint64_t> points = ownWorkPoints(a, w);
  PrefixMeasure compute(points), computeOrMemcpy(points), busy(points);
  compute.add({100, 300});          // compute [100, 300)
  computeOrMemcpy.add({100, 400});  // a memcpy [300, 400)
  busy.add({100, 450});             // a comm kernel [400, 450)
  busy.add({500, 800});             // the arrival, then compute [600, 800)
  compute.add({600, 800});
  computeOrMemcpy.add({600, 800});
  for (PrefixMeasure* m : {&compute, &computeOrMemcpy, &busy}) m->finish();
  measureOwnWork(a, w, compute, computeOrMemcpy, busy);
  const GapTimes& b = w.before[0].times;
  EXPECT_EQ(b.computeNs, 200u);
  EXPECT_EQ(b.memcpyNs, 100u);
  EXPECT_EQ(b.commNs, 50u);
  EXPECT_EQ(b.hostNs, 150u);
  const GapTimes& t = w.steps[0].tail.times;  // [600, 1000)
  EXPECT_EQ(t.computeNs, 200u);
  EXPECT_EQ(t.hostNs, 200u);
}

TEST(CriticalPathOutcomes, LastArriverOfMatchedInstancesOnly) {
  std::vector<Arrival> a{
      arrival(1, "allreduce", 0, 300, 500), arrival(0, "allreduce", 0, 100, 500),
      arrival(2, "allreduce", 0, 300, 500), arrival(0, "allreduce", 1, 600, 700),
      arrival(1, "allgather", 1, 650, 700), arrival(2, "allreduce", 1, 600, 700)};
  const std::vector<ArrivalOutcome> o = groupOutcomes(a, {});
  ASSERT_EQ(o.size(), a.size());
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_TRUE(o[i].matched);
    EXPECT_EQ(o[i].lastRank, 1);  // ties: the lower rank
    EXPECT_EQ(o[i].lastArrivalNs, 300u);
  }
  for (size_t i = 3; i < 6; ++i) EXPECT_FALSE(o[i].matched);  // the members disagree
}

TEST(CriticalPathWalk, JumpsToTheLastArriverAndEndsAtItsStepStart) {
  // Rank 0 arrives at 200, rank 1 at 600; both end at 700.
  const WalkProfile p0 = profile(0, {arrival(0, "allreduce", 0, 200, 700)}, {{true, 1, 600}});
  const WalkProfile p1 = profile(1, {arrival(1, "allreduce", 0, 600, 700)}, {{true, 1, 600}});
  std::vector<PathSegment> out;
  WalkPoint at = walkRank(p0, 0, {false, 0, 1000, true}, out);
  EXPECT_FALSE(at.done);
  EXPECT_EQ(at.rank, 1);
  EXPECT_EQ(at.timeNs, 600u);
  at = walkRank(p1, 0, at, out);
  EXPECT_TRUE(at.done);
  EXPECT_EQ(at.timeNs, 0u);
  EXPECT_EQ(rows(out),
            (std::vector<Row>{{1, "compute", 0, 600, ""},
                              {0, "transfer", 600, 100, "allreduce group g, waited for rank 1"},
                              {0, "compute", 700, 300, ""}}));
}

TEST(CriticalPathWalk, TheLastArriverItselfAnEarlyEndAndAnUnmatchedInstance) {
  // On rank 0: an unmatched instance [100, 200), its own late allreduce
  // [300, 400), a send whose receiver came at 600, after it ended (500).
  const WalkProfile p =
      profile(0,
              {arrival(0, "broadcast", 0, 100, 200), arrival(0, "allreduce", 1, 300, 400),
               arrival(0, "send", 0, 450, 500, "")},
              {{false, -1, 0}, {true, 0, 300}, {true, 1, 600}});
  std::vector<PathSegment> out;
  const WalkPoint at = walkRank(p, 0, {false, 0, 1000, true}, out);
  EXPECT_TRUE(at.done);
  EXPECT_EQ(rows(out), (std::vector<Row>{{0, "compute", 0, 100, ""},
                                         {0, "wait", 100, 100, "broadcast group g, unmatched"},
                                         {0, "compute", 200, 100, ""},
                                         {0, "transfer", 300, 100, "allreduce group g"},
                                         {0, "compute", 400, 50, ""},
                                         {0, "transfer", 450, 50, "send group (default)"},
                                         {0, "compute", 500, 500, ""}}));
}

TEST(CriticalPathWalk, AcrossLocalProfilesAndOutOfThem) {
  std::map<int64_t, WalkProfile> local;
  local.emplace(0, profile(0, {arrival(0, "allreduce", 0, 200, 700)}, {{true, 1, 600}}));
  local.emplace(1,
                profile(1, {arrival(1, "allreduce", 0, 600, 700), arrival(1, "recv", 0, 800, 900)},
                        {{true, 1, 600}, {true, 2, 850}}));
  std::vector<PathSegment> out;
  WalkPoint at = walkLocal(local, 0, {false, 1, 1000, true}, out);
  EXPECT_FALSE(at.done);  // rank 2 is not here
  EXPECT_EQ(at.rank, 2);
  EXPECT_EQ(at.timeNs, 850u);
  out.clear();
  at = walkLocal(local, 0, {false, 0, 1000, true}, out);
  EXPECT_TRUE(at.done);
  EXPECT_EQ(out.size(), 3u);
  // No such step on the rank: done at once.
  out.clear();
  at = walkLocal(local, 7, {false, 0, 1000, true}, out);
  EXPECT_TRUE(at.done);
  EXPECT_TRUE(out.empty());
}

// Held profiles stay encoded: decoded on demand to the same walk as the
// decoded map, a few kept decoded, a part that does not decode named.
TEST(CriticalPathWalk, HeldProfilesDecodeWhenReachedAndWalkAlike) {
  std::map<int64_t, TestProfile> sources;
  sources.emplace(0, testProfile(0, {arrival(0, "allreduce", 0, 200, 700)}, {{true, 1, 600}}));
  sources.emplace(
      1, testProfile(1, {arrival(1, "allreduce", 0, 600, 700), arrival(1, "recv", 0, 800, 900)},
                     {{true, 1, 600}, {true, 0, 850}}));
  std::map<int64_t, WalkProfile> decoded;
  for (const auto& [rank, p] : sources) decoded.emplace(rank, p.walk());
  std::vector<std::string> bytes;
  for (const auto& [rank, p] : sources)
    bytes.push_back(encodeMessage(p.part, writeCollectivesPart));
  std::vector<std::string> outcomes;  // the bytes of the held views
  for (const auto& [rank, p] : sources)
    outcomes.push_back(encodeOutcomes(p.outcomes, p.part.arrivals.arrivals));
  outcomes.push_back(encodeOutcomes({{true, 1, 600}}, {}));
  HeldWalkProfiles held;
  for (const auto& [rank, p] : decoded)
    held.hold(rank,
              {bytes[static_cast<size_t>(rank)], outcomes[static_cast<size_t>(rank)], {{0, 1000}}});
  auto find = [&held](int64_t rank) { return held.decoded(rank); };
  std::vector<PathSegment> fromMap, fromHeld;
  const WalkPoint a = walkLocal(decoded, 0, {false, 1, 1000, true}, fromMap);
  const WalkPoint b = walkLocal(find, 0, {false, 1, 1000, true}, fromHeld);
  EXPECT_EQ(a.done, b.done);
  EXPECT_EQ(rows(fromMap), rows(fromHeld));
  EXPECT_FALSE(fromHeld.empty());
  EXPECT_EQ(held.decodes(), 2u);        // rank 1, then rank 0 (its recv's last arriver)
  ASSERT_NE(held.decoded(1), nullptr);  // both stay decoded
  EXPECT_EQ(held.decodes(), 2u);
  EXPECT_EQ(held.decoded(5), nullptr);  // not held
  // Decoded straight from the bytes as from the decoded part: times, steps
  // and labels (each once), walk data, outcomes.
  const WalkProfile fromBytes = decodeWalkProfile(1, bytes[1], outcomes[1]);
  const WalkProfile& fromPart = decoded.at(1);
  EXPECT_EQ(fromBytes.rank, 1);
  EXPECT_EQ(fromBytes.labels, (std::vector<std::string>{"allreduce group g", "recv group g"}));
  EXPECT_EQ(fromBytes.labels, fromPart.labels);
  ASSERT_EQ(fromBytes.arrivals.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    const WalkArrival& x = fromBytes.arrivals[i];
    const WalkArrival& y = fromPart.arrivals[i];
    EXPECT_EQ(std::tie(x.startNs, x.endNs, x.step, x.label),
              std::tie(y.startNs, y.endNs, y.step, y.label));
    EXPECT_EQ(fromBytes.walk.before[i].fromNs, fromPart.walk.before[i].fromNs);
    EXPECT_EQ(fromBytes.outcomes[i].lastArrivalNs, fromPart.outcomes[i].lastArrivalNs);
  }
  const WalkProfile twice = walkProfileOf(
      RankArrivals{2, 1, {arrival(2, "allreduce", 0, 1, 2), arrival(2, "allreduce", 1, 3, 4)}, {}},
      {}, {});
  EXPECT_EQ(twice.labels.size(), 1u);  // one label for both
  EXPECT_EQ(twice.arrivals[1].label, 0u);

  // More profiles than are kept decoded: the oldest is decoded again.
  HeldWalkProfiles many;
  for (int64_t r = 0; r <= static_cast<int64_t>(HeldWalkProfiles::kKeptDecoded); ++r)
    many.hold(r, {bytes[0], outcomes[0], {}});
  for (int64_t r = 0; r <= static_cast<int64_t>(HeldWalkProfiles::kKeptDecoded); ++r)
    ASSERT_NE(many.decoded(r), nullptr);
  EXPECT_EQ(many.decodes(), HeldWalkProfiles::kKeptDecoded + 1);
  ASSERT_NE(many.decoded(0), nullptr);
  EXPECT_EQ(many.decodes(), HeldWalkProfiles::kKeptDecoded + 2);
  EXPECT_EQ(many.decoded(0)->outcomes.size(), 1u);

  // Outcomes that are not one per arrival: named, never walked.
  HeldWalkProfiles short1;
  short1.hold(6, {bytes[1], outcomes[2], {}});
  EXPECT_THROW(short1.decoded(6), std::runtime_error);

  const std::string cut = bytes[1].substr(0, bytes[1].size() / 2);
  HeldWalkProfiles bad;
  bad.hold(4, {cut, {}, {}});
  try {
    bad.decoded(4);
    FAIL() << "a cut part decoded";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("rank 4"), std::string::npos) << e.what();
  }
}

TEST(CriticalPathWire, RoundTripAndInconsistentWindowsRejected) {
  CollectivesPart part;
  part.arrivals.rank = 3;
  part.arrivals.arrivals = {arrival(3, "allreduce", 0, 200, 700)};
  part.walk = planOwnWork(part.arrivals.arrivals, {{0, 0, 1000, {}}});
  part.walk.before[0].times.hostNs = 200;
  part.walk.steps[0].tail.times.computeNs = 300;
  const std::string bytes = encodeMessage(part, writeCollectivesPart);
  auto back = decodeMessage<CollectivesPart>(bytes, "a part", readCollectivesPart);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->walk.steps[0].tail.prev, 0);
  EXPECT_EQ(back->walk.before[0].times.hostNs, 200u);
  part.walk.steps[0].tail.times.computeNs = 301;  // no longer adds up to [700, 1000)
  EXPECT_FALSE(decodeMessage<CollectivesPart>(encodeMessage(part, writeCollectivesPart), "a part",
                                              readCollectivesPart)
                   .ok());
}

// An arrival's times travel as differences from its start: any values come
// back exactly (a launch or a free after the start, unknown 0, the extremes).
TEST(CriticalPathWire, ArrivalTimesComeBackExactly) {
  CollectivesPart part;
  part.arrivals.rank = 1;
  for (uint64_t start :
       {uint64_t{0}, uint64_t{5}, uint64_t{1700000000000000000}, ~uint64_t{0} - 1}) {
    Arrival a = arrival(1, "allreduce", 0, start, start + 1);
    for (uint64_t other : {uint64_t{0}, start + 7, start - 3, ~uint64_t{0}}) {
      a.launchNs = other;
      a.freeNs = ~other;
      part.arrivals.arrivals.push_back(a);
    }
  }
  const std::string bytes = encodeMessage(part.arrivals, writeRankArrivals);
  auto back = decodeMessage<RankArrivals>(bytes, "arrivals", readRankArrivals);
  ASSERT_TRUE(back.ok()) << back.error().message;
  ASSERT_EQ(back->arrivals.size(), part.arrivals.arrivals.size());
  for (size_t i = 0; i < back->arrivals.size(); ++i) {
    const Arrival& x = part.arrivals.arrivals[i];
    const Arrival& y = back->arrivals[i];
    EXPECT_EQ(std::tie(x.startNs, x.endNs, x.launchNs, x.freeNs),
              std::tie(y.startNs, y.endNs, y.launchNs, y.freeNs))
        << i;
  }
  part.arrivals.arrivals = {arrival(1, "allreduce", 0, 100, 100)};
  part.arrivals.arrivals[0].endNs = 99;  // ends before it starts: refused on reading
  EXPECT_FALSE(decodeMessage<RankArrivals>(encodeMessage(part.arrivals, writeRankArrivals),
                                           "arrivals", readRankArrivals)
                   .ok());
}

// readArrivalKey (what routing reads of an arrival) ends where
// readArrivalInto ends, with the same names, bytes, peer and times, and fails
// where and as it fails: on an arrival that ends before it starts, and on
// every cut of the message.
TEST(CriticalPathWire, ArrivalKeysReadAsTheWholeArrival) {
  RankArrivals part;
  part.rank = 2;
  part.arrivals = {arrival(2, "allreduce", 7, 1700000000000000000, 1700000000000300000),
                   arrival(2, "send", 3, 5, 9), arrival(2, "allgather", 0, 100, 99)};
  part.arrivals[0].group = "dp";
  part.arrivals[0].bytes = uint64_t{1} << 40;
  part.arrivals[1].peer = 6;
  part.arrivals[1].launchNs = 2;
  part.arrivals[1].freeNs = 1;
  part.arrivals[1].computeNs = 123456789;
  part.arrivals[1].step = 4;
  const std::string all = encodeMessage(part, writeRankArrivals);
  for (size_t cut = 1; cut <= all.size(); ++cut) {
    const std::string bytes = all.substr(0, cut);
    wire::Reader whole(bytes), key(bytes);
    for (wire::Reader* r : {&whole, &key}) {
      (void)r->i64();
      (void)r->u64();
      (void)r->count();
    }
    Arrival a;
    ArrivalKey k;
    for (size_t i = 0; i < part.arrivals.size() && whole.ok(); ++i) {
      readArrivalInto(whole, a);
      readArrivalKey(key, k);
      ASSERT_EQ(key.offset(), whole.offset()) << cut << " " << i;
      ASSERT_EQ(key.ok(), whole.ok()) << cut << " " << i;
      if (!whole.ok()) break;
      EXPECT_EQ(std::tie(k.group, k.collective, k.bytes, k.peer, k.startNs, k.endNs),
                std::tie(a.group, a.collective, a.bytes, a.peer, a.startNs, a.endNs))
          << i;
    }
    const Status a1 = whole.status(), a2 = key.status();
    ASSERT_EQ(a1.ok(), a2.ok()) << cut;
    if (!a1.ok()) {
      EXPECT_EQ(a2.error().message, a1.error().message) << cut;
      EXPECT_EQ(a2.error().offset, a1.error().offset) << cut;
    }
    if (cut == all.size()) {
      ASSERT_FALSE(a1.ok());
      EXPECT_NE(a1.error().message.find("ends before it starts"), std::string::npos);
    }
  }
}

// The index of a part names each arrival's group and bytes: copied as they
// are after a list count, they read back as the arrivals; it refuses what
// readCollectivesPart refuses.
TEST(CriticalPathWire, IndexedArrivalsCopyAsTheyAre) {
  CollectivesPart part;
  part.arrivals.rank = 3;
  part.arrivals.steps = 1;
  part.arrivals.arrivals = {arrival(3, "allreduce", 0, 200, 300),
                            arrival(3, "allgather", 1, 400, 500),
                            arrival(3, "allreduce", 1, 600, 700)};
  part.arrivals.arrivals[1].group = "dp";
  part.arrivals.groups = {{"dp", {1, 3}}};
  part.walk = planOwnWork(part.arrivals.arrivals, {{0, 0, 1000, {}}});
  part.walk.before[0].times.hostNs = 200;
  part.walk.before[1].times.hostNs = 100;
  part.walk.before[2].times.hostNs = 100;
  part.walk.steps[0].tail.times.computeNs = 300;
  const std::string bytes = encodeMessage(part, writeCollectivesPart);
  auto index = decodeMessage<PartIndex>(bytes, "a part", indexCollectivesPart);
  ASSERT_TRUE(index.ok()) << index.error().message;
  EXPECT_EQ(index->rank, 3);
  EXPECT_EQ(index->steps, 1u);
  EXPECT_EQ(index->role, roleOf(part.arrivals));
  ASSERT_EQ(index->groupNames, (std::vector<std::string>{"g", "dp"}));
  ASSERT_EQ(index->arrivals.size(), 3u);
  EXPECT_EQ(index->arrivals[1].group, 1u);
  EXPECT_EQ(index->arrivals[2].group, 0u);
  EXPECT_EQ(index->arrivals[2].startNs, 600u);
  ASSERT_EQ(index->groups.size(), 1u);
  wire::Writer w;
  w.i64(3);
  w.u64(0);
  w.u64(2);  // the first and the last arrival
  w.raw(std::string_view(bytes).substr(index->arrivals[0].begin,
                                       index->arrivals[0].end - index->arrivals[0].begin));
  w.raw(std::string_view(bytes).substr(index->arrivals[2].begin,
                                       index->arrivals[2].end - index->arrivals[2].begin));
  w.u64(0);  // no groups
  auto back = decodeMessage<RankArrivals>(w.take(), "copied", readRankArrivals);
  ASSERT_TRUE(back.ok()) << back.error().message;
  ASSERT_EQ(back->arrivals.size(), 2u);
  EXPECT_EQ(back->arrivals[1].collective, "allreduce");
  EXPECT_EQ(back->arrivals[1].instance, 1);
  EXPECT_EQ(back->arrivals[1].endNs, 700u);
  part.walk.steps[0].tail.times.computeNs = 301;  // no longer adds up
  EXPECT_FALSE(decodeMessage<PartIndex>(encodeMessage(part, writeCollectivesPart), "a part",
                                        indexCollectivesPart)
                   .ok());
  // Cut short or with a byte changed anywhere: refused (and with the same
  // error) exactly when readCollectivesPart refuses it.
  for (size_t n = 0; n < bytes.size() * 2; ++n) {
    std::string bad = bytes;
    if (n < bytes.size())
      bad.resize(n);
    else
      bad[n - bytes.size()] = static_cast<char>(bad[n - bytes.size()] ^ 0x41);
    auto full = decodeMessage<CollectivesPart>(bad, "a part", readCollectivesPart);
    auto indexed = decodeMessage<PartIndex>(bad, "a part", indexCollectivesPart);
    ASSERT_EQ(full.ok(), indexed.ok()) << "case " << n;
    if (!full.ok()) {
      EXPECT_EQ(full.error().message, indexed.error().message) << "case " << n;
    }
    // The walk's own decoder too, with the reason readCollectivesPart gives.
    const std::string outcomes =
        encodeOutcomes(std::vector<ArrivalOutcome>(full.ok() ? full->arrivals.arrivals.size() : 0),
                       full.ok() ? full->arrivals.arrivals : std::vector<Arrival>{});
    try {
      const WalkProfile walk = decodeWalkProfile(3, bad, outcomes);
      EXPECT_TRUE(full.ok()) << "case " << n;
      if (full.ok()) {
        EXPECT_EQ(walk.arrivals.size(), full->arrivals.arrivals.size());
      }
    } catch (const std::runtime_error& e) {
      ASSERT_FALSE(full.ok()) << "case " << n << ": " << e.what();
      const std::string reason = full.error().message.substr(std::string("a part").size());
      EXPECT_EQ(std::string(e.what()), "the collective arrivals of rank 3" + reason)
          << "case " << n;
    }
  }
}

TEST(CriticalPathCsv, HeaderRowsFromTheOriginAndQuotedDetails) {
  std::vector<StepPath> paths{
      {0,
       {{3, SegmentKind::Compute, 1100, 50, ""},
        {1, SegmentKind::Transfer, 1150, 20, "allreduce group a,b, waited for rank 3"}}}};
  EXPECT_EQ(criticalPathCsv(paths, 1000),
            "step,order,rank,kind,start_ns,dur_ns,detail\n"
            "0,0,3,compute,100,50,\n"
            "0,1,1,transfer,150,20,\"allreduce group a,b, waited for rank 3\"\n");
  EXPECT_EQ(criticalPathCsv({}, 0), "step,order,rank,kind,start_ns,dur_ns,detail\n");
}

}  // namespace
}  // namespace xstack
