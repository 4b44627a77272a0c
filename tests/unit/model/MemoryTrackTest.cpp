// Memory tracks: running sums per (place, device), docs/FORMAT.md section 3.
#include <gtest/gtest.h>

#include <vector>

#include "xstack/model/MemoryTrack.h"

namespace xstack {
namespace {

// place: a MemPlace value (0 gpu, 1 cpu, 2 cudapinnedplace).
MemoryEvent mem(int place, uint64_t device, uint64_t start, uint64_t end, uint64_t bytes) {
  MemoryEvent m;
  m.place = static_cast<MemPlace>(place);
  m.device = device;
  m.startNs = start;
  m.endNs = end;
  m.bytes = bytes;
  return m;
}

using Samples = std::vector<std::pair<uint64_t, int64_t>>;
Samples samplesOf(const MemoryTrack& t) {
  Samples s;
  for (const auto& x : t.samples) s.push_back({x.ns, x.allocatedBytes});
  return s;
}

TEST(MemoryTrack, PlaceNames) {
  EXPECT_STREQ(memPlaceName(MemPlace::Gpu), "gpu");
  EXPECT_STREQ(memPlaceName(MemPlace::Cpu), "cpu");
  EXPECT_STREQ(memPlaceName(MemPlace::Pinned), "cudapinnedplace");
}

TEST(MemoryTrack, RunningSum) {
  Warnings w;
  auto tracks =
      buildMemoryTracks({mem(0, 0, 10, 50, 100), mem(0, 0, 20, 30, 7), mem(0, 0, 40, 60, 1000)}, w);
  EXPECT_TRUE(w.empty());
  ASSERT_EQ(tracks.size(), 1u);
  EXPECT_EQ(tracks[0].place, MemPlace::Gpu);
  EXPECT_EQ(tracks[0].device, 0u);
  EXPECT_EQ(samplesOf(tracks[0]),
            (Samples{{10, 100}, {20, 107}, {30, 100}, {40, 1100}, {50, 1000}, {60, 0}}));
}

TEST(MemoryTrack, EventsInAnyOrder) {
  Warnings w;
  auto tracks =
      buildMemoryTracks({mem(0, 0, 40, 60, 1000), mem(0, 0, 10, 50, 100), mem(0, 0, 20, 30, 7)}, w);
  ASSERT_EQ(tracks.size(), 1u);
  EXPECT_EQ(samplesOf(tracks[0]),
            (Samples{{10, 100}, {20, 107}, {30, 100}, {40, 1100}, {50, 1000}, {60, 0}}));
}

TEST(MemoryTrack, ChangesAtTheSameNsGiveOneSample) {
  Warnings w;
  // A block freed at the ns another is allocated, and two allocations at once.
  auto tracks =
      buildMemoryTracks({mem(0, 0, 10, 20, 100), mem(0, 0, 20, 30, 40), mem(0, 0, 20, 30, 2)}, w);
  ASSERT_EQ(tracks.size(), 1u);
  EXPECT_EQ(samplesOf(tracks[0]), (Samples{{10, 100}, {20, 42}, {30, 0}}));
  // Allocated and freed at the same ns: one sample, net zero.
  auto z = buildMemoryTracks({mem(1, 0, 5, 5, 64)}, w);
  ASSERT_EQ(z.size(), 1u);
  EXPECT_EQ(samplesOf(z[0]), (Samples{{5, 0}}));
  EXPECT_TRUE(w.empty());
}

TEST(MemoryTrack, SamplesAreStrictlyIncreasing) {
  Warnings w;
  std::vector<MemoryEvent> ev;
  for (uint64_t i = 0; i < 200; ++i)
    ev.push_back(mem(0, 0, (i * 37) % 50, 50 + (i * 13) % 30, i + 1));
  auto tracks = buildMemoryTracks(ev, w);
  ASSERT_EQ(tracks.size(), 1u);
  for (size_t i = 1; i < tracks[0].samples.size(); ++i)
    EXPECT_LT(tracks[0].samples[i - 1].ns, tracks[0].samples[i].ns);
  EXPECT_EQ(tracks[0].samples.back().allocatedBytes, 0);
}

TEST(MemoryTrack, SeparateTracksPerDeviceNeverSummedAcross) {
  Warnings w;
  auto tracks =
      buildMemoryTracks({mem(0, 0, 10, 100, 5), mem(0, 1, 10, 100, 7), mem(0, 1, 20, 30, 1)}, w);
  ASSERT_EQ(tracks.size(), 2u);
  EXPECT_EQ(tracks[0].device, 0u);
  EXPECT_EQ(samplesOf(tracks[0]), (Samples{{10, 5}, {100, 0}}));
  EXPECT_EQ(tracks[1].device, 1u);
  EXPECT_EQ(samplesOf(tracks[1]), (Samples{{10, 7}, {20, 8}, {30, 7}, {100, 0}}));
}

TEST(MemoryTrack, SeparateTracksPerPlaceSameDevice) {
  Warnings w;
  auto tracks =
      buildMemoryTracks({mem(0, 0, 10, 20, 5), mem(1, 0, 10, 20, 7), mem(2, 0, 10, 20, 9)}, w);
  ASSERT_EQ(tracks.size(), 3u);
  EXPECT_EQ(samplesOf(tracks[0]), (Samples{{10, 5}, {20, 0}}));
  EXPECT_EQ(samplesOf(tracks[1]), (Samples{{10, 7}, {20, 0}}));
  EXPECT_EQ(samplesOf(tracks[2]), (Samples{{10, 9}, {20, 0}}));
}

TEST(MemoryTrack, OrderIsGpuCpuPinnedThenDevice) {
  Warnings w;
  auto tracks = buildMemoryTracks({mem(2, 1, 1, 2, 1), mem(1, 3, 1, 2, 1), mem(0, 7, 1, 2, 1),
                                   mem(2, 0, 1, 2, 1), mem(0, 2, 1, 2, 1), mem(1, 0, 1, 2, 1)},
                                  w);
  ASSERT_EQ(tracks.size(), 6u);
  std::vector<std::pair<MemPlace, uint64_t>> order;
  for (const auto& t : tracks) order.push_back({t.place, t.device});
  EXPECT_EQ(order, (std::vector<std::pair<MemPlace, uint64_t>>{{MemPlace::Gpu, 2},
                                                               {MemPlace::Gpu, 7},
                                                               {MemPlace::Cpu, 0},
                                                               {MemPlace::Cpu, 3},
                                                               {MemPlace::Pinned, 0},
                                                               {MemPlace::Pinned, 1}}));
}

TEST(MemoryTrack, BlockNeverFreedStaysAllocatedAndIsCounted) {
  Warnings w;
  // end_ns 0, and end_ns before start_ns: both never freed.
  auto tracks =
      buildMemoryTracks({mem(0, 0, 10, 0, 100), mem(0, 0, 20, 15, 50), mem(0, 0, 30, 40, 1)}, w);
  ASSERT_EQ(tracks.size(), 1u);
  EXPECT_EQ(samplesOf(tracks[0]), (Samples{{10, 100}, {20, 150}, {30, 151}, {40, 150}}));
  EXPECT_EQ(w.count(Warn::MemoryNeverFreed), 2u);
  EXPECT_EQ(w.total(), 2u);
}

TEST(MemoryTrack, HugeSizesSaturateInsteadOfWrapping) {
  Warnings w;
  auto tracks = buildMemoryTracks({mem(0, 0, 1, 0, UINT64_MAX), mem(0, 0, 2, 0, UINT64_MAX)}, w);
  ASSERT_EQ(tracks.size(), 1u);
  for (const auto& s : tracks[0].samples) EXPECT_GE(s.allocatedBytes, 0);
  EXPECT_EQ(tracks[0].samples.back().allocatedBytes, INT64_MAX);
}

// Issue 31: a sum held at 2^63 - 1 on the way up comes back down exactly, never below 0.
TEST(MemoryTrack, ASaturatedSumComesBackDownAndIsNeverNegative) {
  Warnings w;
  const uint64_t block = uint64_t{1} << 62;
  auto tracks = buildMemoryTracks(
      {mem(0, 0, 1, 4, block), mem(0, 0, 2, 5, block), mem(0, 0, 3, 6, block)}, w);
  ASSERT_EQ(tracks.size(), 1u);
  const int64_t b = static_cast<int64_t>(block);
  EXPECT_EQ(samplesOf(tracks[0]),
            (Samples{{1, b}, {2, INT64_MAX}, {3, INT64_MAX}, {4, INT64_MAX}, {5, b}, {6, 0}}));
  EXPECT_EQ(w.count(Warn::MemorySumOverflow), 3u);  // after the changes at 2, 3 and 4
}

TEST(MemoryTrack, NoEventsNoTracks) {
  Warnings w;
  EXPECT_TRUE(buildMemoryTracks({}, w).empty());
  EXPECT_TRUE(w.empty());
}

}  // namespace
}  // namespace xstack
