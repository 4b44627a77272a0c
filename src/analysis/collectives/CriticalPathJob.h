// The critical path's job part (docs/FORMAT.md "critical_path.csv"): the
// owners' outcomes back to the readers of the arrivals, each rank's latest
// step ends to rank 0, and rank 0's walk, step by step, asking the reader of
// each rank it reaches (the others serve until rank 0 releases them).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "xstack/analysis/Analysis.h"
#include "xstack/analysis/collectives/CriticalPath.h"
#include "xstack/analysis/collectives/OwnerOutcomes.h"
#include "xstack/comm/Comm.h"
#include "xstack/core/Status.h"
#include "xstack/io/PartShelf.h"
#include "xstack/transport/MessageTags.h"

namespace xstack {

// collective: outgoing[o] goes to MPI rank o on `tag`; returns what every MPI
// rank sent this one, indexed by sender. Rank by rank in rank order: in rank
// o's turn, the others post to it and it receives from each in rank order, so
// synchronous sends (a Comm whose post() is send()) cannot wait in a cycle.
std::vector<std::string> exchangeAll(Comm& comm, std::vector<std::string> outgoing, MessageTag tag);

// A reader's profiles as the walk sees them, or why it cannot walk them.
// `outcomes`: where the profiles' outcomes lie (in memory up to a budget, the
// rest in a scratch file, mapped).
struct LocalWalk {
  std::string error;
  HeldWalkProfiles profiles;
  std::unique_ptr<PartShelf> outcomes;
};

// What routing learnt of one of a reader's parts, to pair its outcomes
// without indexing it again: its rank, its walk's step ends and the owner of
// each of its arrivals, in the part's order, as runs: (MPI rank, arrivals)
// pairs of wire u64s. `error` not empty: the part did not index (why).
struct RoutedPart {
  std::string error;
  int64_t rank = 0;
  std::vector<std::pair<int64_t, uint64_t>> stepEnds;
  std::string ownerRuns;
};

// collective: every owner sends each reader the outcomes of the arrivals
// that reader routed to it (`outcomes`, or `ownerError` for all when not
// empty), in rounds of chunks, so that neither holds them all at once (an
// owner's chunks wait on a shelf within `spill`); each reader pairs them
// with its parts as they come (`mine`: their encodings, kept by the caller
// through the walk, in the order it routed them; `routed[i]`: what routing
// learnt of mine[i]). `release`: called with each part once paired
// (AnalysisJobOptions::releasePart). The parts' outcomes are kept within
// `spill` (LocalWalk::outcomes).
LocalWalk returnOutcomes(Comm& comm, const std::vector<RankPart>& mine,
                         std::vector<RoutedPart> routed, OwnerOutcomes& outcomes,
                         const std::string& ownerError, const PartRelease& release,
                         const SpillOptions& spill);

// collective: the critical path of every step. Rank 0 drives when `drive`
// (else it only releases the others) and returns the paths by step, or an
// Error (a message that did not decode, a reader that could not walk);
// `readers`: each training rank's reader. The other ranks return no path.
Expected<std::vector<StepPath>> walkCriticalPaths(Comm& comm, const LocalWalk& local,
                                                  const std::map<int64_t, int>& readers,
                                                  bool drive);

}  // namespace xstack
