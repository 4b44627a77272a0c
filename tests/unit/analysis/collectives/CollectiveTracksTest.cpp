// The traces' collectives process (analysis/collectives/CollectiveTracks.h):
// an instance's slice (first arrival to last end, its args), point-to-point
// pairs, instances left out as the match leaves them out, overlap lanes and
// their cap, thread ids and names.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "xstack/analysis/collectives/CollectiveTracks.h"

namespace xstack {
namespace {

Arrival arrival(int64_t rank, std::string collective, uint64_t bytes, int64_t instance,
                uint64_t start, uint64_t end, int64_t peer = -1) {
  Arrival a;
  a.rank = rank;
  a.group = "tp";
  a.collective = std::move(collective);
  a.bytes = bytes;
  a.instance = instance;
  a.startNs = start;
  a.endNs = end;
  a.peer = peer;
  return a;
}

const TraceArg* argOf(const TraceSlice& s, const std::string& key) {
  for (const TraceArg& a : s.args)
    if (a.key == key) return &a;
  return nullptr;
}

TEST(CollectiveTracks, AnInstanceIsOneSliceFromItsFirstArrivalToItsLastEnd) {
  // Ranks 0..3 all-reduce 4000 bytes; rank 2 arrives last at 400, the last end is 1400.
  std::vector<Arrival> a;
  for (int64_t r = 0; r < 4; ++r)
    a.push_back(arrival(r, "allreduce", 4000, 0, r == 2 ? 400 : 100 + r, 1400 - r));
  const std::vector<InstanceSlice> slices = instanceSlices(a, {0, 1, 2, 3});
  ASSERT_EQ(slices.size(), 1u);
  const InstanceSlice& s = slices[0];
  EXPECT_EQ(s.firstArrivalNs, 100u);
  EXPECT_EQ(s.endNs, 1400u);
  EXPECT_EQ(s.lastRank, 2);
  EXPECT_EQ(s.transferNs, 1000u);
  EXPECT_EQ(s.waitNs, 300u + 299u + 0u + 297u);
  EXPECT_EQ(s.members, 4u);
  ASSERT_TRUE(s.hasBusbw);
  EXPECT_DOUBLE_EQ(s.busbwGbps, 4000.0 / 1000 * 2 * 3 / 4);  // nccl-tests' all-reduce factor

  uint64_t dropped = 0;
  const TrackGroupRows rows =
      collectiveTrackRows(groupTrack("tp", {0, 1, 2, 3}, slices), 2, 20, dropped);
  ASSERT_EQ(rows.tracks.size(), 1u);
  EXPECT_EQ(rows.tracks[0].tid, 20 + 1 + 2 * kCollectiveTrackLanes);
  EXPECT_EQ(rows.tracks[0].name, "group \"tp\" (ranks 0-3)");
  ASSERT_EQ(rows.slices.size(), 1u);
  const TraceSlice& t = rows.slices[0];
  EXPECT_EQ(t.tid, rows.tracks[0].tid);
  EXPECT_EQ(t.tsNs, 100u);
  EXPECT_EQ(t.durNs, 1300u);
  EXPECT_EQ(t.name, "allreduce");
  EXPECT_EQ(t.category, "collective");
  EXPECT_EQ(argOf(t, "last_arriver")->i, 2);
  EXPECT_EQ(argOf(t, "bytes")->u, 4000u);
  EXPECT_DOUBLE_EQ(argOf(t, "wait_ms")->d, 896e-6);
  EXPECT_DOUBLE_EQ(argOf(t, "busbw_gbps")->d, 6.0);
  EXPECT_EQ(dropped, 0u);
}

TEST(CollectiveTracks, PairsAreNamedByDirectionAndProblemsAreLeftOut) {
  std::vector<Arrival> a{
      arrival(0, "send", 64, 0, 100, 200, 1), arrival(1, "recv", 64, 0, 150, 210, 0),
      arrival(2, "send", 64, 0, 0, 10, 3),      // rank 3 never receives it: no slice
      arrival(0, "allreduce", 8, 0, 500, 600),  // rank 1's member missing: no slice
  };
  const std::vector<InstanceSlice> slices = instanceSlices(a, {0, 1, 2, 3});
  ASSERT_EQ(slices.size(), 1u);
  EXPECT_EQ(slices[0].collective, "send");
  EXPECT_EQ(slices[0].src, 0);
  EXPECT_EQ(slices[0].dst, 1);
  EXPECT_EQ(slices[0].lastRank, 1);
  uint64_t dropped = 0;
  const TrackGroupRows rows =
      collectiveTrackRows(groupTrack("pp", {0, 1, 2, 3}, slices), 0, 9, dropped);
  ASSERT_EQ(rows.slices.size(), 1u);
  EXPECT_EQ(rows.slices[0].name, "send 0 -> 1");
}

TEST(CollectiveTracks, OverlappingInstancesTakeLanesUpToTheCap) {
  // kCollectiveTrackLanes + 2 pairwise-overlapping instances, then one after them all.
  std::vector<InstanceSlice> slices;
  for (int64_t i = 0; i < kCollectiveTrackLanes + 2; ++i) {
    InstanceSlice s;
    s.collective = "allreduce";
    s.firstArrivalNs = 100 + static_cast<uint64_t>(i);
    s.endNs = 1000;
    s.instance = i;
    slices.push_back(s);
  }
  InstanceSlice later = slices[0];
  later.firstArrivalNs = 1000;  // the first lane is free again at 1000
  later.endNs = 1100;
  slices.push_back(later);
  uint64_t dropped = 0;
  const TrackGroupRows rows = collectiveTrackRows(groupTrack("", {0, 1}, slices), 0, 9, dropped);
  EXPECT_EQ(dropped, 2u);
  ASSERT_EQ(rows.tracks.size(), static_cast<size_t>(kCollectiveTrackLanes));
  EXPECT_EQ(rows.tracks[0].name, "default group (ranks 0-1)");
  EXPECT_EQ(rows.tracks[1].name, "default group (ranks 0-1) (overlap 1)");
  ASSERT_EQ(rows.slices.size(), static_cast<size_t>(kCollectiveTrackLanes) + 1);
  // Lane 0 holds the first instance and the later one, in time order.
  EXPECT_EQ(rows.slices[0].tid, 10);
  EXPECT_EQ(rows.slices[1].tid, 10);
  EXPECT_EQ(rows.slices[1].tsNs, 1000u);
  for (size_t i = 1; i < rows.slices.size(); ++i)
    EXPECT_LE(rows.slices[i - 1].tid, rows.slices[i].tid);
}

TEST(CollectiveTracks, TrackNamesListRunsOfRanks) {
  EXPECT_EQ(collectiveTrackName("dp", {0, 8, 16}), "group \"dp\" (ranks 0,8,16)");
  EXPECT_EQ(collectiveTrackName("x", {0, 1, 2, 5, 7, 8}), "group \"x\" (ranks 0-2,5,7-8)");
  std::vector<int64_t> many;
  for (int64_t r = 0; r < 40; r += 2) many.push_back(r);
  EXPECT_EQ(collectiveTrackName("y", many), "group \"y\" (ranks 0,2,4,6,8,10,12,14,...)");
}

TEST(CollectiveTracks, TheListMessageRoundTripsAndACutOneFails) {
  OwnTrackGroups m{false, {{"dp", {0, 8}, 0}, {"tp", {0, 1}, 0}}};
  wire::Writer w;
  writeOwnTrackGroups(w, m);
  const std::string bytes = w.take();
  wire::Reader r(bytes);
  const OwnTrackGroups back = readOwnTrackGroups(r);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(back.failed);
  ASSERT_EQ(back.groups.size(), 2u);
  EXPECT_EQ(back.groups[1].name, "tp");
  EXPECT_EQ(back.groups[1].ranks, (std::vector<int64_t>{0, 1}));
  wire::Reader cut(std::string_view(bytes).substr(0, bytes.size() - 1));
  (void)readOwnTrackGroups(cut);
  EXPECT_FALSE(cut.ok());
}

TEST(CollectiveTracks, EncodedSlicesComeBackExactly) {
  const uint64_t big = ~uint64_t{0};
  std::vector<InstanceSlice> slices(5);
  slices[0] = {100, 1400, "allreduce", 4000, 4, 2, 1000, 896, true, 6.0, 0, -1, -1};
  slices[1] = {big, big, "send", 0, 2, -7, 0, 0, false, 0, 3, 0, 1};  // the largest times
  slices[2] = {5,
               9,
               "allreduce_coalesced_with_a_long_name",
               big,
               big,
               INT64_MIN,
               big,
               uint64_t{1} << 63,
               true,
               1e-300,
               INT64_MAX,
               INT64_MIN,
               INT64_MAX};
  slices[3] = {0, 0, "send", 1, 1, 0, 0, 0, true, -0.0, INT64_MIN, 5, 6};  // earlier than before
  slices[4] = {7, 8, "", 2, 3, 4, 1, 0, true, 1.0 / 3, 9, -1, -1};
  const std::string bytes = encodeSlices(slices);
  const std::vector<InstanceSlice> back = decodeSlices(bytes);
  ASSERT_EQ(back.size(), slices.size());
  for (size_t i = 0; i < slices.size(); ++i) {
    SCOPED_TRACE(i);
    const InstanceSlice &a = slices[i], &b = back[i];
    EXPECT_EQ(a.firstArrivalNs, b.firstArrivalNs);
    EXPECT_EQ(a.endNs, b.endNs);
    EXPECT_EQ(a.collective, b.collective);
    EXPECT_EQ(a.bytes, b.bytes);
    EXPECT_EQ(a.members, b.members);
    EXPECT_EQ(a.lastRank, b.lastRank);
    EXPECT_EQ(a.transferNs, b.transferNs);
    EXPECT_EQ(a.waitNs, b.waitNs);
    EXPECT_EQ(a.hasBusbw, b.hasBusbw);
    EXPECT_EQ(std::signbit(a.busbwGbps), std::signbit(b.busbwGbps));
    EXPECT_EQ(a.busbwGbps, b.busbwGbps);
    EXPECT_EQ(a.instance, b.instance);
    EXPECT_EQ(a.src, b.src);
    EXPECT_EQ(a.dst, b.dst);
  }
  EXPECT_EQ(encodeSlices({}), "");
  EXPECT_TRUE(decodeSlices("").empty());
  EXPECT_THROW(decodeSlices(std::string_view(bytes).substr(0, bytes.size() - 1)),
               std::runtime_error);
  std::string badName = encodeSlices({slices[0]});
  ASSERT_EQ(badName[5],
            0);  // version, count, first arrival (1 byte), duration (2): the name's number
  badName[5] = 5;
  EXPECT_THROW(decodeSlices(badName), std::runtime_error);
}

}  // namespace
}  // namespace xstack
