// The "collectives" analysis (docs/FORMAT.md "collectives.csv, waits.csv"):
// every collective of every process group, who waits for whom.
//
// Per rank: every communication kernel (a GPU-row slice with a CollectiveInfo)
// is an arrival (analysis/collectives/CollectiveMatch.h). The job part routes
// each process group's arrivals to one owner MPI rank (collectiveGroupOwner:
// a hash of the group's name), point to point, one message from every MPI
// rank to every owner (MessageTag::CollectiveArrivals); each owner matches its
// groups' instances and reduces them into bounded summaries (rows per group,
// collective and size; sums per rank), which go to rank 0
// (MessageTag::CollectiveSummary). Rank 0 writes collectives.csv and waits.csv.
#pragma once

#include "xstack/analysis/Analysis.h"

namespace xstack {

const Analysis& collectivesAnalysis();

}  // namespace xstack
