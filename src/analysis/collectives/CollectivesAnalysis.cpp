#include "xstack/analysis/collectives/CollectivesAnalysis.h"

#include <algorithm>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <unordered_map>
#include <utility>
#include <vector>

#include "CriticalPathJob.h"
#include "xstack/analysis/JobBoard.h"
#include "xstack/analysis/StepTable.h"
#include "xstack/analysis/collectives/ArrivalRecorder.h"
#include "xstack/analysis/collectives/ClockOffsets.h"
#include "xstack/analysis/collectives/CollectiveMatch.h"
#include "xstack/analysis/collectives/CollectiveTracks.h"
#include "xstack/analysis/collectives/GroupInstances.h"
#include "xstack/analysis/collectives/OwnedGroups.h"
#include "xstack/core/CheckedMath.h"
#include "xstack/core/ParallelWork.h"
#include "xstack/core/TextHash.h"
#include "xstack/transport/TypedMessages.h"

namespace xstack {

namespace {

constexpr const char* kCollectivesCsv = "collectives.csv";
constexpr const char* kWaitsCsv = "waits.csv";
constexpr const char* kCriticalPathCsv = "critical_path.csv";

// What an owner sends rank 0: its groups' summary, or why it has none.
struct Owned {
  std::string error;
  CollectivesSummary summary;
};

void writeOwned(wire::Writer& w, const Owned& m) {
  w.str(m.error);
  writeSummary(w, m.summary);
}

Owned readOwned(wire::Reader& r) {
  Owned m;
  m.error = r.str();
  m.summary = readSummary(r);
  return m;
}

// The (training rank, steps, role) of the profiles an MPI rank read.
using RankSteps = std::vector<RankInfo>;

void writeRankSteps(wire::Writer& w, const RankSteps& m) {
  w.list(m, [](wire::Writer& x, const RankInfo& p) {
    x.i64(p.rank);
    x.u64(p.steps);
    x.u64(p.role);
  });
}

RankSteps readRankSteps(wire::Reader& r) {
  RankSteps m;
  r.list(m, [](wire::Reader& x) {
    RankInfo p;
    p.rank = x.i64();
    p.steps = x.u64();
    p.role = x.u64();
    return p;
  });
  return m;
}

// One part's share for one owner, its arrivals still encoded: what
// writeRankArrivals writes, the arrivals list's elements copied as they are
// from the part's message.
struct RoutedBytes {
  int64_t rank = 0;
  uint64_t steps = 0;
  uint64_t count = 0;    // arrivals in `arrivals`
  std::string arrivals;  // their encodings, back to back
  std::vector<GroupRanks> groups;
};

// What an MPI rank sends an owner: its profiles' arrivals of the owner's
// groups (and those groups' ranks) as a list of writeRankArrivals' forms, or
// why it has none (`error` not empty). OwnedCollector::add reads it.
std::string encodeRouted(const std::string& error, const std::vector<RoutedBytes>& parts) {
  wire::Writer w;
  w.str(error);
  w.list(parts, [](wire::Writer& x, const RoutedBytes& p) {
    x.i64(p.rank);
    x.u64(p.steps);
    x.u64(p.count);
    x.raw(p.arrivals);
    x.list(p.groups, writeGroupRanks);
  });
  return w.take();
}

// What routing needs besides the parts: the owners (MPI ranks), the threads
// it may index on, and the parts' release (AnalysisJobOptions').
struct RouteContext {
  int size = 1;
  unsigned threads = 1;
  PartRelease release;
};

// One profile's arrivals (indexed in `bytes`, its message) split by their
// group's owner (indexed by MPI rank, `size` of them); a run of arrivals of
// one owner is copied at once, and noted in `runs` (RoutedPart::ownerRuns).
std::vector<RoutedBytes> splitToOwners(const PartIndex& part, std::string_view bytes, int size,
                                       wire::Writer& runs) {
  std::vector<int> owner;
  for (const std::string& g : part.groupNames) owner.push_back(collectiveGroupOwner(g, size));
  std::vector<RoutedBytes> split(static_cast<size_t>(size));
  for (RoutedBytes& s : split) {
    s.rank = part.rank;
    s.steps = part.steps;
  }
  const std::vector<ArrivalBytes>& a = part.arrivals;
  for (size_t i = 0, j = 0; i < a.size(); i = j) {
    const int o = owner[a[i].group];
    for (j = i + 1; j < a.size() && owner[a[j].group] == o; ++j) {
    }
    split[o].arrivals.append(bytes.substr(a[i].begin, a[j - 1].end - a[i].begin));
    split[o].count += j - i;
    runs.u64(static_cast<uint64_t>(o));
    runs.u64(j - i);
  }
  for (const GroupRanks& g : part.groups)
    split[collectiveGroupOwner(g.group, size)].groups.push_back(g);
  return split;
}

// One part as routing makes it: indexed and split by owner, with what the
// outcomes' pairing needs of it (`noted`), or why it did not index.
struct SplitPart {
  RankInfo info;
  RoutedPart noted;                // noted.error: the part did not index
  std::vector<RoutedBytes> split;  // by owner
};

SplitPart splitPart(const RankPart& p, int size) {
  SplitPart out;
  auto part = decodeMessage<PartIndex>(
      p.bytes, "the collective arrivals of rank " + std::to_string(p.rank), indexCollectivesPart);
  if (!part) {
    out.noted.error = part.error().message;
    return out;
  }
  out.info = {part->rank, part->steps, {}, part->role};
  wire::Writer runs;
  out.split = splitToOwners(*part, p.bytes, size, runs);
  out.noted.rank = part->rank;
  out.noted.stepEnds = std::move(part->stepEnds);
  out.noted.ownerRuns = runs.take();
  return out;
}

// The messages for each owner (indexed by MPI rank) of one routing round:
// the parts [first, end) of this MPI rank's, indexed and split on `threads`
// threads, each one's (rank, steps, role) into `info`, its arrivals split by
// their group's owner, and what the outcomes' pairing needs of it into
// `parts`, in part order. Every owner gets one message, maybe empty; a part
// that does not decode sets `error` (sent to every owner).
std::vector<std::string> routeToOwners(const std::vector<RankPart>& local, size_t first, size_t end,
                                       const RouteContext& context, std::string& error,
                                       std::vector<RankInfo>& info,
                                       std::vector<RoutedPart>& parts) {
  std::vector<SplitPart> made(end - first);
  forEachItem(made.size(), context.threads, [&](size_t i, unsigned /*worker*/) {
    made[i] = splitPart(local[first + i], context.size);
  });
  std::vector<std::vector<RoutedBytes>> routed(static_cast<size_t>(context.size));
  for (size_t i = 0; i < made.size(); ++i) {
    SplitPart& m = made[i];
    const bool indexed = m.noted.error.empty();
    if (!indexed && error.empty()) error = m.noted.error;
    if (indexed) info.push_back(m.info);
    for (size_t o = 0; o < m.split.size(); ++o)
      if (m.split[o].count > 0 || !m.split[o].groups.empty())
        routed[o].push_back(std::move(m.split[o]));
    parts.push_back(std::move(m.noted));
    if (indexed && context.release) context.release(local[first + i].bytes);
  }
  std::vector<std::string> out;
  for (std::vector<RoutedBytes>& m : routed) {
    out.push_back(encodeRouted(error, m));
    std::vector<RoutedBytes>().swap(m);
  }
  return out;
}

// The parts of one routing round: twice a store's hold (at least 64 KiB), so
// that a sender's routed copies are at most about this much at once.
uint64_t routeRoundBytes(uint64_t memoryBytes) {
  return std::max<uint64_t>(2 * storeHeldBytes(memoryBytes), uint64_t{64} << 10);
}

// The end of the routing round that starts at part `first`: at least one
// part, and more while their bytes stay within `limit`.
size_t roundEnd(const std::vector<RankPart>& local, size_t first, uint64_t limit) {
  size_t end = first;
  uint64_t bytes = 0;
  while (end < local.size() && (end == first || bytes + local[end].bytes.size() <= limit))
    bytes += local[end++].bytes.size();
  return end;
}

// collective: this MPI rank's parts to the owners of their groups, in rounds
// of about `roundBytes` (every rank takes part in each round until all are
// done), each message received handed to `owned` at once. `error`: a part
// that did not index (also sent to every owner); `info`: each part's (rank,
// steps, role); `parts`: what the outcomes' pairing needs of each, in order.
void routeInRounds(Comm& comm, const std::vector<RankPart>& local, uint64_t roundBytes,
                   const RouteContext& context, std::string& error, std::vector<RankInfo>& info,
                   std::vector<RoutedPart>& parts, OwnedCollector& owned) {
  size_t next = 0;
  do {
    const size_t end = roundEnd(local, next, roundBytes);
    std::vector<std::string> in =
        exchangeAll(comm, routeToOwners(local, next, end, context, error, info, parts),
                    MessageTag::CollectiveArrivals);
    next = end;
    for (size_t r = 0; r < in.size(); ++r) {
      owned.add(r, in[r]);
      std::string().swap(in[r]);
    }
  } while (!comm.allTrue(next == local.size()));
}

// The owner's groups, in name order, for a loop over them on threads.
using GroupList = std::vector<std::pair<const std::string*, GroupBytes*>>;
GroupList groupList(OwnedGroups& owned) {
  GroupList out;
  for (auto& [group, arrivals] : owned.arrivals) out.emplace_back(&group, &arrivals);
  return out;
}

// One walk of an owner's: a group whole, or one shard of a large one.
struct WalkItem {
  size_t group = 0;  // into the GroupList
  GroupShard shard;
};

// The fewest arrivals a group walked in shards has: below it the walks'
// fixed costs would outweigh a thread's share.
constexpr uint64_t kMinShardArrivals = 2048;

// The owner's walks on `threads` threads: a group with more than its share
// of the arrivals (1 / threads) is walked in as many shards as its share
// (at most `threads`), so that one large group (a data-parallel job's group
// of every rank) keeps every thread busy; the others whole, in name order.
std::vector<WalkItem> walkItems(const GroupList& groups, unsigned threads) {
  uint64_t total = 0;
  for (const auto& g : groups) total += g.second->count();
  std::vector<WalkItem> items;
  for (size_t i = 0; i < groups.size(); ++i) {
    const uint64_t n = groups[i].second->count();
    uint64_t shards = 1;
    if (threads > 1 && n >= kMinShardArrivals)
      shards = std::min<uint64_t>(threads, (n * threads + total - 1) / total);
    for (uint64_t s = 0; s < shards; ++s)
      items.push_back({i, {static_cast<unsigned>(s), static_cast<unsigned>(shards)}});
  }
  return items;
}

// Are a group's ranks (sorted) all on one node? Then none of its instances
// gives a clock sample (addClockSamples): a member outside them makes the
// instance a problem, which gives none either. No ranks (they come from the
// arrivals) is not one node.
bool onOneNode(const std::vector<int64_t>& ranks, int64_t ranksPerNode) {
  return !ranks.empty() && ranks.front() / ranksPerNode == ranks.back() / ranksPerNode;
}

// The owner's clock samples (none after an error), its groups on `threads`
// threads (the sums are exact integers: the same for any split), each group
// walked within `sort` (GroupInstances.h).
std::vector<ClockPair> ownedClockSamples(OwnedGroups& owned, int64_t ranksPerNode,
                                         const SpillOptions& sort, unsigned threads) {
  ClockPairs pairs;
  if (owned.error.empty()) {
    const GroupList groups = groupList(owned);
    const std::vector<WalkItem> items = walkItems(groups, threads);
    std::vector<ClockPairs> perWorker(workersFor(threads, items.size()));
    // Only collectives of a whole group across nodes give samples: groups of
    // sends and receives alone, or of one node, are not walked for them.
    forEachItem(items.size(), threads, [&](size_t k, unsigned worker) {
      const size_t i = items[k].group;
      const std::vector<int64_t>& ranks = owned.ranks.at(*groups[i].first);
      if (ranksPerNode <= 0 || !groups[i].second->wholeGroup() || onOneNode(ranks, ranksPerNode))
        return;
      walkGroupInstances(
          *groups[i].second, owned.spillFile(), groupRanksOf(ranks, *groups[i].second), ClockMove{},
          sort,
          [&](const InstanceMembers& instance, const std::vector<MemberOrigin>&) {
            addInstanceClockSamples(instance, ranksPerNode, perWorker[worker]);
          },
          items[k].shard);
    });
    for (const ClockPairs& p : perWorker) {
      std::vector<ClockPair> list;
      for (const auto& [key, pair] : p) list.push_back(pair);
      mergeClockPairs(pairs, list);
    }
  }
  std::vector<ClockPair> out;
  for (auto& [key, p] : pairs) out.push_back(p);
  return out;
}

// An instance's outcome with its last arrival back on the last arriver's own
// clock (the critical path's walk goes on on that rank).
ArrivalOutcome outcomeOnOwnClock(const InstanceMembers& instance, const ClockMove& clocks) {
  ArrivalOutcome o = instanceOutcome(instance);
  if (o.matched && clocks.moves())
    o.lastArrivalNs = toReferenceClock(
        o.lastArrivalNs, -clockOffsetOf(*clocks.clocks, o.lastRank / clocks.ranksPerNode));
  return o;
}

// An owned group with slices: its ranks and its encoded slices' handle on a shelf.
struct OwnTrack {
  std::vector<int64_t> ranks;
  size_t slices = 0;
};
// Owned groups with slices, in name order.
using OwnTracks = std::vector<std::pair<std::string, OwnTrack>>;

// A group walked in shards: what its finished shards found. The last shard
// to finish takes it all and completes the group.
struct ShardedGroup {
  std::mutex mutex;
  unsigned left = 0;  // shards not finished
  std::unique_ptr<GroupSummaryBuilder> summary;
  std::vector<InstanceSlice> slices;
};

// One shard's findings into `group`: true when it was the last, with the
// group's whole summary and slices moved back into `summary` and `slices`.
bool lastShard(ShardedGroup& group, std::unique_ptr<GroupSummaryBuilder>& summary,
               std::vector<InstanceSlice>& slices) {
  const std::lock_guard<std::mutex> lock(group.mutex);
  if (group.summary)
    group.summary->absorb(std::move(*summary));
  else
    group.summary = std::move(summary);
  group.slices.insert(group.slices.end(), std::make_move_iterator(slices.begin()),
                      std::make_move_iterator(slices.end()));
  if (--group.left > 0) return false;
  summary = std::move(group.summary);
  slices = std::move(group.slices);
  return true;
}

// An owner: its groups' summary, and each arrival's outcome into `outcomes`.
// `tracks`: each group's instances as the traces draw them (CollectiveTracks.h),
// encoded onto `shelf` as each group is matched.
// Groups run on `threads` threads (walkItems: a large group in shards, the
// last of its shards to finish completing it); each worker sums its groups
// into its own summary and the summaries are merged (as rank 0 merges the
// owners': the same bytes for any split); the outcomes are sorted by their
// origin; the tracks keep the groups' order. `shards`: the walks past one a
// group (0 when no group was split).
Owned summarizeOwned(OwnedGroups& owned, const ClockMove& clocks, const SpillOptions& sort,
                     OwnerOutcomes& outcomes, PartShelf& shelf, OwnTracks& tracks, unsigned threads,
                     uint64_t& shards) {
  Owned out;
  out.error = owned.error;
  if (!out.error.empty()) return out;
  const GroupList groups = groupList(owned);
  const std::vector<WalkItem> items = walkItems(groups, threads);
  shards = items.size() - groups.size();
  std::vector<ShardedGroup> sharded(groups.size());
  for (const WalkItem& item : items) sharded[item.group].left = item.shard.count;
  std::vector<CollectivesSummary> perWorker(workersFor(threads, items.size()));
  std::vector<std::optional<OwnTrack>> made(groups.size());
  forEachItem(items.size(), threads, [&](size_t k, unsigned worker) {
    const size_t i = items[k].group;
    const std::string& group = *groups[i].first;
    if (groups[i].second->count() == 0) return;  // ranks without arrivals here: no instance
    const std::vector<int64_t> ranks = groupRanksOf(owned.ranks.at(group), *groups[i].second);
    auto summary = std::make_unique<GroupSummaryBuilder>(group, clocks.ranksPerNode);
    std::vector<InstanceSlice> slices;
    walkGroupInstances(
        *groups[i].second, owned.spillFile(), ranks, clocks, sort,
        [&](const InstanceMembers& instance, const std::vector<MemberOrigin>& origins) {
          summary->add(instance);
          outcomes.add(outcomeOnOwnClock(instance, clocks), origins);
          if (instance.problem.empty()) slices.push_back(instanceSlice(instance));
        },
        items[k].shard);
    if (items[k].shard.count > 1 && !lastShard(sharded[i], summary, slices)) return;
    *groups[i].second = GroupBytes();  // its bytes are not needed again
    sortSlices(slices);
    if (std::string encoded = encodeSlices(slices); !encoded.empty())
      made[i] = OwnTrack{ranks, shelf.put(0, std::move(encoded))};
    summary->finish(perWorker[worker]);
  });
  for (CollectivesSummary& s : perWorker) mergeSummary(out.summary, std::move(s));
  for (size_t i = 0; i < made.size(); ++i)
    if (made[i]) tracks.emplace_back(*groups[i].first, std::move(*made[i]));
  return out;
}

class CollectivesJob final : public AnalysisJob {
 public:
  explicit CollectivesJob(const AnalysisJobOptions& options)
      : topology_(options.topology),
        memoryBytes_(options.memoryBytes),
        ownerSpill_{options.spillDir, storeHeldBytes(options.memoryBytes)},
        releasePart_(options.releasePart),
        threads_(options.threads) {}
  void merge(Comm& comm, const std::vector<RankPart>& local) override;
  Status status() const override { return status_; }
  void publish(JobBoard& board) const override;
  Status write(Comm& comm, const std::vector<RankPart>& local, const AnalysisOutput& out) override;
  std::vector<TraceTrackGroup> trackGroups() const override { return trackGroups_; }
  std::string trackProcess() const override { return "collectives"; }
  std::vector<std::pair<std::string, uint64_t>> counts() const override {
    return {{"group_shards", groupShards_}};
  }
  void trackRows(size_t index, int64_t pid, uint64_t& dropped, TrackRowSink& out) const override;
  // Keeps the tracks alone.
  void releaseAfterWrite() override {
    summary_ = CollectivesSummary();
    std::vector<RankInfo>().swap(ranks_);
    std::vector<NodeClock>().swap(clocks_);
    readers_.clear();
    std::vector<StepPath>().swap(paths_);
    std::vector<CriticalShare>().swap(shares_);
  }

