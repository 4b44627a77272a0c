// An owner's outcomes on their way back (analysis/collectives/OwnerOutcomes.h):
// added group by group from threads in any order, they come back in each
// sender's order, in chunks, in memory or through the scratch files; a
// missing or doubled outcome, or the owner's error, is every reply's error.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <thread>

#include "../../TempDirTest.h"
#include "xstack/analysis/collectives/OwnerOutcomes.h"

namespace xstack {
namespace {

struct Reply {
  std::string error;
  std::vector<ArrivalOutcome> outcomes;
};

// Sender s's arrival p: its own rank and start, and its outcome, made up
// from (s, p): last arrivers before and after it, times near both ends.
OutcomeBase baseOf(size_t s, size_t p) {
  return {static_cast<int64_t>(s * 10 + p % 3), p % 11 == 0 ? ~uint64_t{0} : p * 1000 + s};
}
ArrivalOutcome outcomeOf(size_t s, size_t p) {
  if (p % 5 == 4) return {};  // not matched
  return {true, static_cast<int64_t>(s * 100 + p % 7) - 50, ~uint64_t{0} - p * 3 - s};
}

// Sender s's reply from its chunks on `shelf` (its outcomes read with their
// bases); `most`: the outcomes a chunk may carry.
Reply readReply(const PartShelf& shelf, const std::vector<size_t>& chunks, size_t s,
                uint64_t most) {
  Reply m;
  for (size_t c : chunks) {
    wire::Reader r(shelf.view(c));
    const std::string error = r.str();
    if (m.error.empty()) m.error = error;
    const uint64_t n = r.count();
    EXPECT_LE(n, most);
    EXPECT_TRUE(n > 0 || !error.empty());  // no empty chunk
    for (uint64_t i = 0; i < n && r.ok(); ++i) {
      const size_t p = m.outcomes.size();
      m.outcomes.push_back(readOutcome(r, baseOf(s, p)));
    }
    EXPECT_TRUE(r.finish().ok());
  }
  return m;
}

class OwnerOutcomesTest : public TempDirTest {
 protected:
  // Every (sender, place) of `sentBy` in a shuffled order, split into `groups` groups.
  std::vector<std::vector<Origin>> shuffledGroups(const std::vector<size_t>& sentBy,
                                                  size_t groups) {
    std::vector<Origin> all;
    for (size_t s = 0; s < sentBy.size(); ++s)
      for (size_t p = 0; p < sentBy[s]; ++p) all.emplace_back(s, p);
    std::mt19937 rng(7);
    std::shuffle(all.begin(), all.end(), rng);
    std::vector<std::vector<Origin>> out(groups);
    for (size_t i = 0; i < all.size(); ++i) out[i % groups].push_back(all[i]);
    return out;
  }
  // Each origin as an instance of its own, with an outcome of its own.
  static void add(OwnerOutcomes& to, const std::vector<Origin>& from) {
    for (const Origin& f : from)
      to.add(outcomeOf(f.first, f.second), {MemberOrigin{f, baseOf(f.first, f.second)}});
  }
};

TEST_F(OwnerOutcomesTest, RepliesComeInEachSendersOrderFromMemoryOrTheFile) {
  const std::vector<size_t> sentBy{3000, 0, 1700};
  const auto groups = shuffledGroups(sentBy, 13);
  for (uint64_t budget : {uint64_t{1} << 30, uint64_t{0}}) {  // 0: runs of 1,024 outcomes
    SCOPED_TRACE(budget);
    OwnerOutcomes outcomes(SpillOptions{dir_.string(), budget}, sentBy);
    std::vector<std::thread> threads;
    for (size_t t = 0; t < 3; ++t)
      threads.emplace_back([&, t] {
        for (size_t g = t; g < groups.size(); g += 3) add(outcomes, groups[g]);
      });
    for (std::thread& t : threads) t.join();
    PartShelf shelf(dir_.string(), budget);
    const auto chunks = outcomes.replyChunks("", 700, shelf);
    ASSERT_EQ(chunks.size(), sentBy.size());
    EXPECT_EQ(chunks[0].size(), 5u);  // 3000 outcomes, 700 a chunk
    EXPECT_EQ(chunks[1].size(), 0u);
    for (size_t s = 0; s < sentBy.size(); ++s) {
      const Reply m = readReply(shelf, chunks[s], s, 700);
      EXPECT_EQ(m.error, "");
      ASSERT_EQ(m.outcomes.size(), sentBy[s]);
      for (size_t p = 0; p < sentBy[s]; ++p) {
        const ArrivalOutcome want = outcomeOf(s, p);
        EXPECT_EQ(m.outcomes[p].matched, want.matched);
        EXPECT_EQ(m.outcomes[p].lastRank, want.lastRank);
        EXPECT_EQ(m.outcomes[p].lastArrivalNs, want.lastArrivalNs);
      }
    }
  }
}

TEST_F(OwnerOutcomesTest, AMissingOrDoubledOutcomeOrTheOwnersErrorIsEveryReplysError) {
  const std::vector<size_t> sentBy{4, 3};
  const auto groups = shuffledGroups(sentBy, 2);
  std::vector<Origin> missing = groups[0];
  missing.pop_back();
  std::vector<Origin> doubled = groups[0];
  doubled.push_back(groups[0].front());
  for (int c = 0; c < 3; ++c) {
    SCOPED_TRACE(c);
    OwnerOutcomes outcomes(SpillOptions{dir_.string(), 0}, sentBy);
    const std::vector<Origin>& first = c == 0 ? missing : c == 1 ? doubled : groups[0];
    add(outcomes, first);
    add(outcomes, groups[1]);
    PartShelf shelf(dir_.string(), 0);
    const auto chunks = outcomes.replyChunks(c == 2 ? "the owner failed" : "", 2, shelf);
    ASSERT_EQ(chunks.size(), 2u);
    for (size_t s = 0; s < chunks.size(); ++s) {
      ASSERT_EQ(chunks[s].size(), 1u);
      const Reply m = readReply(shelf, chunks[s], s, 2);
      EXPECT_NE(m.error, "");
      EXPECT_TRUE(m.outcomes.empty());
      if (c == 2) {
        EXPECT_EQ(m.error, "the owner failed");
      }
    }
  }
}

}  // namespace
}  // namespace xstack
