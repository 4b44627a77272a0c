// What the job parts of the analyses share on rank 0 once every one has
// merged: each publishes its products (AnalysisJob::publish), then each
// concludes with what the others published (AnalysisJob::conclude), e.g. the
// findings and report.html of the "steps" analysis with the collectives'
// waits and roles. Pointers stay valid until the jobs are destroyed; null =
// that analysis did not run or failed (its status says why).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "xstack/analysis/collectives/CollectiveMatch.h"

namespace xstack {

// One (rank, kind) of the critical paths: its ns summed over every step's
// path (critical_path.csv), kind one of compute, host, memcpy, transfer, wait.
struct CriticalShare {
  int64_t rank = 0;
  std::string kind;
  uint64_t ns = 0;
};

struct JobBoard {
  // The "collectives" analysis: its per-group and per-rank summary, and every
  // profile's rank (by rank) with its steps, node and role.
  const CollectivesSummary* collectives = nullptr;
  const std::vector<RankInfo>* collectiveRanks = nullptr;
  // The critical paths' time per (rank, kind), by rank then kind, and the sum
  // of every step's path (ns); null = no critical path.
  const std::vector<CriticalShare>* criticalShares = nullptr;
  uint64_t criticalTotalNs = 0;
};

}  // namespace xstack
