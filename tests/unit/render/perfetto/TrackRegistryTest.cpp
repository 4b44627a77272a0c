// TrackRegistry: one TrackDescriptor packet per track and sequence (ensure*),
// parents before children with the parent uuids of docs/FORMAT.md, uuids
// that depend on the data only (two sequences agree). Read back through the
// test decoder.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "SequenceParts.h"
#include "xstack/render/perfetto/TrackRegistry.h"

namespace xstack::perfetto {
namespace {

using test::SequenceParts;

// sibling_order_rank (field 12) or child_ordering (11): not in the test
// schema subset, read from the unknown fields (the varint as int64).
// TrackDescriptor's child_ordering (field 11) when set.
std::optional<int64_t> childOrdering(const test::pb::TrackDescriptor& d) {
  if (!d.has_child_ordering()) return std::nullopt;
  return static_cast<int64_t>(d.child_ordering());
}
// TrackDescriptor's sibling_order_rank (field 12) when set.
std::optional<int64_t> siblingRank(const test::pb::TrackDescriptor& d) {
  if (!d.has_sibling_order_rank()) return std::nullopt;
  return d.sibling_order_rank();
}

std::map<uint64_t, int> countByUuid(const std::string& bytes) {
  std::map<uint64_t, int> n;
  for (const auto& d : test::descriptorPackets(bytes)) ++n[d.uuid()];
  return n;
}

TEST(TrackRegistry, OneDescriptorPerTrackParentsFirst) {
  SequenceParts s(7);
  const CounterUnit bytes{CounterUnit::Builtin::SizeBytes, {}};
  for (int k = 0; k < 3; ++k) {
    s.tracks.ensureThread(3, 1);  // writes process 3, then thread (3, 1)
    s.tracks.ensureThread(3, 2);
    s.tracks.ensureProcess(3);
    s.tracks.counterTrack(3, "Memory", std::nullopt, "allocated_bytes", bytes);
  }
  const uint64_t lane = s.tracks.addLane(3, 1, 1, "stream 1");
  const std::string& out = s.finish();
  const test::Decoded d = test::decodeOrFail(out);  // parents defined before children
  const uint64_t counter = counterTrackUuid(3, "Memory allocated_bytes");
  EXPECT_EQ(countByUuid(out), (std::map<uint64_t, int>{{processTrackUuid(3), 1},
                                                       {threadTrackUuid(3, 1), 1},
                                                       {threadTrackUuid(3, 2), 1},
                                                       {counter, 1},
                                                       {lane, 1}}));
  EXPECT_EQ(d.tracks.at(threadTrackUuid(3, 1)).parent_uuid(), processTrackUuid(3));
  EXPECT_EQ(d.tracks.at(threadTrackUuid(3, 2)).parent_uuid(), processTrackUuid(3));
  EXPECT_EQ(d.tracks.at(counter).parent_uuid(), processTrackUuid(3));
  EXPECT_EQ(d.tracks.at(counter).counter().unit(), 3);  // UNIT_SIZE_BYTES
  EXPECT_EQ(d.tracks.at(counter).name(), "Memory allocated_bytes");
  EXPECT_EQ(d.tracks.at(lane).parent_uuid(), threadTrackUuid(3, 1));
  EXPECT_EQ(d.tracks.at(lane).name(), "stream 1");
  EXPECT_FALSE(d.tracks.at(processTrackUuid(3)).has_parent_uuid());
  EXPECT_EQ(d.tracks.at(processTrackUuid(3)).process().pid(), 3);
  EXPECT_EQ(d.tracks.at(threadTrackUuid(3, 2)).thread().tid(), 2);
}

// More series than the registry's cache of recent counter tracks: each
// series still gets exactly one descriptor (the cache is not the record).
TEST(TrackRegistry, CounterSeriesPastTheCacheStillOneDescriptorEach) {
  SequenceParts s(1);
  for (int round = 0; round < 2; ++round)
    for (int64_t id = 0; id < 40; ++id)
      s.tracks.counterTrack(5, "gpu", id, "util", {CounterUnit::Builtin::Unspecified, "ratio"});
  std::map<uint64_t, int> n = countByUuid(s.finish());
  n.erase(processTrackUuid(5));
  ASSERT_EQ(n.size(), 40u);
  for (const auto& [uuid, count] : n) EXPECT_EQ(count, 1) << uuid;
  EXPECT_EQ(n.count(counterTrackUuid(5, counterTrackName("gpu", 39, "util"))), 1u);
}

// declare*() names a track each time it is called (a chunk that declares a
// process after one that only referenced it supplies the name); a
// referenced-only process orders by its pid.
TEST(TrackRegistry, DeclareNamesAndEnsureDoesNotRepeat) {
  SequenceParts s(1);
  s.tracks.ensureProcess(9);
  s.tracks.declareProcess(9, "09_rank", 4);
  s.tracks.declareThread(9, 2, "stream \xFF", int64_t{1} << 40);  // invalid UTF-8, rank past int32
  s.tracks.ensureThread(9, 2);                                    // already there: nothing
  const std::string& out = s.finish();
  const auto all = test::descriptorPackets(out);
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(siblingRank(all[0]), 9);    // referenced only: its pid
  EXPECT_EQ(childOrdering(all[0]), 3);  // CHILD_ORDERING_EXPLICIT
  EXPECT_FALSE(all[0].process().has_process_name());
  EXPECT_EQ(all[1].process().process_name(), "09_rank");
  EXPECT_EQ(siblingRank(all[1]), 4);
  EXPECT_EQ(all[2].thread().thread_name(), "stream \xEF\xBF\xBD");
  EXPECT_EQ(siblingRank(all[2]), INT32_MAX);                  // clamped to int32
  EXPECT_EQ(all[2].thread().legacy_sort_index(), INT32_MAX);  // likewise, not its low 32 bits
  EXPECT_EQ(all[1].process().legacy_sort_index(), 4);
  EXPECT_EQ(childOrdering(all[2]), std::nullopt);  // a thread orders no children
  EXPECT_EQ(all[2].parent_uuid(), processTrackUuid(9));
  EXPECT_EQ(s.seq.textStats().invalidUtf8, 1u);
}

// Uuids are functions of the data: two sequences (chunks) agree on them,
// small ids are exact, lanes differ from their thread and from each other.
TEST(TrackRegistry, UuidsStableAcrossSequences) {
  SequenceParts a(1), b(2);
  const uint64_t laneA = a.tracks.addLane(3, 4, 1, "t");
  b.tracks.ensureThread(3, 4);
  const uint64_t laneB = b.tracks.addLane(3, 4, 1, "t");
  EXPECT_EQ(laneA, laneB);
  EXPECT_EQ(laneA, laneTrackUuid(3, 4, 1));
  EXPECT_NE(laneTrackUuid(3, 4, 2), laneA);
  EXPECT_NE(laneA, threadTrackUuid(3, 4));
  EXPECT_EQ(threadTrackUuid(3, 4), (uint64_t{3} << 26) | (uint64_t{4} << 2) | 2);
  EXPECT_EQ(processTrackUuid(3), (uint64_t{3} << 26) | 1);
  EXPECT_EQ(a.tracks.counterTrack(3, "m", std::nullopt, "v", {}),
            b.tracks.counterTrack(3, "m", std::nullopt, "v", {}));
  const auto da = test::descriptorPackets(a.finish());
  ASSERT_EQ(da.size(), 3u);  // the lane, then the counter's process and the counter
  EXPECT_EQ(da[0].uuid(), laneA);
  EXPECT_EQ(da[0].parent_uuid(), threadTrackUuid(3, 4));  // the caller ensures the thread
}

}  // namespace
}  // namespace xstack::perfetto
