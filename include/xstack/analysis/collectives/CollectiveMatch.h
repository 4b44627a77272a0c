// The "collectives" analysis' data and computations, without any Comm:
// a rank's arrivals at its collectives, the matching of one process group's
// instances on its owner, the bounded summaries the owners send rank 0, and
// the two CSV files (docs/FORMAT.md "collectives.csv, waits.csv").
// All times are Unix ns (uint64) unless a name says ms.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "xstack/core/Status.h"
#include "xstack/wire/Wire.h"

namespace xstack {

// One rank's arrival at one collective call: a communication kernel (a
// GPU-row slice with a CollectiveInfo).
struct Arrival {
  int64_t rank = 0;        // training rank (not encoded: the RankArrivals' rank)
  std::string group;       // process group name; "" = the default group of all ranks
  std::string collective;  // normalized name (CollectiveInfo::collective)
  uint64_t bytes = 0;      // 0 = unknown
  // The call's instance in its group: the trace's seq when it gives one, else
  // the order of the group's collectives on this rank (0, 1, ...). A
  // point-to-point op (peer >= 0): the order of the ops between this rank and
  // its peer in the group (seq not used).
  int64_t instance = 0;
  int64_t peer = -1;                // point to point: the other global rank; -1 = none
  uint64_t startNs = 0, endNs = 0;  // the kernel; startNs is the arrival, endNs >= startNs
  uint64_t launchNs = 0;            // its host launch (CudaApi slice, by correlation); 0 = unknown
  // ns of GPU compute (non-communication kernels but copies, union), of GPU
  // copies (memcpy/memset kernels not under a compute kernel) and of GPU idle
  // (no GPU-row slice at all) since the rank's previous collective ended.
  uint64_t computeNs = 0, idleNs = 0, memcpyNs = 0;
  // When the rank became free for this call: the end of its previous
  // collective (of any group), or its profile's first GPU slice for its first.
  uint64_t freeNs = 0;
  int64_t step = -1;  // the step whose window holds startNs; -1 = none
};

// A point-to-point op's (source, destination) ranks: a send's (rank, peer),
// a recv's (peer, rank); another op with a peer (sendrecv) has no direction:
// (lower, higher). Meaningful only when peer >= 0.
std::pair<int64_t, int64_t> p2pEnds(const Arrival& a);

struct GroupRanks {
  std::string group;
  std::vector<int64_t> ranks;  // global ranks, sorted
};

// One profile's arrivals: RankAnalysis::finish's result.
struct RankArrivals {
  int64_t rank = 0;                // training rank
  uint64_t steps = 0;              // forward spans
  std::vector<Arrival> arrivals;   // by start (input order breaks ties)
  std::vector<GroupRanks> groups;  // the groups whose ranks the trace gives, by name
};

void writeRankArrivals(wire::Writer& w, const RankArrivals& a);
RankArrivals readRankArrivals(wire::Reader& r);  // sets each Arrival's rank
// One element of writeRankArrivals' arrivals list, read into `a` (its
// strings' storage reused; rank untouched), checked as readRankArrivals checks.
void readArrivalInto(wire::Reader& r, Arrival& a);
// What routing needs of one encoded arrival: its names (views into the
// message, valid while it lives), bytes, peer and times.
struct ArrivalKey {
  std::string_view group, collective;
  uint64_t bytes = 0;
  int64_t peer = -1;
  uint64_t startNs = 0, endNs = 0;
};
// readArrivalInto without copying the names or decoding the rest (instance,
// launch, free, compute, idle, memcpy, step: stepped over), checked exactly
// as readArrivalInto checks: the same failures at the same offsets.
void readArrivalKey(wire::Reader& r, ArrivalKey& a);
// One element of writeRankArrivals' groups list.
void writeGroupRanks(wire::Writer& w, const GroupRanks& g);
GroupRanks readGroupRanks(wire::Reader& r);

// Why a last arriver was late (docs/FORMAT.md "waits.csv"), against the
// instance's median member, with lateness = its arrival - the median arrival:
// "waiting" when it became free (freeNs) later than the median member by at
// least half its lateness: its previous collective ended late, it was itself
// waiting there (the chain goes on in critical_path.csv; checked first);
// else "compute" when its GPU computed longer since it became free by at
// least half its lateness; else "memcpy" when its GPU copied longer by at
// least half its lateness; else "host" when its GPU idled longer; else
// "unknown".
enum class LateCause : uint8_t { Compute = 0, Host = 1, Waiting = 2, Unknown = 3, Memcpy = 4 };
constexpr int kLateCauses = 5;
// "compute", "host", "waiting", "unknown", "memcpy"
const char* lateCauseName(LateCause c);

// nccl-tests' bus bandwidth factor of a collective among `members` ranks:
// allreduce 2(n-1)/n; allgather, reduce_scatter, alltoall, alltoallv
// (n-1)/n; others 1.
double busBandwidthFactor(std::string_view collective, size_t members);
// May an instance's members send different bytes (all-to-alls: each rank's
// splits are its own)? Then they are not a disagreement, and the instance's
// bytes are its largest member's.
bool sizesMayDiffer(std::string_view collective);
// Do a collective's sizes vary from call to call by design (alltoallv)? Its
// calls then make one collectives.csv row (and network class) with bytes 0,
// as do an alltoall's whose members' sizes differ.
bool sizesVaryByCall(std::string_view collective);

// One collectives.csv row: matched instances of one (group, collective, bytes).
struct CollectiveRow {
  std::string group, collective;
  uint64_t bytes = 0;
  uint64_t count = 0;  // matched instances
  // The nearest-rank median of the instances' bytes (an instance's: its
  // largest member's); `bytes` itself on a row of one size.
  uint64_t bytesP50 = 0;
  uint64_t transferP50Ns = 0, transferP95Ns = 0;  // nearest-rank percentiles
  bool hasBusbw = false;                          // some instance had bytes and a transfer
  double busbwP50Gbps = 0;                        // GB/s (1e9 bytes/s)
  uint64_t waitNs = 0;                            // summed member waits
  int64_t topLateRank = -1;                       // last arriver most often (ties: lower rank)
  uint64_t topLateCount = 0;
};

// One training rank's waits: what it waited for others, what others waited for it.
struct RankBlame {
  int64_t rank = 0;
  uint64_t waitedNs = 0;
  uint64_t causedNs[kLateCauses] = {};  // by LateCause
};

// The waits charged to one last arriver within one process group: one per
// (group, rank that was the last arriver of at least one matched instance of it).
struct GroupBlame {
  std::string group;
  int64_t rank = 0;          // the late rank (last arriver)
  uint64_t waitedForNs = 0;  // the group's members' waits at those instances, summed
  uint64_t instances = 0;    // matched instances it arrived last at (ties included)
};

// An instance that was not used: its members disagree or one is missing.
struct Problem {
  std::string group;
  // Its place among its group's examples, which are in (peer pair, instance)
  // order: orders a group's examples.
  uint64_t order = 0;
  std::string text;
};
constexpr size_t kProblemExamples = 3;

// The cross-node transfers of one class (collective, bytes, members) that
// touch one node (node >= 0: an instance with a member on it), or all of the
// class (node = -1): what the network finding compares (Findings.h). Only
// instances whose members are on two nodes or more count.
struct NetCell {
  std::string collective;
  uint64_t bytes = 0;
  uint64_t members = 0;
  int64_t node = -1;        // the topology's trainer; -1 = the class' total
  uint64_t instances = 0;   // matched instances
  uint64_t transferNs = 0;  // their summed transfer time
  uint64_t groups = 0;      // the process groups they came from
};

// What owners send rank 0: bounded (rows per group, collective and size;
// sums per rank and per (group, late rank); the first kProblemExamples
// problems), never per instance.
struct CollectivesSummary {
  uint64_t groups = 0, matched = 0, problems = 0;
  std::vector<CollectiveRow> rows;     // by (group, collective, bytes)
  std::vector<RankBlame> ranks;        // by rank
  std::vector<Problem> examples;       // by (group, order), at most kProblemExamples
  std::vector<NetCell> net;            // by (collective, bytes, members, node); classes x nodes
  std::vector<GroupBlame> groupBlame;  // by (group, rank), one per pair
};

void writeSummary(wire::Writer& w, const CollectivesSummary& s);
CollectivesSummary readSummary(wire::Reader& r);

// An instance's key in its group: (lower rank, higher rank, instance) of a
// point-to-point op; (-1, -1, instance) of a collective of the whole group.
using InstanceKey = std::tuple<int64_t, int64_t, int64_t>;

// One group's arrivals matched into instances, as every function below
// matches them: each instance's members (indexes into the arrivals) by (rank,
// start, end), input order breaking ties, instances by key; the ranks the
// group must have (`groupRanks`, or the ranks seen), sorted; and per instance
// why it is not matched ("" = matched: every expected member once, agreeing).
// `instances` views into `members`: a GroupMatch is moved, never copied.
struct GroupMatch {
  std::vector<int64_t> ranks;
  std::vector<size_t> members;  // instance after instance
  std::vector<std::pair<InstanceKey, std::span<const size_t>>> instances;
  std::vector<std::string> problems;  // by instance
  GroupMatch() = default;
  GroupMatch(GroupMatch&&) = default;
  GroupMatch(const GroupMatch&) = delete;
};
GroupMatch matchGroup(const std::vector<Arrival>& arrivals, const std::vector<int64_t>& groupRanks);

// One instance of a group as the per-instance functions below take it: its
// key, its members by (rank, start, end), input order breaking ties, and why
// it is not matched ("" = matched). What matchGroup gives for its instance
// n (instanceOf), and what an owner's walk gives one instance at a time
// (GroupInstances.h), so that a group's memory is one instance's.
struct InstanceMembers {
  InstanceKey key{-1, -1, 0};
  std::vector<const Arrival*> members;  // not empty
  std::string problem;
};
// The problem of an instance whose `members` are sorted by rank: a rank twice,
// members that disagree (collective, bytes), a member missing or not in the
// group (`groupRanks` sorted, unique: groupMembers'); "" = none. O(members +
// group ranks).
std::string instanceProblem(const InstanceKey& key, const std::vector<const Arrival*>& members,
                            const std::vector<int64_t>& groupRanks);
// GroupMatch's instance n of `arrivals` into `out` (its vectors reused).
void instanceOf(const std::vector<Arrival>& arrivals, const GroupMatch& match, size_t n,
                InstanceMembers& out);

// Matches one group's arrivals (any order, every rank's) into instances and
// adds their statistics to `out` (then normalizeSummary). `groupRanks`: the
// group's ranks as the traces give them; empty = the ranks seen in `arrivals`.
// `ranksPerNode` > 0: a rank's node is rank / ranksPerNode (the topology's
// trainer), for the net cells; 0 = no net cells.
void summarizeGroup(const std::string& group, std::vector<Arrival> arrivals,
                    const std::vector<int64_t>& groupRanks, CollectivesSummary& out,
                    int64_t ranksPerNode = 0);
// summarizeGroup of arrivals already matched (`match`: matchGroup's of them).
void summarizeMatched(const std::string& group, const std::vector<Arrival>& arrivals,
                      const GroupMatch& match, CollectivesSummary& out, int64_t ranksPerNode);

// summarizeMatched one instance at a time: add() every instance of one group
// in key order (matchGroup's), then finish() once adds the group to `out`
// (then normalizeSummary). Holds O(instances) numbers (the rows' transfers), never
// the members.
class GroupSummaryBuilder {
 public:
  GroupSummaryBuilder(std::string group, int64_t ranksPerNode);
  ~GroupSummaryBuilder();
  GroupSummaryBuilder(const GroupSummaryBuilder&) = delete;
  GroupSummaryBuilder& operator=(const GroupSummaryBuilder&) = delete;
  void add(const InstanceMembers& instance);
  // Adds what `other` saw of the same group (other instances of it, e.g. a
  // shard of its walk): the result finishes exactly as one builder that saw
  // every instance, in any order of absorbing (samples are sorted at finish,
  // sums are of integers, the problem examples are kept by instance key).
  void absorb(GroupSummaryBuilder&& other);
  void finish(CollectivesSummary& out);

