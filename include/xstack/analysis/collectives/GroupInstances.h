// An owner's walk over one process group's instances (docs/DESIGN.md "A
// group within a budget"): the group's arrivals, streamed from where the
// owner keeps them (OwnedGroups.h), are sorted into matchGroup's order by an
// external sorter (io/ExternalSorter.h), and each instance reaches the caller
// with its own members only. A group then costs its owner the sorter's
// budget and one instance's members, not its arrivals: the data-parallel
// group of every rank of a large job (or the default group of a trace
// without group names) is one group, with ranks x collectives arrivals.
// All times are Unix ns.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "xstack/analysis/collectives/ClockOffsets.h"
#include "xstack/analysis/collectives/CollectiveMatch.h"
#include "xstack/analysis/collectives/CriticalPath.h"
#include "xstack/analysis/collectives/OwnedGroups.h"
#include "xstack/io/SpillFile.h"

namespace xstack {

// Where one member's outcome goes back to: its origin, and its own arrival's
// rank and start on its own rank's clock (the outcome's base).
struct MemberOrigin {
  Origin origin;
  OutcomeBase base;
};

// The clocks a walk moves the arrivals to: each node's offset to the
// reference (ClockOffsets.h); none when `clocks` is null or empty or
// `ranksPerNode` <= 0 (the arrivals stay on their own clocks).
struct ClockMove {
  const std::vector<NodeClock>* clocks = nullptr;
  int64_t ranksPerNode = 0;
  bool moves() const { return clocks != nullptr && !clocks->empty() && ranksPerNode > 0; }
};

// Called once per instance: `origins[i]` is instance.members[i]'s. The
// members live until the call returns.
using InstanceVisit = std::function<void(const InstanceMembers&, const std::vector<MemberOrigin>&)>;

// The ranks a group must have: `given` (the traces', sorted, unique), or
// when empty the ranks of its arrivals (groupMembers').
std::vector<int64_t> groupRanksOf(const std::vector<int64_t>& given, const GroupBytes& bytes);

// Every instance of one group, in key order, each once, exactly as matchGroup
// gives them for the group's decoded arrivals after toReferenceClocks: the
// members by (rank, start, end) on the reference clocks, input order
// breaking ties, and each instance's problem against `ranks`
// (groupRanksOf's). Memory: `sort.memoryBytes` for the sorter (past it, runs
// in a scratch file in `sort.dir`), one spilled piece of the group's bytes,
// and one instance. Throws std::runtime_error when the arrivals cannot be
// read back or do not decode, or the sorter's scratch file fails.
// A walk may visit one shard of a group's instances: those whose key falls
// in shard `index` of `count` (an instance's members all do), so that
// `count` walks of one group on `count` threads visit each instance once.
// Each shard's walk still reads all of the group's bytes.
struct GroupShard {
  unsigned index = 0;
  unsigned count = 1;
};
bool inShard(const InstanceKey& key, const GroupShard& shard);

void walkGroupInstances(const GroupBytes& bytes, const SpillFile* file,
                        const std::vector<int64_t>& ranks, const ClockMove& clocks,
                        const SpillOptions& sort, const InstanceVisit& visit,
                        GroupShard shard = {});

}  // namespace xstack
