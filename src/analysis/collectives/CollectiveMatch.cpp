// Matching one process group's instances on its owner and reducing them into
// bounded summaries (analysis/collectives/CollectiveMatch.h).
#include "xstack/analysis/collectives/CollectiveMatch.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <span>
#include <tuple>

#include "xstack/analysis/collectives/ClockOffsets.h"
#include "xstack/analysis/collectives/CriticalPath.h"
#include "xstack/core/CheckedMath.h"
#include "xstack/event/Collective.h"

namespace xstack {

namespace {

bool isSend(const std::string& c) { return c == "send"; }
bool isRecv(const std::string& c) { return c == "recv"; }

// An instance's message bytes: its largest member's. The members of every
// collective but an all-to-all agree on them (instanceProblem).
uint64_t instanceBytes(const std::vector<const Arrival*>& members) {
  uint64_t bytes = 0;
  for (const Arrival* m : members) bytes = std::max(bytes, m->bytes);
  return bytes;
}

// The bytes an instance is keyed by in its group's rows and the network
// cells: 0 for a collective whose sizes vary from call to call by design
// (alltoallv) and for an all-to-all whose members' sizes differ, so that such
// calls make one row; else its bytes.
uint64_t keyBytes(const std::string& collective, const std::vector<const Arrival*>& members) {
  if (sizesVaryByCall(collective)) return 0;
  const uint64_t bytes = instanceBytes(members);
  if (!sizesMayDiffer(collective)) return bytes;
  for (const Arrival* m : members)
    if (m->bytes != bytes) return 0;
  return bytes;
}

// A rank's bytes in its role's fingerprint: 0 for an all-to-all, whose
// share is each rank's own (ranks of one role would differ by it).
uint64_t roleBytes(std::string_view collective, uint64_t bytes) {
  return sizesMayDiffer(collective) ? 0 : bytes;
}

InstanceKey keyOf(const Arrival& a) {
  if (a.peer < 0) return {-1, -1, a.instance};
  const auto [src, dst] = p2pEnds(a);
  return {src, dst, a.instance};
}

// Whether two members' collective names agree: equal, or a send and a recv.
bool namesAgree(const std::string& a, const std::string& b) {
  if (isSend(a) || isRecv(a) || isSend(b) || isRecv(b))
    return (isSend(a) && isRecv(b)) || (isRecv(a) && isSend(b));
  return a == b;
}

std::string instanceName(const std::string& group, const Arrival& a) {
  std::string s =
      "group \"" + group + "\" " + a.collective + " instance " + std::to_string(a.instance);
  if (a.peer >= 0) {
    const auto [src, dst] = p2pEnds(a);
    s += " (ranks " + std::to_string(src) + " -> " + std::to_string(dst) + ")";
  }
  return s;
}

// The first rank of sorted, unique `a` not in sorted, unique `b`; -1 = none.
int64_t firstNotIn(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  size_t j = 0;
  for (int64_t r : a) {
    while (j < b.size() && b[j] < r) ++j;
    if (j == b.size() || b[j] != r) return r;
  }
  return -1;
}

// The lower median of `v` (sorted in place).
uint64_t lowerMedian(std::vector<uint64_t>& v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[(v.size() - 1) / 2];
}

// The lower median (the value at (n - 1) / 2 in sorted order) of `field`
// over `members` (not empty), in `scratch` (reused: no allocation per call).
uint64_t lowerMedianOf(const std::vector<const Arrival*>& members, uint64_t Arrival::*field,
                       std::vector<uint64_t>& scratch) {
  scratch.clear();
  for (const Arrival* m : members) scratch.push_back(m->*field);
  const auto mid = scratch.begin() + static_cast<std::ptrdiff_t>((scratch.size() - 1) / 2);
  std::nth_element(scratch.begin(), mid, scratch.end());
  return *mid;
}

// The cause of `late`'s lateness among `members` (see LateCause); `scratch`
// as lowerMedianOf's.
LateCause causeOf(const std::vector<const Arrival*>& members, const Arrival& late,
                  std::vector<uint64_t>& scratch) {
  auto median = [&](uint64_t Arrival::*field) { return lowerMedianOf(members, field, scratch); };
  const uint64_t lateness = late.startNs - median(&Arrival::startNs);
  const uint64_t half = (lateness + 1) / 2;
  if (lateness > 0) {
    if (late.freeNs >= median(&Arrival::freeNs) + half) return LateCause::Waiting;
    if (late.computeNs >= median(&Arrival::computeNs) + half) return LateCause::Compute;
    if (late.memcpyNs >= median(&Arrival::memcpyNs) + half) return LateCause::Memcpy;
  }
  if (late.idleNs > median(&Arrival::idleNs)) return LateCause::Host;
  return LateCause::Unknown;
}

// The numbers of one (collective, bytes) of a group, per matched instance.
struct RowBuild {
  std::vector<uint64_t> transfers;
  std::vector<uint64_t> sizes;  // each instance's bytes, on a row of bytes 0 only (keyBytes)
  std::vector<double> busbw;
  uint64_t waitNs = 0;
  std::map<int64_t, uint64_t> lateCount;  // last arriver -> instances
};

// (collective, bytes, members, node): the net cells' key.
using NetKey = std::tuple<std::string, uint64_t, uint64_t, int64_t>;

struct GroupBuild {
  std::map<std::pair<std::string, uint64_t>, RowBuild> rows;  // (collective, bytes)
  std::map<int64_t, RankBlame> ranks;
  std::map<NetKey, NetCell> net;
  int64_t ranksPerNode = 0;
  std::map<int64_t, GroupBlame> late;   // last arriver -> the waits charged to it here
  std::vector<uint64_t> medianScratch;  // causeOf's, reused from instance to instance
  std::vector<int64_t> nodeScratch;     // addNet's
};

// A cross-node instance's transfer into the net cells of its class: the
// class' total and each node it touches.
void addNet(const std::vector<const Arrival*>& members, const std::string& name, uint64_t transfer,
            GroupBuild& g) {
  if (g.ranksPerNode <= 0) return;
  std::vector<int64_t>& nodes = g.nodeScratch;
  nodes.clear();
  for (const Arrival* m : members) nodes.push_back(m->rank / g.ranksPerNode);
  std::sort(nodes.begin(), nodes.end());
  nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
  if (nodes.size() < 2) return;
  nodes.push_back(-1);
  for (int64_t node : nodes) {
    NetCell& c = g.net[{name, keyBytes(name, members), members.size(), node}];
    c.instances += 1;
    (void)addSaturating(c.transferNs, transfer);  // ns over instances, held at 2^63 - 1
    c.groups = 1;
  }
}

// What one matched instance's numbers come from. `members` sorted by rank.
struct InstanceFacts {
  const Arrival* late = nullptr;      // the last arriver (ties: the lower rank)
  uint64_t firstNs = 0;               // the first arrival
  uint64_t endNs = 0;                 // the last member's end
  uint64_t transferNs = 0;            // endNs - the last arrival (0 when it ends before)
  const std::string* name = nullptr;  // a matched send/recv pair is one "send" instance
  uint64_t bytes = 0;                 // instanceBytes: the largest member's
  bool hasBusbw = false;              // bytes and a transfer known
  double busbwGbps = 0;               // bytes / transfer ns x nccl-tests' factor (GB/s)
};

InstanceFacts factsOf(const std::vector<const Arrival*>& members) {
  InstanceFacts f;
  f.late = members[0];
  f.firstNs = members[0]->startNs;
  for (const Arrival* m : members) {
    if (m->startNs > f.late->startNs) f.late = m;
    f.firstNs = std::min(f.firstNs, m->startNs);
    f.endNs = std::max(f.endNs, m->endNs);
  }
  const uint64_t last = f.late->startNs;
  f.transferNs = f.endNs > last ? f.endNs - last : 0;
  f.name = isRecv(members[0]->collective) && members.size() > 1 ? &members[1]->collective
                                                                : &members[0]->collective;
  f.bytes = instanceBytes(members);
  f.hasBusbw = f.transferNs > 0 && f.bytes > 0;
  if (f.hasBusbw)
    f.busbwGbps = static_cast<double>(f.bytes) / static_cast<double>(f.transferNs) *
                  busBandwidthFactor(*f.name, members.size());
  return f;
}

// One matched instance's statistics into `g`. `members` sorted by rank.
void addInstance(const std::vector<const Arrival*>& members, GroupBuild& g) {
  const InstanceFacts f = factsOf(members);
  const Arrival* late = f.late;
  const uint64_t last = late->startNs;
  const uint64_t transfer = f.transferNs;
  const std::string& name = *f.name;
  const uint64_t rowBytes = keyBytes(name, members);
  RowBuild& row = g.rows[{name, rowBytes}];
  row.transfers.push_back(transfer);
  if (rowBytes == 0) row.sizes.push_back(f.bytes);
  if (f.hasBusbw) row.busbw.push_back(f.busbwGbps);
  ++row.lateCount[late->rank];
  // A point-to-point transfer is timed only when its sender arrives last: a
  // send may start moving data before its recv is posted (an eager send).
  if (!isRecv(late->collective)) addNet(members, name, transfer, g);
  const LateCause cause = causeOf(members, *late, g.medianScratch);
  GroupBlame& lateHere = g.late[late->rank];
  lateHere.rank = late->rank;
  ++lateHere.instances;
  for (const Arrival* m : members) {
    // Sums of waits (ns) over instances and members: held at 2^63 - 1 (core/CheckedMath.h).
    const uint64_t wait = last - m->startNs;
    (void)addSaturating(row.waitNs, wait);
    (void)addSaturating(lateHere.waitedForNs, wait);
    RankBlame& waiter = g.ranks[m->rank];
    waiter.rank = m->rank;
    (void)addSaturating(waiter.waitedNs, wait);
    RankBlame& blamed = g.ranks[late->rank];
    blamed.rank = late->rank;
    (void)addSaturating(blamed.causedNs[static_cast<int>(cause)], wait);
  }
}

// Nearest-rank percentile `pct` (1..100) of sorted `v`.
template <class T>
T percentile(const std::vector<T>& v, uint64_t pct) {
  const uint64_t n = v.size();
  uint64_t rank = (pct * n + 99) / 100;  // ceil(pct/100 x n), >= 1
  return v[std::max<uint64_t>(rank, 1) - 1];
}

CollectiveRow finishRow(const std::string& group, const std::string& collective, uint64_t bytes,
                        RowBuild& b) {
  CollectiveRow row;
  row.group = group;
  row.collective = collective;
  row.bytes = bytes;
  row.count = b.transfers.size();
  std::sort(b.transfers.begin(), b.transfers.end());
  row.transferP50Ns = percentile(b.transfers, 50);
  row.transferP95Ns = percentile(b.transfers, 95);
  row.bytesP50 = bytes;
  if (!b.sizes.empty()) {
    std::sort(b.sizes.begin(), b.sizes.end());
    row.bytesP50 = percentile(b.sizes, 50);
  }
  if (!b.busbw.empty()) {
    std::sort(b.busbw.begin(), b.busbw.end());
    row.hasBusbw = true;
    row.busbwP50Gbps = percentile(b.busbw, 50);
  }
  row.waitNs = b.waitNs;
  for (auto [rank, count] : b.lateCount)
    if (count > row.topLateCount) {
      row.topLateRank = rank;
      row.topLateCount = count;
    }
  return row;
}

// The ranks an instance must have, sorted: its pair, or the group's.
std::vector<int64_t> expectedMembers(const InstanceKey& key, const std::vector<int64_t>& group) {
  if (std::get<0>(key) < 0) return group;
  const auto [a, b] = std::minmax(std::get<0>(key), std::get<1>(key));
  return {a, b};
}

}  // namespace

std::vector<int64_t> groupMembers(const std::vector<Arrival>& arrivals,
                                  const std::vector<int64_t>& groupRanks) {
  std::vector<int64_t> ranks = groupRanks;
  if (ranks.empty())
    for (const Arrival& a : arrivals) ranks.push_back(a.rank);
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  return ranks;
}

std::string instanceProblem(const InstanceKey& key, const std::vector<const Arrival*>& members,
                            const std::vector<int64_t>& groupRanks) {
  for (size_t i = 1; i < members.size(); ++i) {
    const Arrival& a = *members[0];
    const Arrival& b = *members[i];
    if (members[i - 1]->rank == b.rank) return "rank " + std::to_string(b.rank) + " twice";
    if (!namesAgree(a.collective, b.collective))
      return "rank " + std::to_string(a.rank) + " " + a.collective + ", rank " +
             std::to_string(b.rank) + " " + b.collective;
    if (a.bytes != b.bytes && !sizesMayDiffer(a.collective))
      return "rank " + std::to_string(a.rank) + " " + std::to_string(a.bytes) + " bytes, rank " +
             std::to_string(b.rank) + " " + std::to_string(b.bytes) + " bytes";
  }
  std::vector<int64_t> ranks;  // sorted, unique: a rank twice was returned above
  ranks.reserve(members.size());
  for (const Arrival* m : members) ranks.push_back(m->rank);
  const std::vector<int64_t> pair =
      std::get<0>(key) < 0 ? std::vector<int64_t>{} : expectedMembers(key, groupRanks);
  const std::vector<int64_t>& expected = std::get<0>(key) < 0 ? groupRanks : pair;
  if (const int64_t missing = firstNotIn(expected, ranks); missing >= 0)
    return "rank " + std::to_string(missing) + " missing";
  if (const int64_t stranger = firstNotIn(ranks, expected); stranger >= 0)
    return "rank " + std::to_string(stranger) + " not in the group";
  return {};
}

void instanceOf(const std::vector<Arrival>& arrivals, const GroupMatch& match, size_t n,
                InstanceMembers& out) {
  out.key = match.instances[n].first;
  out.members.clear();
  for (size_t i : match.instances[n].second) out.members.push_back(&arrivals[i]);
  out.problem = match.problems[n];
}

namespace {

// The arrivals' indexes by (instance key, rank, start, end), input order
// breaking ties, with their keys.
std::vector<std::pair<InstanceKey, size_t>> byInstance(const std::vector<Arrival>& arrivals) {
  std::vector<std::pair<InstanceKey, size_t>> keyed;
  keyed.reserve(arrivals.size());
  for (size_t i = 0; i < arrivals.size(); ++i) keyed.emplace_back(keyOf(arrivals[i]), i);
  std::stable_sort(keyed.begin(), keyed.end(), [&](const auto& x, const auto& y) {
    const Arrival& a = arrivals[x.second];
    const Arrival& b = arrivals[y.second];
    return std::tie(x.first, a.rank, a.startNs, a.endNs) <
           std::tie(y.first, b.rank, b.startNs, b.endNs);
  });
  return keyed;
}

}  // namespace

GroupMatch matchGroup(const std::vector<Arrival>& arrivals,
                      const std::vector<int64_t>& groupRanks) {
  GroupMatch g;
  g.ranks = groupMembers(arrivals, groupRanks);
  const std::vector<std::pair<InstanceKey, size_t>> keyed = byInstance(arrivals);
  g.members.reserve(keyed.size());
  for (const auto& k : keyed) g.members.push_back(k.second);
  std::vector<const Arrival*> members;
  for (size_t i = 0, j = 0; i < keyed.size(); i = j) {
    for (j = i + 1; j < keyed.size() && keyed[j].first == keyed[i].first; ++j) {
    }
    const std::span<const size_t> indexes = std::span<const size_t>(g.members).subspan(i, j - i);
    g.instances.emplace_back(keyed[i].first, indexes);
    members.clear();
    for (size_t k : indexes) members.push_back(&arrivals[k]);
    g.problems.push_back(instanceProblem(keyed[i].first, members, g.ranks));
  }
  return g;
}

std::pair<int64_t, int64_t> p2pEnds(const Arrival& a) {
  if (isSend(a.collective)) return {a.rank, a.peer};
  if (isRecv(a.collective)) return {a.peer, a.rank};
  return {std::min(a.rank, a.peer), std::max(a.rank, a.peer)};
}

const char* lateCauseName(LateCause c) {
  switch (c) {
    case LateCause::Compute:
      return "compute";
    case LateCause::Host:
      return "host";
    case LateCause::Waiting:
      return "waiting";
    case LateCause::Memcpy:
      return "memcpy";
    case LateCause::Unknown:
      break;
  }
  return "unknown";
}

bool sizesVaryByCall(std::string_view collective) { return collective == "alltoallv"; }

bool sizesMayDiffer(std::string_view collective) {
  return collective == "alltoall" || collective == "alltoallv";
}

double busBandwidthFactor(std::string_view collective, size_t members) {
  const double n = static_cast<double>(std::max<size_t>(members, 1));
  if (collective.size() > kCoalescedSuffix.size() && collective.ends_with(kCoalescedSuffix))
    collective.remove_suffix(kCoalescedSuffix.size());  // several tensors in one call
  if (collective == "allreduce") return 2 * (n - 1) / n;
  if (collective == "allgather" || collective == "reduce_scatter" || collective == "alltoall" ||
      collective == "alltoallv")
    return (n - 1) / n;
  return 1;
}

void summarizeGroup(const std::string& group, std::vector<Arrival> arrivals,
                    const std::vector<int64_t>& groupRanks, CollectivesSummary& out,
                    int64_t ranksPerNode) {
  if (arrivals.empty()) return;
  summarizeMatched(group, arrivals, matchGroup(arrivals, groupRanks), out, ranksPerNode);
}

void summarizeMatched(const std::string& group, const std::vector<Arrival>& arrivals,
                      const GroupMatch& match, CollectivesSummary& out, int64_t ranksPerNode) {
  if (arrivals.empty()) return;
  GroupSummaryBuilder builder(group, ranksPerNode);
  InstanceMembers instance;
  for (size_t n = 0; n < match.instances.size(); ++n) {
    instanceOf(arrivals, match, n, instance);
    builder.add(instance);
  }
  builder.finish(out);
}

// GroupBuild, and what summarizeMatched counts of the group's instances.
struct GroupSummaryBuilder::Build {
  GroupBuild g;
  uint64_t matched = 0, problems = 0;
  // The group's first kProblemExamples, with their instances' keys.
  std::vector<std::pair<InstanceKey, Problem>> examples;
};

GroupSummaryBuilder::GroupSummaryBuilder(std::string group, int64_t ranksPerNode)
    : group_(std::move(group)), build_(std::make_unique<Build>()) {
  build_->g.ranksPerNode = ranksPerNode;
}

GroupSummaryBuilder::~GroupSummaryBuilder() = default;

void GroupSummaryBuilder::add(const InstanceMembers& instance) {
  Build& b = *build_;
  if (instance.problem.empty()) {
    addInstance(instance.members, b.g);
    ++b.matched;
  } else {
    ++b.problems;
    if (b.examples.size() < kProblemExamples)
      b.examples.emplace_back(
          instance.key,
          Problem{group_, 0, instanceName(group_, *instance.members[0]) + ": " + instance.problem});
  }
}

namespace {

void absorbRow(RowBuild& into, RowBuild& from) {
  into.transfers.insert(into.transfers.end(), from.transfers.begin(), from.transfers.end());
  into.sizes.insert(into.sizes.end(), from.sizes.begin(), from.sizes.end());
  into.busbw.insert(into.busbw.end(), from.busbw.begin(), from.busbw.end());
  (void)addSaturating(into.waitNs, from.waitNs);
  for (auto [rank, count] : from.lateCount) into.lateCount[rank] += count;
}

void absorbBlame(RankBlame& into, const RankBlame& from) {
  into.rank = from.rank;
  (void)addSaturating(into.waitedNs, from.waitedNs);
  for (int c = 0; c < kLateCauses; ++c) (void)addSaturating(into.causedNs[c], from.causedNs[c]);
}

// Adds `from`'s sums and samples to `into` (the same group's other instances).
void absorbGroup(GroupBuild& into, GroupBuild& from) {
  for (auto& [key, row] : from.rows) absorbRow(into.rows[key], row);
  for (const auto& [rank, blame] : from.ranks) absorbBlame(into.ranks[rank], blame);
  for (const auto& [key, cell] : from.net) {
    NetCell& c = into.net[key];
    c.instances += cell.instances;
    (void)addSaturating(c.transferNs, cell.transferNs);
    c.groups = 1;  // one group, whatever the number of its shards
  }
  for (const auto& [rank, blame] : from.late) {
    GroupBlame& g = into.late[rank];
    g.rank = rank;
    g.instances += blame.instances;
    (void)addSaturating(g.waitedForNs, blame.waitedForNs);
  }
}

}  // namespace

// The examples stay the first kProblemExamples by instance key.
void GroupSummaryBuilder::absorb(GroupSummaryBuilder&& other) {
  Build& b = *build_;
  Build& o = *other.build_;
  absorbGroup(b.g, o.g);
  b.matched += o.matched;
  b.problems += o.problems;
  std::move(o.examples.begin(), o.examples.end(), std::back_inserter(b.examples));
  std::sort(b.examples.begin(), b.examples.end(),
            [](const auto& x, const auto& y) { return x.first < y.first; });
  if (b.examples.size() > kProblemExamples) b.examples.resize(kProblemExamples);
}

void GroupSummaryBuilder::finish(CollectivesSummary& out) {
  Build& b = *build_;
  out.matched += b.matched;
  out.problems += b.problems;
  // An example's order is its place among the group's (by instance key):
  // the same however the group's instances were split between builders.
  for (size_t i = 0; i < b.examples.size(); ++i) {
    b.examples[i].second.order = i;
    out.examples.push_back(std::move(b.examples[i].second));
  }
  ++out.groups;
  for (auto& [k, row] : b.g.rows) out.rows.push_back(finishRow(group_, k.first, k.second, row));
  for (auto& [rank, blame] : b.g.ranks) out.ranks.push_back(blame);
  for (auto& [key, cell] : b.g.net) {
    cell.collective = std::get<0>(key);
    cell.bytes = std::get<1>(key);
    cell.members = std::get<2>(key);
    cell.node = std::get<3>(key);
    out.net.push_back(std::move(cell));
  }
  for (auto& [rank, blame] : b.g.late) {
    blame.group = group_;
    out.groupBlame.push_back(std::move(blame));
  }
  normalizeSummary(out);
}

namespace {

// Sorts the cells by key and sums the cells of one key (of several groups).
void joinNetCells(std::vector<NetCell>& net) {
  auto key = [](const NetCell& c) { return std::tie(c.collective, c.bytes, c.members, c.node); };
  std::sort(net.begin(), net.end(),
            [&](const NetCell& a, const NetCell& b) { return key(a) < key(b); });
  std::vector<NetCell> joined;
  for (NetCell& c : net) {
    if (!joined.empty() && key(joined.back()) == key(c)) {
      joined.back().instances += c.instances;
      (void)addSaturating(joined.back().transferNs, c.transferNs);
      joined.back().groups += c.groups;
      continue;
    }
    joined.push_back(std::move(c));
  }
  net = std::move(joined);
}

}  // namespace

std::vector<ArrivalOutcome> groupOutcomes(const std::vector<Arrival>& arrivals,
                                          const std::vector<int64_t>& groupRanks) {
  return matchedOutcomes(arrivals, matchGroup(arrivals, groupRanks));
}

ArrivalOutcome instanceOutcome(const InstanceMembers& instance) {
  if (!instance.problem.empty()) return {};
  const Arrival* late = instance.members[0];
  for (const Arrival* m : instance.members)
    if (m->startNs > late->startNs) late = m;  // ties: the lower rank
  return {true, late->rank, late->startNs};
}

std::vector<ArrivalOutcome> matchedOutcomes(const std::vector<Arrival>& arrivals,
                                            const GroupMatch& match) {
  std::vector<ArrivalOutcome> out(arrivals.size());
  InstanceMembers instance;
  for (size_t n = 0; n < match.instances.size(); ++n) {
    if (!match.problems[n].empty()) continue;
    instanceOf(arrivals, match, n, instance);
    const ArrivalOutcome o = instanceOutcome(instance);
    for (size_t i : match.instances[n].second) out[i] = o;
  }
  return out;
}

std::vector<InstanceSlice> instanceSlices(const std::vector<Arrival>& arrivals,
                                          const std::vector<int64_t>& groupRanks) {
  if (arrivals.empty()) return {};
  return matchedSlices(arrivals, matchGroup(arrivals, groupRanks));
}

InstanceSlice instanceSlice(const InstanceMembers& instance) {
  const std::vector<const Arrival*>& members = instance.members;
  const InstanceFacts f = factsOf(members);
  InstanceSlice s;
  s.firstArrivalNs = f.firstNs;
  s.endNs = std::max(f.endNs, f.firstNs);
  s.collective = *f.name;
  s.bytes = instanceBytes(members);
  s.members = members.size();
  s.lastRank = f.late->rank;
  s.transferNs = f.transferNs;
  for (const Arrival* m : members) (void)addSaturating(s.waitNs, f.late->startNs - m->startNs);
  s.hasBusbw = f.hasBusbw;
  s.busbwGbps = f.busbwGbps;
  s.instance = std::get<2>(instance.key);
  s.src = std::get<0>(instance.key);
  s.dst = std::get<1>(instance.key);
  return s;
}

void sortSlices(std::vector<InstanceSlice>& slices) {
  std::sort(slices.begin(), slices.end(), [](const InstanceSlice& a, const InstanceSlice& b) {
    return std::tie(a.firstArrivalNs, a.endNs, a.src, a.dst, a.instance) <
           std::tie(b.firstArrivalNs, b.endNs, b.src, b.dst, b.instance);
  });
}

std::vector<InstanceSlice> matchedSlices(const std::vector<Arrival>& arrivals,
                                         const GroupMatch& match) {
  std::vector<InstanceSlice> out;
  InstanceMembers instance;
  for (size_t n = 0; n < match.instances.size(); ++n) {
    if (!match.problems[n].empty()) continue;
    instanceOf(arrivals, match, n, instance);
    out.push_back(instanceSlice(instance));
  }
  sortSlices(out);
  return out;
}

void addInstanceClockSamples(const InstanceMembers& instance, int64_t ranksPerNode,
                             ClockPairs& pairs) {
  // Point to point: a send may end before its recv.
  if (ranksPerNode <= 0 || std::get<0>(instance.key) >= 0 || !instance.problem.empty()) return;
  std::map<int64_t, std::vector<uint64_t>> ends;  // node -> its members' ends
  for (const Arrival* m : instance.members) ends[m->rank / ranksPerNode].push_back(m->endNs);
  if (ends.size() < 2) return;
  const auto first = ends.begin();
  const auto ref = static_cast<__int128>(lowerMedian(first->second));
  for (auto it = std::next(first); it != ends.end(); ++it) {
    const __int128 d = static_cast<__int128>(lowerMedian(it->second)) - ref;
    ClockPair& p = pairs[{first->first, it->first}];
    p.a = first->first;
    p.b = it->first;
    ++p.count;
    p.sumNs += d;
    p.sumSqNs += d * d;
  }
}

void addClockSamples(const std::vector<Arrival>& arrivals, const std::vector<int64_t>& groupRanks,
                     int64_t ranksPerNode, ClockPairs& pairs) {
  if (ranksPerNode <= 0 || arrivals.empty()) return;
  const GroupMatch found = matchGroup(arrivals, groupRanks);
  InstanceMembers instance;
  for (size_t n = 0; n < found.instances.size(); ++n) {
    instanceOf(arrivals, found, n, instance);
    addInstanceClockSamples(instance, ranksPerNode, pairs);
  }
}

void normalizeSummary(CollectivesSummary& s) {
  std::sort(s.rows.begin(), s.rows.end(), [](const CollectiveRow& a, const CollectiveRow& b) {
    return std::tie(a.group, a.collective, a.bytes) < std::tie(b.group, b.collective, b.bytes);
  });
  std::stable_sort(s.ranks.begin(), s.ranks.end(),
                   [](const RankBlame& a, const RankBlame& b) { return a.rank < b.rank; });
  std::vector<RankBlame> joined;
  for (const RankBlame& r : s.ranks) {
    if (joined.empty() || joined.back().rank != r.rank) {
      joined.push_back(r);
      continue;
    }
    (void)addSaturating(joined.back().waitedNs, r.waitedNs);
    for (int c = 0; c < kLateCauses; ++c)
      (void)addSaturating(joined.back().causedNs[c], r.causedNs[c]);
  }
  s.ranks = std::move(joined);
  joinNetCells(s.net);
  // An owner summarizes its groups in name order: already sorted, linear.
  auto byPair = [](const GroupBlame& a, const GroupBlame& b) {
    return std::tie(a.group, a.rank) < std::tie(b.group, b.rank);
  };
  if (!std::is_sorted(s.groupBlame.begin(), s.groupBlame.end(), byPair))
    std::stable_sort(s.groupBlame.begin(), s.groupBlame.end(), byPair);
  std::vector<GroupBlame> pairs;
  for (GroupBlame& g : s.groupBlame) {
    if (!pairs.empty() && pairs.back().group == g.group && pairs.back().rank == g.rank) {
      (void)addSaturating(pairs.back().waitedForNs, g.waitedForNs);
      pairs.back().instances += g.instances;
    } else {
      pairs.push_back(std::move(g));
    }
  }
  s.groupBlame = std::move(pairs);
  std::sort(s.examples.begin(), s.examples.end(), [](const Problem& a, const Problem& b) {
    return std::tie(a.group, a.order) < std::tie(b.group, b.order);
  });
  if (s.examples.size() > kProblemExamples) s.examples.resize(kProblemExamples);
}

void mergeSummary(CollectivesSummary& into, CollectivesSummary&& from) {
  into.groups += from.groups;
  into.matched += from.matched;
  into.problems += from.problems;
  for (CollectiveRow& r : from.rows) into.rows.push_back(std::move(r));
  for (RankBlame& r : from.ranks) into.ranks.push_back(r);
  for (Problem& p : from.examples) into.examples.push_back(std::move(p));
  for (NetCell& c : from.net) into.net.push_back(std::move(c));
  for (GroupBlame& g : from.groupBlame) into.groupBlame.push_back(std::move(g));
  normalizeSummary(into);
}

namespace {

void fnvAdd(uint64_t& h, std::string_view bytes) {
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ull;
  }
}

}  // namespace

