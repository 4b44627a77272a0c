// An owner's groups (analysis/collectives/OwnedGroups.h): arrivals kept
// encoded with their origins come back exactly, whether held in memory,
// spilled to the scratch file in pieces, or held because the file cannot be
// made; the collector gives the same groups on any budget.
#include <gtest/gtest.h>

#include <limits>
#include <stdexcept>

#include "../../TempDirTest.h"
#include "xstack/analysis/collectives/OwnedGroups.h"

namespace xstack {
namespace {

Arrival arrival(int64_t rank, std::string group, uint64_t start, int64_t instance,
                int64_t peer = -1) {
  Arrival a;
  a.rank = rank;
  a.group = std::move(group);
  a.collective = peer < 0 ? "allreduce" : "send";
  a.bytes = 4096 + static_cast<uint64_t>(rank);
  a.instance = instance;
  a.startNs = start;
  a.endNs = start + 700;
  a.launchNs = start - 50;
  a.freeNs = start - 10;
  a.peer = peer;
  return a;
}

// One arrival's encoding as a routed message carries it.
std::string encodingOf(const Arrival& a) {
  wire::Writer w;
  writeRankArrivals(w, RankArrivals{a.rank, 1, {a}, {}});
  RankArrivals one{a.rank, 1, {}, {}};
  wire::Writer empty;
  writeRankArrivals(empty, one);
  // Both start alike (version, rank, steps) and end alike (the empty groups
  // list); the list's count (1 and 0) is the byte before the arrival.
  const std::string full = w.take(), none = empty.take();
  const size_t head = none.size() - 1;  // the version byte to the count
  return full.substr(head, full.size() - none.size());
}

void expectSame(const Arrival& a, const Arrival& b) {
  EXPECT_EQ(a.rank, b.rank);
  EXPECT_EQ(a.group, b.group);
  EXPECT_EQ(a.collective, b.collective);
  EXPECT_EQ(a.bytes, b.bytes);
  EXPECT_EQ(a.instance, b.instance);
  EXPECT_EQ(a.startNs, b.startNs);
  EXPECT_EQ(a.endNs, b.endNs);
  EXPECT_EQ(a.launchNs, b.launchNs);
  EXPECT_EQ(a.freeNs, b.freeNs);
  EXPECT_EQ(a.peer, b.peer);
}

class OwnedGroupsTest : public TempDirTest {};

TEST_F(OwnedGroupsTest, ArrivalsAndOriginsComeBackFromMemoryAndTheFile) {
  const size_t huge = std::numeric_limits<size_t>::max();
  std::vector<Arrival> in;
  std::vector<Origin> from;
  for (int64_t i = 0; i < 40; ++i) {
    in.push_back(
        arrival(i % 3, "tp", 1000 + static_cast<uint64_t>(i) * 10, i / 3, i % 7 == 0 ? 1 : -1));
    // Places go up, down, to the extremes and back; senders change with and without the rank.
    const size_t place = i == 5 ? huge : i == 6 ? 0 : static_cast<size_t>(i * 1000 % 37);
    from.emplace_back(static_cast<size_t>(i / 10), place);
  }
  Expected<SpillFile> file = SpillFile::create(dir_.string());
  ASSERT_TRUE(file.ok());
  GroupBytes g;
  for (size_t i = 0; i < in.size(); ++i) {
    g.add(in[i].rank, from[i], encodingOf(in[i]), in[i].peer < 0);
    if (i == 9 || i == 10 || i == 25) {
      ASSERT_TRUE(g.spillTo(*file));  // pieces of 10, 1, 15
    }
  }
  EXPECT_TRUE(g.spillTo(*file));
  g.add(in[0].rank, from[0], encodingOf(in[0]), true);  // one more, held
  in.push_back(in[0]);
  from.push_back(from[0]);
  ASSERT_TRUE(file->flush().ok());
  EXPECT_EQ(g.count(), in.size());
  EXPECT_TRUE(g.wholeGroup());
  std::vector<Arrival> back;
  std::vector<Origin> origins;
  g.decode(&*file, back, origins);
  ASSERT_EQ(back.size(), in.size());
  EXPECT_EQ(origins, from);
  for (size_t i = 0; i < in.size(); ++i) {
    SCOPED_TRACE(i);
    expectSame(in[i], back[i]);
  }
  EXPECT_THROW(g.decode(nullptr, back, origins), std::runtime_error);  // spilled, no file
}

// Routed messages as encodeRouted makes them: the sender's error, then its parts.
std::string routed(const std::vector<RankArrivals>& parts) {
  wire::Writer w;
  w.str("");
  w.u64(parts.size());
  for (const RankArrivals& p : parts) {
    wire::Writer one;
    writeRankArrivals(one, p);
    w.raw(std::string_view(one.take()).substr(1));
  }
  return w.take();
}

// Every group decoded, in name order: (group, its arrivals' ranks and starts, origins).
std::string dump(OwnedGroups& owned) {
  std::string out;
  for (auto& [name, g] : owned.arrivals) {
    std::vector<Arrival> a;
    std::vector<Origin> o;
    g.decode(owned.spillFile(), a, o);
    out += name + ":";
    for (size_t i = 0; i < a.size(); ++i)
      out += " " + std::to_string(a[i].rank) + "@" + std::to_string(a[i].startNs) + "<" +
             std::to_string(o[i].first) + "." + std::to_string(o[i].second);
    out += " ranks";
    for (int64_t r : owned.ranks[name]) out += " " + std::to_string(r);
    out += "\n";
  }
  return out;
}

TEST_F(OwnedGroupsTest, TheCollectorGivesTheSameGroupsOnAnyBudget) {
  std::vector<std::string> messages;  // from senders 0, 1, 0
  for (int m = 0; m < 3; ++m) {
    std::vector<RankArrivals> parts;
    for (int64_t rank = m; rank < 8; rank += 3) {
      RankArrivals p{rank, 2, {}, {{"dp", {0, 1, 2, 3, 4, 5, 6, 7}}}};
      for (int64_t k = 0; k < 20; ++k)
        p.arrivals.push_back(arrival(rank,
                                     k % 3 == 0   ? "dp"
                                     : k % 3 == 1 ? "tp"
                                                  : "pp",
                                     static_cast<uint64_t>(k * 100 + rank), k));
      parts.push_back(std::move(p));
    }
    messages.push_back(routed(parts));
  }
  std::string reference;
  for (uint64_t budget : {uint64_t{1} << 30, uint64_t{0}, uint64_t{1}, uint64_t{300}}) {
    SCOPED_TRACE(budget);
    OwnedCollector c(2, SpillOptions{dir_.string(), budget});
    for (int m = 0; m < 3; ++m) c.add(m == 1 ? 1 : 0, messages[m]);
    std::vector<size_t> sent;
    OwnedGroups owned = c.finish(sent);
    ASSERT_TRUE(owned.error.empty()) << owned.error;
    EXPECT_EQ(sent, (std::vector<size_t>{100, 60}));  // ranks 0, 3, 6, 2, 5; 1, 4, 7
    EXPECT_EQ(owned.spill.has_value(), budget < 1000);
    const std::string d = dump(owned);
    if (reference.empty()) reference = d;
    EXPECT_EQ(d, reference);
  }
  EXPECT_NE(reference.find("dp: 0@0<0.0 "), std::string::npos) << reference;
  // A scratch folder that cannot be written: the arrivals stay in memory.
  OwnedCollector held(2, SpillOptions{(dir_ / "no" / "such").string(), 0});
  for (int m = 0; m < 3; ++m) held.add(m == 1 ? 1 : 0, messages[m]);
  std::vector<size_t> sent;
  OwnedGroups owned = held.finish(sent);
  ASSERT_TRUE(owned.error.empty()) << owned.error;
  EXPECT_FALSE(owned.spill.has_value());
  EXPECT_EQ(dump(owned), reference);
}

TEST_F(OwnedGroupsTest, AMessageCutShortIsTheGroupsError) {
  RankArrivals p{0, 1, {arrival(0, "tp", 5, 0)}, {}};
  std::string m = routed({p});
  m.pop_back();
  OwnedCollector c(1, SpillOptions{dir_.string(), 0});
  c.add(0, m);
  std::vector<size_t> sent;
  EXPECT_FALSE(c.finish(sent).error.empty());
}

}  // namespace
}  // namespace xstack