 private:
  void agreeTracks(Comm& comm, OwnTracks mine, bool failed);
  bool gatherRankInfo(Comm& comm, const std::vector<RankInfo>& mine);
  std::vector<NodeClock> agreeClocks(Comm& comm, const std::vector<ClockPair>& mine);
  void noteClocks(const std::vector<NodeClock>& clocks);
  void gatherSummaries(Comm& comm, const Owned& mine);
  void criticalPaths(Comm& comm, const LocalWalk& walk);
  void addShares();

  Topology topology_;
  uint64_t memoryBytes_;               // --memory-mb (routing rounds)
  SpillOptions ownerSpill_;            // the owner's arrivals held in memory at most
  PartRelease releasePart_;            // AnalysisJobOptions::releasePart
  unsigned threads_;                   // AnalysisJobOptions::threads
  uint64_t groupShards_ = 0;           // walks past one a group (summarizeOwned's `shards`)
  CollectivesSummary summary_;         // rank 0
  std::vector<RankInfo> ranks_;        // every profile's rank, sorted
  std::vector<NodeClock> clocks_;      // rank 0: the nodes' clock offsets, by node
  std::map<int64_t, int> readers_;     // training rank -> the MPI rank that read it
  std::vector<StepPath> paths_;        // rank 0: the critical path of every step
  std::vector<CriticalShare> shares_;  // rank 0: paths_' ns per (rank, kind)
  uint64_t criticalNs_ = 0;            // rank 0: paths_' ns
  // The traces' collectives process: every group with a matched instance
  // (every rank), and the slices of the groups this MPI rank owns, by name.
  std::vector<TraceTrackGroup> trackGroups_;
  // Each owned group's ranks and its slices' handle on tracksShelf_ (within
  // storeHeldBytes, the rest in --spill-dir; a group's pages are
  // released once its rows are made).
  std::map<std::string, OwnTrack> ownTracks_;
  std::unique_ptr<PartShelf> tracksShelf_;
  Status status_;
};

// collective: every profile's (rank, steps), for waits.csv. Its node is the
// topology's (Topology::nodeOf: a host only where the plan tells it for any
// placement, plan/NodeNames.h; else the trainer number).
bool CollectivesJob::gatherRankInfo(Comm& comm, const std::vector<RankInfo>& mine) {
  auto all = allgatherTyped(comm, mine, "the collective ranks", writeRankSteps, readRankSteps);
  if (!all) {
    status_ = all.error();
    return false;
  }
  for (size_t r = 0; r < all->size(); ++r)
    for (RankInfo& one : (*all)[r]) {
      one.node = topology_.nodeOf(one.rank);
      if (topology_.nodeWords) one.localRank = topology_.gpuOf(one.rank);
      readers_.emplace(one.rank, static_cast<int>(r));
      ranks_.push_back(std::move(one));
    }
  std::stable_sort(ranks_.begin(), ranks_.end(),
                   [](const RankInfo& a, const RankInfo& b) { return a.rank < b.rank; });
  return true;
}

// collective: every owner's clock samples to rank 0 (point to point), summed
// and solved there; the offsets to every rank (an allgather of rank 0's list).
std::vector<NodeClock> CollectivesJob::agreeClocks(Comm& comm, const std::vector<ClockPair>& mine) {
  std::vector<NodeClock> solved;
  if (comm.rank() != 0) {
    sendTyped(comm, 0, MessageTag::ClockSamples, mine, writeClockPairs);
  } else {
    ClockPairs pairs;
    for (int r = 0; r < comm.size(); ++r) {
      auto m = r == 0 ? Expected<std::vector<ClockPair>>(mine)
                      : receiveTyped<std::vector<ClockPair>>(comm, r, MessageTag::ClockSamples,
                                                             "the clock samples", readClockPairs);
      if (m)
        mergeClockPairs(pairs, *m);
      else if (status_.ok())
        status_ = Error{"analysis: " + m.error().message};
    }
    solved = solveClockOffsets(pairs);
  }
  auto all = allgatherTyped(comm, solved, "the clock offsets", writeNodeClocks, readNodeClocks);
  if (!all) {
    if (status_.ok()) status_ = all.error();
    return {};
  }
  if (comm.rank() == 0) noteClocks(solved);
  return std::move((*all)[0]);
}

// Rank 0: the offsets, and each rank's node's in its RankInfo.
void CollectivesJob::noteClocks(const std::vector<NodeClock>& clocks) {
  clocks_ = clocks;
  const int64_t perNode = topology_.gpusPerTrainer;
  if (perNode <= 0) return;
  for (RankInfo& r : ranks_) {
    auto it = std::lower_bound(clocks.begin(), clocks.end(), r.rank / perNode,
                               [](const NodeClock& c, int64_t n) { return c.node < n; });
    if (it == clocks.end() || it->node != r.rank / perNode) continue;
    r.clockKnown = true;
    r.clockOffsetNs = it->offsetNs;
    r.clockSpreadNs = it->spreadNs;
  }
}

// collective: every owner's summary to rank 0 (point to point, one message
// each), merged there.
void CollectivesJob::gatherSummaries(Comm& comm, const Owned& mine) {
  if (comm.rank() != 0) {
    sendTyped(comm, 0, MessageTag::CollectiveSummary, mine, writeOwned);
    return;
  }
  for (int r = 0; r < comm.size(); ++r) {
    Expected<Owned> m = r == 0 ? Expected<Owned>(mine)
                               : receiveTyped<Owned>(comm, r, MessageTag::CollectiveSummary,
                                                     "the collective summary", readOwned);
    if (!m || !m->error.empty()) {
      if (status_.ok()) status_ = Error{"analysis: " + (m ? m->error : m.error().message)};
      continue;
    }
    mergeSummary(summary_, std::move(m->summary));
  }
}

// Rank 0: the paths' ns per (rank, kind name) and in all.
void CollectivesJob::addShares() {
  std::map<std::pair<int64_t, std::string>, uint64_t> ns;
  for (const StepPath& p : paths_)
    for (const PathSegment& s : p.segments) {
      (void)addSaturating(ns[{s.rank, segmentKindName(s.kind)}], s.durNs);  // held at 2^63 - 1
      (void)addSaturating(criticalNs_, s.durNs);
    }
  for (auto& [key, v] : ns) shares_.push_back({key.first, key.second, v});
}

// collective: the critical path of every step, on rank 0 (when the
// collectives' summary has a group), or why there is none (status_).
void CollectivesJob::criticalPaths(Comm& comm, const LocalWalk& walk) {
  const bool drive = comm.rank() == 0 && status_.ok() && summary_.groups > 0;
  Expected<std::vector<StepPath>> paths = walkCriticalPaths(comm, walk, readers_, drive);
  if (comm.rank() != 0 || !status_.ok()) return;
  if (!paths) {
    status_ = paths.error();
    return;
  }
  paths_ = std::move(*paths);
  addShares();
}

// collective: arrivals to their groups' owners, owners' summaries to rank 0,
// the outcomes back to the readers, then the critical paths.
void CollectivesJob::merge(Comm& comm, const std::vector<RankPart>& local) {
  std::string error;
  std::vector<RankInfo> info;
  std::vector<RoutedPart> routed;
  OwnedCollector collector(static_cast<size_t>(comm.size()), ownerSpill_);
  const RouteContext context{comm.size(), threads_, releasePart_};
  routeInRounds(comm, local, routeRoundBytes(memoryBytes_), context, error, info, routed,
                collector);
  if (!gatherRankInfo(comm, info)) return;  // fails alike on every rank
  const int64_t perNode = topology_.gpusPerTrainer;
  std::vector<size_t> sent;
  OwnedGroups groups = collector.finish(sent);
  OwnerOutcomes outcomes(ownerSpill_, std::move(sent));
  std::vector<ClockPair> samples;
  try {
    samples = ownedClockSamples(groups, perNode, ownerSpill_, threads_);
  } catch (const std::exception& e) {
    groups.error = std::string("collectives failed: ") + e.what();
  }
  const std::vector<NodeClock> clocks = agreeClocks(comm, samples);
  Owned owned;
  owned.error = groups.error;
  OwnTracks tracks;
  tracksShelf_ =
      std::make_unique<PartShelf>(ownerSpill_.dir, ownerSpill_.memoryBytes, "tracks-read");
  try {
    owned = summarizeOwned(groups, ClockMove{&clocks, perNode}, ownerSpill_, outcomes,
                           *tracksShelf_, tracks, threads_, groupShards_);
  } catch (const std::exception& e) {
    owned.error = std::string("collectives failed: ") + e.what();
  }
  agreeTracks(comm, std::move(tracks), !owned.error.empty());
  // The parts again for the walk, kept encoded (their errors already travel with `owned`).
  LocalWalk walk = returnOutcomes(comm, local, std::move(routed), outcomes, owned.error,
                                  releasePart_, ownerSpill_);
  gatherSummaries(comm, owned);
  criticalPaths(comm, walk);
}

// collective: the job's track groups, none when any owner failed (every
// rank learns it in the same allgather).
void CollectivesJob::agreeTracks(Comm& comm, OwnTracks mine, bool failed) {
  tracksShelf_->seal();
  std::vector<TraceTrackGroup> withSlices;
  for (const auto& [group, track] : mine) withSlices.push_back({group, track.ranks, comm.rank()});
  Expected<std::vector<TraceTrackGroup>> all = agreeTrackGroups(comm, withSlices, failed);
  if (!all) return;  // alike on every rank: no collectives process in the traces
  trackGroups_ = std::move(*all);
  for (auto& [group, track] : mine) ownTracks_.emplace(group, std::move(track));
}

void CollectivesJob::trackRows(size_t index, int64_t pid, uint64_t& dropped,
                               TrackRowSink& out) const {
  if (index >= trackGroups_.size()) return;
  auto it = ownTracks_.find(trackGroups_[index].name);
  if (it == ownTracks_.end()) return;
  const std::string_view slices = tracksShelf_->view(it->second.slices);
  if (slices.empty())  // only groups with slices are on the shelf: this one was not read back
    throw std::runtime_error(
        "the collectives' slices of group \"" + it->first +
        "\" could not be read back from --spill-dir: " + tracksShelf_->readBackError());
  collectiveTrackRows(it->first, it->second.ranks, slices, index, pid, dropped, out);
  tracksShelf_->release(slices);
}

void CollectivesJob::publish(JobBoard& board) const {
  if (!status_.ok()) return;
  board.collectives = &summary_;
  board.collectiveRanks = &ranks_;
  if (paths_.empty()) return;
  board.criticalShares = &shares_;
  board.criticalTotalNs = criticalNs_;
}

// collective: rank 0 writes both files (or none) and its summary lines.
Status CollectivesJob::write(Comm& comm, const std::vector<RankPart>& /*local*/,
                             const AnalysisOutput& out) {
  if (comm.rank() != 0) return {};
  if (!status_.ok()) return status_;
  std::vector<AtomicFile> written;
  Status st =
      writeForCommit(out.dir, kCollectivesCsv, collectivesCsv(summary_), out.fsync, written);
  if (st.ok())
    st = writeForCommit(out.dir, kWaitsCsv, waitsCsv(summary_, ranks_), out.fsync, written);
  if (st.ok())
    st = writeForCommit(out.dir, kCriticalPathCsv, criticalPathCsv(paths_, out.originNs), out.fsync,
                        written);
  if (!st.ok()) return st;
  for (AtomicFile& f : written) out.files->push_back(std::move(f));
  for (std::string& line : collectivesSummaryLines(summary_, ranks_))
    out.lines->push_back(std::move(line));
  if (std::string line = clockSummaryLine(clocks_); !line.empty())
    out.lines->push_back(std::move(line));
  return {};
}

class CollectivesAnalysis final : public Analysis {
 public:
  std::string_view name() const override { return "collectives"; }
  std::vector<std::string> outputFiles() const override {
    return {kCollectivesCsv, kWaitsCsv, kCriticalPathCsv};
  }
  // Its one sorter takes half a builder's budget (analysisBuilderBudget).
  std::unique_ptr<RankAnalysis> rankPart(const SpillOptions& input) const override {
    SpillOptions spill = analysisBuilderBudget(input);
    spill.memoryBytes /= 2;
    return std::make_unique<ArrivalRecorder>(spill);
  }
  std::unique_ptr<AnalysisJob> jobPart(const AnalysisJobOptions& options) const override {
    return std::make_unique<CollectivesJob>(options);
  }
};

}  // namespace

const Analysis& collectivesAnalysis() {
  static const CollectivesAnalysis kAnalysis;
  return kAnalysis;
}

}  // namespace xstack
