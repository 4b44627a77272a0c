// Rows of a displayed rank and their process names (docs/FORMAT.md section 3).
#include <gtest/gtest.h>

#include <random>
#include <set>
#include <vector>

#include "xstack/model/RankRows.h"

namespace xstack {
namespace {

SliceEvent ev(RowKind kind, int64_t device, int64_t tid = 0) {
  SliceEvent e;
  e.name = "op";
  e.row = {kind, device};
  e.tid = tid;
  e.startNs = 10;
  e.endNs = 20;
  return e;
}

MemoryEvent mem(MemPlace place, uint64_t device) {
  MemoryEvent m;
  m.place = place;
  m.device = device;
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

TEST(RankRows, RowOrderCpuBlocksCudaApiGpusThenMemory) {
  EventList d;
  // Listed in a scrambled order, with a kernel on another device (a peer copy).
  d.slices = {ev(RowKind::Gpu, 3), ev(RowKind::CpuBlock, 1), ev(RowKind::CudaApi, -1),
              ev(RowKind::Gpu, 4), ev(RowKind::CpuBlock, 0), ev(RowKind::CpuBlock, 1),
              ev(RowKind::Gpu, 3), ev(RowKind::CudaApi, -1), ev(RowKind::CpuBlock, 10)};
  d.memory = {mem(MemPlace::Pinned, 0), mem(MemPlace::Cpu, 0), mem(MemPlace::Gpu, 3),
              mem(MemPlace::Gpu, 3), mem(MemPlace::Gpu, 0)};
  auto rows = rankRows(d);
  std::vector<RowKey> want = {{RowKind::CpuBlock, 0},  {RowKind::CpuBlock, 1},
                              {RowKind::CpuBlock, 10}, {RowKind::CudaApi, -1},
                              {RowKind::Gpu, 3},       {RowKind::Gpu, 4},
                              {RowKind::MemGpu, 0},    {RowKind::MemGpu, 3},
                              {RowKind::MemCpu, 0},    {RowKind::MemPinned, 0}};
  EXPECT_EQ(rows, want);
}

TEST(RankRows, OnlyRowsWithEventsExist) {
  EventList d;
  d.slices = {ev(RowKind::Gpu, 0)};
  auto rows = rankRows(d);
  EXPECT_EQ(rows, (std::vector<RowKey>{{RowKind::Gpu, 0}}));
  EventList empty;
  EXPECT_TRUE(rankRows(empty).empty());
}

// A profile with 150k distinct device ids (each seen a few times,
// in shuffled order, over every row kind) gives exactly the rows a plain
// std::set gives. The cost is O(n log n) (bench/row_collector.cpp measures it).
TEST(RankRows, ManyDistinctDevicesGiveTheSameRowsAsASet) {
  std::mt19937_64 rng(12);
  EventList d;
  const int64_t kDevices = 150000;
  for (int64_t dev = 0; dev < kDevices; ++dev) {
    d.slices.push_back(ev(RowKind::Gpu, dev));
    d.slices.push_back(ev(RowKind::CpuBlock, dev * 7 % kDevices));
    if (dev % 3 == 0) d.slices.push_back(ev(RowKind::Gpu, dev));  // repeats
    if (dev % 5 == 0)
      d.memory.push_back(mem(static_cast<MemPlace>(dev % 3), static_cast<uint64_t>(dev)));
  }
  d.slices.push_back(ev(RowKind::CudaApi, -1));
  std::shuffle(d.slices.begin(), d.slices.end(), rng);
  std::shuffle(d.memory.begin(), d.memory.end(), rng);
  std::set<RowKey> reference;
  for (const SliceEvent& e : d.slices) reference.insert(e.row);
  for (const MemoryEvent& m : d.memory)
    reference.insert(
        {static_cast<RowKind>(3 + static_cast<int>(m.place)), static_cast<int64_t>(m.device)});
  std::vector<RowKey> rows = rankRows(d);
  ASSERT_EQ(rows.size(), reference.size());
  EXPECT_TRUE(std::equal(rows.begin(), rows.end(), reference.begin()));
  // rows() may be called while collecting, and again: the same answer.
  RowCollector c;
  for (size_t i = 0; i < d.slices.size(); ++i) {
    c.add(d.slices[i]);
    if (i == 1000) {
      const std::vector<RowKey> mid = c.rows();
      EXPECT_EQ(c.rows(), mid);  // asked again: the same rows
    }
  }
  for (const MemoryEvent& m : d.memory) c.add(m);
  EXPECT_EQ(c.rows(), rows);
}

}  // namespace
}  // namespace xstack
