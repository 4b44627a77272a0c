// The examples kept per warning kind are the smallest in natural
// order, whatever the order of add and merge (which rank read which file).
#include <gtest/gtest.h>

#include <algorithm>

#include "xstack/core/Warnings.h"
#include "xstack/model/MarkerPairer.h"
#include "xstack/model/MemoryTrack.h"

namespace xstack {
namespace {

TEST(WarningExamples, NaturalOrderComparesNumbersAsNumbers) {
  EXPECT_TRUE(Warnings::naturalLess("net.3:9: x", "net.3:10: x"));
  EXPECT_FALSE(Warnings::naturalLess("net.3:10: x", "net.3:9: x"));
  EXPECT_TRUE(Warnings::naturalLess("dcgm.0:5: x", "net.0:1: x"));
  EXPECT_TRUE(Warnings::naturalLess("a", "ab"));
  EXPECT_FALSE(Warnings::naturalLess("a", "a"));
}

TEST(WarningExamples, KeepsTheSmallestWhateverTheOrderOfAdds) {
  std::vector<std::string> xs = {"p.2: ts 5 ns", "p.10: ts 1 ns", "p.1: ts 30 ns",
                                 "p.1: ts 4 ns", "p.2: ts 40 ns", "p.1: ts 100 ns"};
  std::sort(xs.begin(), xs.end());
  do {
    Warnings w;
    for (const auto& x : xs) w.add(Warn::NetBadLine, 1, x);
    EXPECT_EQ(w.count(Warn::NetBadLine), xs.size());
    EXPECT_EQ(w.entries().at(Warn::NetBadLine).examples,
              (std::vector<std::string>{"p.1: ts 4 ns", "p.1: ts 30 ns", "p.1: ts 100 ns"}));
  } while (std::next_permutation(xs.begin(), xs.end()));
}

TEST(WarningExamples, MergeOrderDoesNotMatter) {
  // Three "ranks", each with the warnings of the files it read.
  Warnings a, b, c;
  a.add(Warn::MarkerUnmatchedEnd, 2, "profile_rank.7 (training rank 7): ts 90 ns: x");
  a.add(Warn::MarkerUnmatchedEnd, 0, "never: zero count adds nothing");
  b.add(Warn::MarkerUnmatchedEnd, 1, "profile_rank.2 (training rank 2): ts 500 ns: x");
  b.add(Warn::DcgmNoiseLine, 4, "dcgm.1:3: y");
  c.add(Warn::MarkerUnmatchedEnd, 1, "profile_rank.12 (training rank 12): ts 1 ns: x");
  c.add(Warn::MarkerUnmatchedEnd, 1, "profile_rank.2 (training rank 2): ts 20 ns: x");
  std::vector<Warnings*> parts = {&a, &b, &c};
  std::sort(parts.begin(), parts.end());
  std::vector<std::string> first;
  do {
    Warnings all;
    for (const Warnings* p : parts) all.merge(*p);
    EXPECT_EQ(all.count(Warn::MarkerUnmatchedEnd), 5u);
    const auto& ex = all.entries().at(Warn::MarkerUnmatchedEnd).examples;
    EXPECT_EQ(ex, (std::vector<std::string>{"profile_rank.2 (training rank 2): ts 20 ns: x",
                                            "profile_rank.2 (training rank 2): ts 500 ns: x",
                                            "profile_rank.7 (training rank 7): ts 90 ns: x"}));
    EXPECT_EQ(all.entries().at(Warn::DcgmNoiseLine).examples.size(), 1u);
  } while (std::next_permutation(parts.begin(), parts.end()));
}

TEST(WarningExamples, MarkerWarningsNameFileRankEventAndTimestamp) {
  MarkerPairer p;
  p.add({100, Phase::Forward, false});  // an end without a begin
  p.add({200, Phase::Backward, true});
  p.add({300, Phase::Backward, true});  // replaces the begin at 200
  p.add({400, Phase::Forward, true});   // never ended
  Warnings w;
  p.pair(w, "profile_rank.3 (training rank 3)");
  EXPECT_EQ(w.entries().at(Warn::MarkerUnmatchedEnd).examples.at(0),
            "profile_rank.3 (training rank 3): ts 100 ns: marker_forward_E, no begin");
  EXPECT_EQ(w.entries().at(Warn::MarkerReplacedBegin).examples.at(0),
            "profile_rank.3 (training rank 3): ts 200 ns: marker_backward_B, replaced by a later "
            "begin");
  EXPECT_EQ(w.entries().at(Warn::MarkerUnmatchedBegin).examples,
            (std::vector<std::string>{
                "profile_rank.3 (training rank 3): ts 300 ns: marker_backward_B, no end",
                "profile_rank.3 (training rank 3): ts 400 ns: marker_forward_B, no end"}));
}

TEST(WarningExamples, MemoryWarningsNameTheEarliestEvents) {
  MemoryWarningCounter c;
  for (uint64_t ts : {500, 100, 900, 300, 700})
    c.add({ts, 0, 64, MemPlace::Gpu, 1, 0});  // never freed
  Warnings w;
  c.addTo(w, "p.4 (training rank 4)");
  EXPECT_EQ(w.count(Warn::MemoryNeverFreed), 5u);
  EXPECT_EQ(w.entries().at(Warn::MemoryNeverFreed).examples,
            (std::vector<std::string>{
                "p.4 (training rank 4): ts 100 ns: 64 bytes, place 0, device 1, end_ns 0",
                "p.4 (training rank 4): ts 300 ns: 64 bytes, place 0, device 1, end_ns 0",
                "p.4 (training rank 4): ts 500 ns: 64 bytes, place 0, device 1, end_ns 0"}));
  Warnings countsOnly;
  c.addTo(countsOnly);
  EXPECT_TRUE(countsOnly.entries().at(Warn::MemoryNeverFreed).examples.empty());
}

}  // namespace
}  // namespace xstack
