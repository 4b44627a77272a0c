// What the job parts of the analyses share on rank 0 once every one has
// merged: each publishes its products (AnalysisJob::publish), then each
// concludes with what the others published (AnalysisJob::conclude), e.g. the
// findings and report.html of the "steps" analysis with the collectives'
// waits and roles. Pointers stay valid until the jobs are destroyed; null =
// that analysis did not run or failed (its status says why).
#pragma once

#include <vector>

#include "xstack/analysis/collectives/CollectiveMatch.h"

namespace xstack {

struct JobBoard {
  // The "collectives" analysis: its per-group and per-rank summary, and every
  // profile's rank (by rank) with its steps, node and role.
  const CollectivesSummary* collectives = nullptr;
  const std::vector<RankInfo>* collectiveRanks = nullptr;
};

}  // namespace xstack
