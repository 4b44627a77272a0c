// SliceStacks: the BEGIN/END pairs of each track nest, slices end in time
// order (a slice ending at ts before one starting at ts), a slice that
// overlaps without nesting goes to an overlap lane with exact times, events
// of a thread in ts order. Read back through the test decoder, which checks
// per track that every END closes the innermost BEGIN at or after it.
#include <gtest/gtest.h>

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "SequenceParts.h"
#include "xstack/render/perfetto/SliceStacks.h"

namespace xstack::perfetto {
namespace {

using test::SequenceParts;
using test::SliceSeen;

std::map<std::string, SliceSeen> byName(const test::Decoded& d) {
  std::map<std::string, SliceSeen> m;
  for (const SliceSeen& s : d.slices) m[s.name] = s;
  return m;
}

std::vector<std::string> endOrder(const test::Decoded& d) {
  std::vector<std::string> names;
  for (const SliceSeen& s : d.slices) names.push_back(s.name);
  return names;
}

TEST(SliceStacks, NestedSlicesEndInnermostFirstOnTheThreadTrack) {
  SequenceParts s(1);
  s.slices.declare(2, 1, "t", 1);
  s.slice(2, 1, "outer", 100, 100);
  s.slice(2, 1, "mid", 110, 50);
  s.slice(2, 1, "inner", 120, 10);
  s.slice(2, 1, "same-end", 130, 30);  // ends with mid: nests in it
  s.slice(2, 1, "after", 200, 5);      // starts where outer ends
  const test::Decoded d = test::decodeOrFail(s.finish());
  EXPECT_EQ(endOrder(d), (std::vector<std::string>{"inner", "same-end", "mid", "outer", "after"}));
  for (const SliceSeen& x : d.slices) EXPECT_EQ(x.track, threadTrackUuid(2, 1)) << x.name;
  const auto m = byName(d);
  EXPECT_EQ(m.at("mid").dur, 50u);
  EXPECT_EQ(m.at("same-end").dur, 30u);
  EXPECT_EQ(d.tracks.size(), 2u);  // process and thread: no lane
}

// A zero-length slice (what the walk makes of an event that ends before it
// starts) ends at its start, before the next slice that starts there.
TEST(SliceStacks, ZeroLengthSliceEndsBeforeTheNextAtTheSameTs) {
  SequenceParts s(1);
  s.slice(2, 1, "clamped", 50, 0);
  s.slice(2, 1, "next", 50, 10);
  s.slice(2, 1, "zero-in-next", 55, 0);
  const test::Decoded d = test::decodeOrFail(s.finish());
  EXPECT_EQ(endOrder(d), (std::vector<std::string>{"clamped", "zero-in-next", "next"}));
  const auto m = byName(d);
  EXPECT_EQ(m.at("clamped").ts, 50u);
  EXPECT_EQ(m.at("clamped").dur, 0u);
  EXPECT_EQ(m.at("zero-in-next").dur, 0u);
  EXPECT_EQ(m.at("next").dur, 10u);
}

// A child that outlives its parent cannot nest: it goes to a lane (a child
// track of the thread, named like it) and keeps its exact end; the lane is
// reused by later overlapping slices instead of adding one per overlap.
TEST(SliceStacks, OverlapGoesToALaneWithExactTimes) {
  SequenceParts s(1);
  s.slices.declare(2, 1, "stream 7", 1);
  s.slice(2, 1, "parent", 0, 10);
  s.slice(2, 1, "outlives", 5, 10);   // ends at 15, past parent's 10
  s.slice(2, 1, "back-home", 11, 2);  // parent ended: lane 0 free again
  s.slice(2, 1, "long", 14, 16);      // lane 0 (14..30)
  s.slice(2, 1, "again", 16, 24);     // outlives ended at 15: lane 1 again, not a new lane
  const std::string& out = s.finish();
  const test::Decoded d = test::decodeOrFail(out);
  const auto m = byName(d);
  const uint64_t thread = threadTrackUuid(2, 1);
  EXPECT_EQ(m.at("parent").track, thread);
  EXPECT_EQ(m.at("back-home").track, thread);
  EXPECT_EQ(m.at("outlives").track, laneTrackUuid(2, 1, 1));
  EXPECT_EQ(m.at("outlives").ts, 5u);
  EXPECT_EQ(m.at("outlives").dur, 10u);
  EXPECT_EQ(m.at("long").track, thread);
  EXPECT_EQ(m.at("again").track, laneTrackUuid(2, 1, 1));
  EXPECT_EQ(m.at("again").dur, 24u);
  const auto& lane = d.tracks.at(laneTrackUuid(2, 1, 1));
  EXPECT_EQ(lane.parent_uuid(), thread);
  EXPECT_EQ(lane.name(), "stream 7");
  EXPECT_EQ(test::descriptorPackets(out).size(), 3u);  // process, thread, one lane
}

// finish() ends what is open on every thread and lane, each at its end.
TEST(SliceStacks, CloseAllEndsEveryOpenSliceAtItsEnd) {
  SequenceParts s(1);
  s.slice(2, 1, "a", 0, 100);
  s.slice(2, 1, "b", 50, 100);  // lane 1
  s.slice(2, 3, "c", 10, 5);
  const test::Decoded d = test::decodeOrFail(s.finish());
  const auto m = byName(d);
  ASSERT_EQ(m.size(), 3u);
  EXPECT_EQ(m.at("a").dur, 100u);
  EXPECT_EQ(m.at("b").dur, 100u);
  EXPECT_EQ(m.at("c").dur, 5u);
}

TEST(SliceStacks, EventsOfAThreadOutOfTsOrderAreRejected) {
  SequenceParts s(1);
  s.slice(2, 1, "a", 10, 1);
  s.slice(2, 2, "other thread", 5, 1);  // another thread: its own order
  EXPECT_THROW(s.slices.advanceTo(2, 1, 9), std::logic_error);
  EXPECT_NO_THROW(s.slices.advanceTo(2, 1, 10));
}

}  // namespace
}  // namespace xstack::perfetto