uint32_t internName(std::vector<std::string>& names, std::string_view name) {
  for (size_t i = names.size(); i-- > 0;)
    if (names[i] == name) return static_cast<uint32_t>(i);
  names.emplace_back(name);
  return static_cast<uint32_t>(names.size() - 1);
}

void RoleCounter::add(std::string_view group, std::string_view collective, uint64_t bytes,
                      int64_t peer) {
  const int direction = peer < 0 ? 0 : peer > rank_ ? 1 : -1;
  ++counts_[{internName(texts_, group), internName(texts_, collective),
             roleBytes(collective, bytes), direction}];
}

uint64_t RoleCounter::role(const std::vector<GroupRanks>& groups) const {
  if (counts_.empty()) return 0;
  std::map<std::string, uint64_t> sizes;  // group -> members
  for (const GroupRanks& g : groups) sizes[g.group] = g.ranks.size();
  std::map<std::tuple<std::string, uint64_t, uint64_t, int>, uint64_t> counts;
  for (const auto& [key, n] : counts_) {
    const auto& [group, collective, bytes, direction] = key;
    const auto it = sizes.find(texts_[group]);
    counts[{texts_[collective], bytes, it == sizes.end() ? 0 : it->second, direction}] += n;
  }
  uint64_t h = 14695981039346656037ull;
  for (const auto& [key, n] : counts) {
    const auto& [collective, bytes, size, direction] = key;
    fnvAdd(h, collective + ";" + std::to_string(bytes) + ";" + std::to_string(size) + ";" +
                  std::to_string(direction) + ";" + std::to_string(n) + "\n");
  }
  return h == 0 ? 1 : h;
}

uint64_t roleOf(const RankArrivals& a) {
  RoleCounter c(a.rank);
  for (const Arrival& x : a.arrivals) c.add(x.group, x.collective, x.bytes, x.peer);
  return c.role(a.groups);
}

int collectiveGroupOwner(std::string_view group, int size) {
  uint64_t h = 14695981039346656037ull;
  fnvAdd(h, group);
  // Rank 0 owns no group when there are others: it keeps the job's
  // summaries and writes the files, so its memory does not grow with the
  // job's collectives.
  if (size <= 1) return 0;
  return 1 + static_cast<int>(h % static_cast<uint64_t>(size - 1));
}

}  // namespace xstack