 private:
  struct Build;
  std::string group_;
  std::unique_ptr<Build> build_;
};
// One matched instance as the traces draw it (a slice of its group's track):
// from its first arrival to its last member's end, Unix ns on the clock the
// arrivals are on (the reference clock after the owners' conversion).
struct InstanceSlice {
  uint64_t firstArrivalNs = 0, endNs = 0;  // endNs >= firstArrivalNs
  std::string collective;                  // a matched send/recv pair: "send"
  uint64_t bytes = 0;                      // 0 = unknown
  uint64_t members = 0;
  int64_t lastRank = -1;    // the last arriver (ties: the lower rank)
  uint64_t transferNs = 0;  // end - the last arrival
  uint64_t waitNs = 0;      // the members' waits, summed (held at 2^63 - 1)
  bool hasBusbw = false;
  double busbwGbps = 0;        // nccl-tests' bus bandwidth, GB/s
  int64_t instance = 0;        // Arrival::instance
  int64_t src = -1, dst = -1;  // point to point: the pair (p2pEnds); -1 = the whole group
};
// A group's ranks, sorted: `groupRanks` (as the traces give them), or when
// empty the ranks seen in `arrivals`.
std::vector<int64_t> groupMembers(const std::vector<Arrival>& arrivals,
                                  const std::vector<int64_t>& groupRanks);
// The matched instances of one group (as summarizeGroup matches them), by
// (first arrival, end, pair, instance).
std::vector<InstanceSlice> instanceSlices(const std::vector<Arrival>& arrivals,
                                          const std::vector<int64_t>& groupRanks);
std::vector<InstanceSlice> matchedSlices(const std::vector<Arrival>& arrivals,
                                         const GroupMatch& match);
// One matched instance's slice.
InstanceSlice instanceSlice(const InstanceMembers& instance);
// Slices in the traces' order: (first arrival, end, pair, instance).
void sortSlices(std::vector<InstanceSlice>& slices);
// Adds `from` to `into` (rows of disjoint groups, sums per rank), then normalizes.
void mergeSummary(CollectivesSummary& into, CollectivesSummary&& from);
// Sorts rows, ranks and groupBlame, joins ranks (and (group, rank) pairs) that
// appear twice, keeps the first examples.
void normalizeSummary(CollectivesSummary& s);

// The MPI rank that owns `group`'s instances: 0 when `size` is 1, else
// 1 + FNV-1a 64 of the name mod (size - 1) (rank 0 owns none).
int collectiveGroupOwner(std::string_view group, int size);

// A training rank of waits.csv.
struct RankInfo {
  int64_t rank = 0;
  uint64_t steps = 0;      // forward spans; per-step numbers divide by max(1, steps)
  std::string node;        // its node: Topology::nodeOf (a host, or the trainer number)
  uint64_t role = 0;       // roleOf its arrivals: ranks with one role do the same work
  int64_t localRank = -1;  // PyTorch's words (Topology::nodeWords): rank mod P; else -1
  // Its node's clock against the reference (analysis/collectives/ClockOffsets.h
  // NodeClock), when its node was compared with another through collectives.
  bool clockKnown = false;
  int64_t clockOffsetNs = 0;
  uint64_t clockSpreadNs = 0;
};

// A rank's role in the job: FNV-1a 64 over the sorted counts of its
// arrivals by (collective, bytes, group size, direction: a point-to-point op
// to or from a higher rank, a lower one, or none). Ranks of one role (TP
// partners, the same pipeline stage of every replica, every rank of a
// data-parallel job) run the same collectives; the findings compare a rank
// with its role's median. 0 = no collective.
uint64_t roleOf(const RankArrivals& a);

// The index of `name` in `names`, appended when new: a linear search from
// the last, for the few groups and collectives of one profile.
uint32_t internName(std::vector<std::string>& names, std::string_view name);

// roleOf one arrival at a time: add() each arrival of training rank `rank`,
// then role() with the profile's groups gives roleOf of the whole.
class RoleCounter {
 public:
  explicit RoleCounter(int64_t rank) : rank_(rank) {}
  void add(std::string_view group, std::string_view collective, uint64_t bytes, int64_t peer);
  uint64_t role(const std::vector<GroupRanks>& groups) const;

 private:
  int64_t rank_;
  std::vector<std::string> texts_;  // groups' and collectives' names, by id (internName)
  // (group id, collective id, bytes, direction) -> arrivals
  std::map<std::tuple<uint32_t, uint32_t, uint64_t, int>, uint64_t> counts_;
};

// The files' text: header only when the summary has no group.
std::string collectivesCsv(const CollectivesSummary& s);
std::string waitsCsv(const CollectivesSummary& s, const std::vector<RankInfo>& ranks);
// The terminal lines: the summary line and the problems' examples; none
// without any collective. `ranks` sorted by rank.
std::vector<std::string> collectivesSummaryLines(const CollectivesSummary& s,
                                                 const std::vector<RankInfo>& ranks);
// ns as ms with 3 decimals, rounded half up ("12.346").
std::string msText(uint64_t ns);

}  // namespace xstack
