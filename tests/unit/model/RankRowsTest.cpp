// Rows of a displayed rank and their process names (SPEC.md section 3).
#include <gtest/gtest.h>

#include <random>
#include <set>
#include <vector>

#include "xstack/model/RankRows.h"

namespace xstack {
namespace {

ProfileEvent ev(int64_t type, int64_t device, int64_t sub = 0) {
  ProfileEvent e;
  e.name = "op";
  e.type = type;
  e.deviceId = device;
  e.subDeviceId = sub;
  e.startNs = 10;
  e.endNs = 20;
  return e;
}

ProfileMemEvent mem(int64_t place, uint64_t device) {
  ProfileMemEvent m;
  m.place = place;
  m.deviceId = device;
  m.startNs = 1;
  m.endNs = 2;
  m.bytes = 8;
  return m;
}

TEST(RankRows, RankLabelHasAtLeastThreeDigits) {
  EXPECT_EQ(rankLabel(0), "trainerRank.000");
  EXPECT_EQ(rankLabel(1), "trainerRank.001");
  EXPECT_EQ(rankLabel(7), "trainerRank.007");
  EXPECT_EQ(rankLabel(42), "trainerRank.042");
  EXPECT_EQ(rankLabel(999), "trainerRank.999");
  EXPECT_EQ(rankLabel(1234), "trainerRank.1234");
  EXPECT_EQ(rankLabel(123456789012), "trainerRank.123456789012");
}

TEST(RankRows, ProcessNamesAreExact) {
  EXPECT_EQ(rowProcessName(8, 1, {RowKind::CpuBlock, 0}), "08_trainerRank.001:cpu:block:0");
  EXPECT_EQ(rowProcessName(9, 1, {RowKind::CpuBlock, 12}), "09_trainerRank.001:cpu:block:12");
  EXPECT_EQ(rowProcessName(10, 1, {RowKind::CudaApi, -1}), "10_trainerRank.001:cuda_api");
  EXPECT_EQ(rowProcessName(11, 1, {RowKind::Gpu, 3}), "11_trainerRank.001:gpu:3");
  EXPECT_EQ(rowProcessName(12, 1, {RowKind::MemGpu, 3}),
            "12_memory usage on trainerRank.001:gpu:3");
  EXPECT_EQ(rowProcessName(13, 1, {RowKind::MemCpu, 0}),
            "13_memory usage on trainerRank.001:cpu:0");
  EXPECT_EQ(rowProcessName(13, 1, {RowKind::MemPinned, 1}),
            "13_memory usage on trainerRank.001:cudapinnedplace:1");
  EXPECT_EQ(rowProcessName(123, 1234, {RowKind::Gpu, 0}), "123_trainerRank.1234:gpu:0");
}

TEST(RankRows, EventRowsByTypeAndDevice) {
  Warnings w;
  RowKey k;
  ASSERT_TRUE(rowOfEvent(ev(0, 0), k, w));
  EXPECT_EQ(k, (RowKey{RowKind::CpuBlock, 0}));
  ASSERT_TRUE(rowOfEvent(ev(0, 5), k, w));
  EXPECT_EQ(k, (RowKey{RowKind::CpuBlock, 5}));
  ASSERT_TRUE(rowOfEvent(ev(0, -1), k, w));
  EXPECT_EQ(k, (RowKey{RowKind::CudaApi, -1}));
  ASSERT_TRUE(rowOfEvent(ev(1, 2), k, w));
  EXPECT_EQ(k, (RowKey{RowKind::Gpu, 2}));
  EXPECT_TRUE(w.empty());
}

TEST(RankRows, CpuEventWithBadDeviceHasNoRow) {
  Warnings w;
  RowKey k;
  EXPECT_FALSE(rowOfEvent(ev(0, -5), k, w));
  EXPECT_FALSE(rowOfEvent(ev(0, -2), k, w));
  EXPECT_EQ(w.count(Warn::EventBadDevice), 2u);
  EXPECT_EQ(w.total(), 2u);
}

TEST(RankRows, UnknownTypeHasNoRow) {
  Warnings w;
  RowKey k;
  EXPECT_FALSE(rowOfEvent(ev(2, 0), k, w));
  EXPECT_FALSE(rowOfEvent(ev(-1, 0), k, w));
  EXPECT_FALSE(rowOfEvent(ev(7, 0), k, w));
  EXPECT_EQ(w.count(Warn::EventUnknownType), 3u);
  EXPECT_EQ(w.total(), 3u);
}

TEST(RankRows, RowOrderCpuBlocksCudaApiGpusThenMemory) {
  ProfileData d;
  // Listed in a scrambled order, with a kernel on another device (a peer copy).
  d.events = {ev(1, 3), ev(0, 1), ev(0, -1), ev(1, 4), ev(0, 0),
              ev(0, 1), ev(1, 3), ev(0, -1), ev(0, 10)};
  d.memEvents = {mem(2, 0), mem(1, 0), mem(0, 3), mem(0, 3), mem(0, 0)};
  Warnings w;
  auto rows = rankRows(d, w);
  EXPECT_TRUE(w.empty());
  std::vector<RowKey> want = {{RowKind::CpuBlock, 0},  {RowKind::CpuBlock, 1},
                              {RowKind::CpuBlock, 10}, {RowKind::CudaApi, -1},
                              {RowKind::Gpu, 3},       {RowKind::Gpu, 4},
                              {RowKind::MemGpu, 0},    {RowKind::MemGpu, 3},
                              {RowKind::MemCpu, 0},    {RowKind::MemPinned, 0}};
  EXPECT_EQ(rows, want);
}

TEST(RankRows, OnlyRowsWithEventsExist) {
  ProfileData d;
  d.events = {ev(1, 0)};
  Warnings w;
  auto rows = rankRows(d, w);
  EXPECT_EQ(rows, (std::vector<RowKey>{{RowKind::Gpu, 0}}));
  ProfileData empty;
  EXPECT_TRUE(rankRows(empty, w).empty());
  EXPECT_TRUE(w.empty());
}

TEST(RankRows, BadEventsAndUnknownPlacesMakeNoRows) {
  ProfileData d;
  d.events = {ev(0, -5), ev(3, 0), ev(0, 2)};
  d.memEvents = {mem(9, 0)};
  Warnings w;
  auto rows = rankRows(d, w);
  EXPECT_EQ(rows, (std::vector<RowKey>{{RowKind::CpuBlock, 2}}));
  EXPECT_EQ(w.count(Warn::EventBadDevice), 1u);
  EXPECT_EQ(w.count(Warn::EventUnknownType), 1u);
  // Unknown places are counted by buildMemoryTracks, not here (no double count).
  EXPECT_EQ(w.count(Warn::MemoryUnknownPlace), 0u);
}

// Issue 12.4: a profile with 150k distinct device ids (each seen a few times,
// in shuffled order, over every row kind) gives exactly the rows a plain
// std::set gives. The cost is O(n log n) (bench/row_collector.cpp measures it).
TEST(RankRows, ManyDistinctDevicesGiveTheSameRowsAsASet) {
  std::mt19937_64 rng(12);
  ProfileData d;
  const int64_t kDevices = 150000;
  for (int64_t dev = 0; dev < kDevices; ++dev) {
    d.events.push_back(ev(1, dev));
    d.events.push_back(ev(0, dev * 7 % kDevices));
    if (dev % 3 == 0) d.events.push_back(ev(1, dev));  // repeats
    if (dev % 5 == 0) d.memEvents.push_back(mem(dev % 3, static_cast<uint64_t>(dev)));
  }
  d.events.push_back(ev(0, -1));
  std::shuffle(d.events.begin(), d.events.end(), rng);
  std::shuffle(d.memEvents.begin(), d.memEvents.end(), rng);
  std::set<RowKey> reference;
  Warnings refWarnings;
  for (const ProfileEvent& e : d.events) {
    RowKey k;
    if (rowOfEvent(e, k, refWarnings)) reference.insert(k);
  }
  for (const ProfileMemEvent& m : d.memEvents)
    reference.insert({static_cast<RowKind>(3 + m.place), static_cast<int64_t>(m.deviceId)});
  Warnings w;
  std::vector<RowKey> rows = rankRows(d, w);
  EXPECT_TRUE(w.empty());
  ASSERT_EQ(rows.size(), reference.size());
  EXPECT_TRUE(std::equal(rows.begin(), rows.end(), reference.begin()));
  // rows() may be called while collecting, and again: the same answer.
  RowCollector c;
  for (size_t i = 0; i < d.events.size(); ++i) {
    c.add(d.events[i], w);
    if (i == 1000) EXPECT_EQ(c.rows().size(), c.rows().size());
  }
  for (const ProfileMemEvent& m : d.memEvents) c.add(m);
  EXPECT_EQ(c.rows(), rows);
}

}  // namespace
}  // namespace xstack
