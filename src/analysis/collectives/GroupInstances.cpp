// An owner's walk over one group's instances (GroupInstances.h).
#include "xstack/analysis/collectives/GroupInstances.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <tuple>

#include "xstack/io/ExternalSorter.h"

namespace xstack {
namespace {

// One arrival as the sorter holds it (trivially copyable): its instance key,
// its fields on the reference clock, its collective as a place in the walk's
// names, where its outcome goes back to.
struct MatchRecord {
  int64_t keyLow = -1, keyHigh = -1, keyInstance = 0;  // InstanceKey
  int64_t rank = 0;
  uint64_t startNs = 0, endNs = 0;
  uint64_t bytes = 0;
  int64_t peer = -1;
  uint64_t launchNs = 0, freeNs = 0;
  uint64_t computeNs = 0, idleNs = 0, memcpyNs = 0;
  int64_t step = -1;
  uint64_t place = 0;       // Origin::second
  uint64_t ownStartNs = 0;  // startNs on its own rank's clock (OutcomeBase)
  uint32_t sender = 0;      // Origin::first (an MPI rank)
  uint32_t collective = 0;  // into the walk's names
};

// matchGroup's order; the sorter is stable, so input order breaks ties.
struct InstanceOrder {
  bool operator()(const MatchRecord& a, const MatchRecord& b) const {
    return std::tie(a.keyLow, a.keyHigh, a.keyInstance, a.rank, a.startNs, a.endNs) <
           std::tie(b.keyLow, b.keyHigh, b.keyInstance, b.rank, b.startNs, b.endNs);
  }
};

InstanceKey keyOf(const MatchRecord& r) { return {r.keyLow, r.keyHigh, r.keyInstance}; }

// `t` on the reference clock of `rank`'s node (toReferenceClocks').
uint64_t moved(uint64_t t, int64_t rank, const ClockMove& clocks) {
  if (!clocks.moves()) return t;
  return toReferenceClock(t, clockOffsetOf(*clocks.clocks, rank / clocks.ranksPerNode));
}

// An arrival's instance key: its pair's ends (point to point) and its instance.
InstanceKey instanceKeyOf(const Arrival& a) {
  InstanceKey key{-1, -1, a.instance};
  if (a.peer >= 0) std::tie(std::get<0>(key), std::get<1>(key)) = p2pEnds(a);
  return key;
}

MatchRecord recordOf(const Arrival& a, const Origin& origin, uint32_t collective,
                     const ClockMove& clocks) {
  MatchRecord r;
  std::tie(r.keyLow, r.keyHigh, r.keyInstance) = instanceKeyOf(a);
  r.rank = a.rank;
  r.startNs = moved(a.startNs, a.rank, clocks);
  r.endNs = moved(a.endNs, a.rank, clocks);
  r.bytes = a.bytes;
  r.peer = a.peer;
  r.launchNs = moved(a.launchNs, a.rank, clocks);
  r.freeNs = moved(a.freeNs, a.rank, clocks);
  r.computeNs = a.computeNs;
  r.idleNs = a.idleNs;
  r.memcpyNs = a.memcpyNs;
  r.step = a.step;
  r.place = origin.second;
  r.ownStartNs = a.startNs;
  r.sender = static_cast<uint32_t>(origin.first);
  r.collective = collective;
  return r;
}

void arrivalOf(const MatchRecord& r, const std::vector<std::string>& names, Arrival& a) {
  a.rank = r.rank;
  a.collective = names[r.collective];
  a.bytes = r.bytes;
  a.instance = r.keyInstance;
  a.peer = r.peer;
  a.startNs = r.startNs;
  a.endNs = r.endNs;
  a.launchNs = r.launchNs;
  a.computeNs = r.computeNs;
  a.idleNs = r.idleNs;
  a.memcpyNs = r.memcpyNs;
  a.freeNs = r.freeNs;
  a.step = r.step;
}

using Sorter = ExternalSorter<MatchRecord, InstanceOrder>;

// The sorted records cut into instances, each to `visit`.
void visitInstances(Sorter::Reader& reader, const std::vector<std::string>& names,
                    const std::vector<int64_t>& ranks, const InstanceVisit& visit) {
  std::vector<Arrival> arrivals;  // the instance's; kept from instance to instance
  std::vector<MemberOrigin> origins;
  InstanceMembers instance;
  MatchRecord rec;
  bool more = reader.next(rec);
  while (more) {
    instance.key = keyOf(rec);
    size_t n = 0;
    origins.clear();
    do {
      if (n == arrivals.size()) arrivals.emplace_back();
      arrivalOf(rec, names, arrivals[n++]);
      origins.push_back({{rec.sender, rec.place}, {rec.rank, rec.ownStartNs}});
      more = reader.next(rec);
    } while (more && keyOf(rec) == instance.key);
    instance.members.clear();
    for (size_t i = 0; i < n; ++i) instance.members.push_back(&arrivals[i]);
    instance.problem = instanceProblem(instance.key, instance.members, ranks);
    visit(instance, origins);
  }
  if (const Status& st = reader.status(); !st) throw std::runtime_error(st.error().message);
}

}  // namespace

std::vector<int64_t> groupRanksOf(const std::vector<int64_t>& given, const GroupBytes& bytes) {
  if (given.empty()) return bytes.ranksSeen();
  std::vector<int64_t> ranks = given;
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  return ranks;
}

// Consecutive instances of a pair or of the group go to consecutive shards.
bool inShard(const InstanceKey& key, const GroupShard& shard) {
  if (shard.count <= 1) return true;
  const auto [low, high, instance] = key;
  const uint64_t mixed = static_cast<uint64_t>(instance) + static_cast<uint64_t>(low) * 31 +
                         static_cast<uint64_t>(high) * 1009;
  return mixed % shard.count == shard.index;
}

void walkGroupInstances(const GroupBytes& bytes, const SpillFile* file,
                        const std::vector<int64_t>& ranks, const ClockMove& clocks,
                        const SpillOptions& sort, const InstanceVisit& visit, GroupShard shard) {
  Sorter sorter(sort);
  std::vector<std::string> names;  // the group's collectives, by first appearance
  bytes.forEach(file, [&](const Arrival& a, const Origin& origin) {
    if (shard.count > 1 && !inShard(instanceKeyOf(a), shard)) return;
    sorter.push(recordOf(a, origin, internName(names, a.collective), clocks));
  });
  if (Status st = sorter.finish(); !st)
    throw std::runtime_error("a group's arrivals, sorted: " + st.error().message);
  Sorter::Reader reader = sorter.read();
  visitInstances(reader, names, ranks, visit);
}

}  // namespace xstack
