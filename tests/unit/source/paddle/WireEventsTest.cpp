// The meaning of Paddle's wire events (docs/FORMAT.md section 3): rows by
// type and device, step marks, memory places, what has no row, and the
// collectives of NCCL kernels (from their names).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "xstack/model/MemoryTrack.h"
#include "xstack/model/RankRows.h"
#include "xstack/source/paddle/WireEvents.h"

namespace xstack {
namespace {

constexpr const char* kMarker = "marker/compute/MarkerCUDA";

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

ProfileMemEvent mem(int64_t place, uint64_t device, uint64_t start = 1, uint64_t end = 2,
                    uint64_t bytes = 8) {
  ProfileMemEvent m;
  m.place = place;
  m.deviceId = device;
  m.startNs = start;
  m.endNs = end;
  m.bytes = bytes;
  return m;
}

bool rowOfEvent(const ProfileEvent& e, RowKey& k, Warnings& w) { return rowOfWireEvent(e, k, w); }

// Wire events through the mapper, as a decode delivers them.
EventList mapped(const std::vector<ProfileEvent>& events,
                 const std::vector<ProfileMemEvent>& memory, Warnings& w) {
  EventList out;
  WireEventMapper m(out, {&w, ""});
  for (const ProfileEvent& e : events) m.onEvent(e);
  for (const ProfileMemEvent& x : memory) m.onMemEvent(x);
  m.finish();
  return out;
}

// Issue 31: a dump's time past 2^63 - 1 ns (after 2262) is no time: the event or memory
// block is dropped and counted (event_bad_time), never drawn nor summed.
TEST(WireEventMapper, TimesPastTwoToThe63AreDropped) {
  Warnings w;
  const uint64_t past = uint64_t{1} << 63;
  ProfileEvent late = ev(1, 0), fits = ev(1, 0);
  late.endNs = past;
  fits.endNs = past - 1;
  EventList l = mapped({late, fits}, {mem(0, 0, 1, past), mem(0, 0, past, 0), mem(0, 0, 1, 2)}, w);
  ASSERT_EQ(l.slices.size(), 1u);
  EXPECT_EQ(l.slices[0].endNs, past - 1);
  EXPECT_EQ(l.memory.size(), 1u);
  EXPECT_EQ(w.count(Warn::EventBadTime), 3u);
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

TEST(RankRows, BadEventsAndUnknownPlacesMakeNoRows) {
  Warnings w;
  EventList d = mapped({ev(0, -5), ev(3, 0), ev(0, 2)}, {mem(9, 0)}, w);
  auto rows = rankRows(d);
  EXPECT_EQ(rows, (std::vector<RowKey>{{RowKind::CpuBlock, 2}}));
  EXPECT_EQ(w.count(Warn::EventBadDevice), 1u);
  EXPECT_EQ(w.count(Warn::EventUnknownType), 1u);
  // Unknown places are counted once, by the source (memory tracks never see them).
  EXPECT_EQ(w.count(Warn::MemoryUnknownPlace), 1u);
  // Events without a row still count as events.
  EXPECT_EQ(d.slices.size() + d.unplaced.size(), 4u);
}

TEST(MemoryTrack, PlacesFromWire) {
  MemPlace p;
  ASSERT_TRUE(memPlaceFromWire(0, p));
  EXPECT_EQ(p, MemPlace::Gpu);
  ASSERT_TRUE(memPlaceFromWire(1, p));
  EXPECT_EQ(p, MemPlace::Cpu);
  ASSERT_TRUE(memPlaceFromWire(2, p));
  EXPECT_EQ(p, MemPlace::Pinned);
  EXPECT_FALSE(memPlaceFromWire(3, p));
  EXPECT_FALSE(memPlaceFromWire(-1, p));
}

TEST(MemoryTrack, UnknownPlaceIsSkippedAndCounted) {
  Warnings w;
  EventList d = mapped({}, {mem(3, 0, 1, 2, 10), mem(-1, 0, 1, 2, 10), mem(0, 0, 5, 6, 1)}, w);
  auto tracks = buildMemoryTracks(d.memory, w);
  ASSERT_EQ(tracks.size(), 1u);
  EXPECT_EQ(tracks[0].place, MemPlace::Gpu);
  EXPECT_EQ(w.count(Warn::MemoryUnknownPlace), 2u);
  EXPECT_EQ(w.total(), 2u);
}

TEST(StepMarkOf, ClassifiesTheFourMarkers) {
  StepMark m;
  ASSERT_TRUE(stepMarkOf(kMarker, "marker_forward_B", 10, m));
  EXPECT_EQ(m.ts, 10u);
  EXPECT_EQ(m.phase, Phase::Forward);
  EXPECT_TRUE(m.begin);
  ASSERT_TRUE(stepMarkOf(kMarker, "marker_forward_E", 11, m));
  EXPECT_EQ(m.phase, Phase::Forward);
  EXPECT_FALSE(m.begin);
  ASSERT_TRUE(stepMarkOf(kMarker, "marker_backward_B", 12, m));
  EXPECT_EQ(m.phase, Phase::Backward);
  EXPECT_TRUE(m.begin);
  ASSERT_TRUE(stepMarkOf(kMarker, "marker_backward_E", 13, m));
  EXPECT_EQ(m.phase, Phase::Backward);
  EXPECT_FALSE(m.begin);
  EXPECT_EQ(m.ts, 13u);
}

TEST(StepMarkOf, IgnoresOtherNamesAndDetails) {
  StepMark m;
  EXPECT_FALSE(stepMarkOf("marker/compute/MarkerCPU", "marker_forward_B", 1, m));
  EXPECT_FALSE(stepMarkOf("matmul", "marker_forward_B", 1, m));
  EXPECT_FALSE(stepMarkOf(kMarker, "", 1, m));
  EXPECT_FALSE(stepMarkOf(kMarker, "marker_forward", 1, m));
  EXPECT_FALSE(stepMarkOf(kMarker, "marker_forward_B ", 1, m));
  EXPECT_FALSE(stepMarkOf(kMarker, "Marker_Forward_B", 1, m));
  EXPECT_FALSE(stepMarkOf(kMarker, "marker_optimizer_B", 1, m));
  EXPECT_FALSE(stepMarkOf(std::string(kMarker) + "x", "marker_backward_E", 1, m));
  EXPECT_FALSE(stepMarkOf("", "", 1, m));
}

TEST(StepMarkOf, AMarkerIsAlsoASlice) {
  Warnings w;
  ProfileEvent m = ev(0, 0);
  m.name = kMarker;
  m.detail = "marker_forward_B";
  EventList d = mapped({m}, {}, w);
  ASSERT_EQ(d.marks.size(), 1u);
  EXPECT_EQ(d.marks[0].ts, 10u);
  ASSERT_EQ(d.slices.size(), 1u);
  EXPECT_EQ(d.slices[0].detail, "marker_forward_B");
}

// The unknown-place half of WarningExamples.MemoryWarningsNameTheEarliestEvents
// (tests/unit/core/WarningExamplesTest.cpp): the source counts those.
TEST(WarningExamples, UnknownMemoryPlacesNameTheEarliestEvents) {
  Warnings w;
  EventList out;
  WireEventMapper m(out, {&w, "p.4 (training rank 4)"});
  for (uint64_t ts : {500, 100, 900, 300, 700}) m.onMemEvent({ts, 0, 64, 0, 0, 1});  // never freed
  m.onMemEvent({50, 60, 8, 7, 0, 0});  // unknown place
  m.finish();
  EXPECT_EQ(w.entries().at(Warn::MemoryUnknownPlace).examples.at(0),
            "p.4 (training rank 4): ts 50 ns: 8 bytes, place 7, device 0, end_ns 60");
  EXPECT_EQ(out.memory.size(), 5u);
}

// The dumps have no group args: an NCCL kernel on a GPU row gets its
// collective from its name (default group); nothing else does.
TEST(WireEventCollective, GpuKernelsNamedByNccl) {
  Warnings w;
  ProfileEvent nccl = ev(1, 0, 7);
  nccl.name = "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)";
  ProfileEvent gemm = ev(1, 0, 7);
  gemm.name = "volta_sgemm_128x64_nn";
  ProfileEvent host = ev(0, 0);
  host.name = "ncclKernel_AllReduce_RING_LL_Sum_float";  // a CPU row: not a kernel
  EventList l = mapped({nccl, gemm, host}, {}, w);
  ASSERT_EQ(l.slices.size(), 3u);
  ASSERT_NE(l.slices[0].collective, nullptr);
  EXPECT_EQ(l.slices[0].collective->collective, "allreduce");
  EXPECT_TRUE(l.slices[0].collective->fromKernelName);
  EXPECT_EQ(l.slices[0].collective->group, "");
  EXPECT_EQ(l.slices[1].collective, nullptr);
  EXPECT_EQ(l.slices[2].collective, nullptr);
}

}  // namespace
}  // namespace xstack
