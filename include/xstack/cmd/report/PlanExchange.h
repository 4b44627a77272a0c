// The collectives of the plan stage (cmd/report/stages/PlanStage.cpp): the gathers around
// the pure plan functions (plan/Plan.h, plan/TopologyEvidence.h), and the
// reading of DCGM files for their GPU ids.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>

#include "xstack/comm/Comm.h"
#include "xstack/core/Status.h"
#include "xstack/event/InputListing.h"
#include "xstack/plan/Plan.h"
#include "xstack/plan/TopologyInference.h"

namespace xstack {

// collective: gathers every rank's listing (with its host) and returns the
// same plan on all (makePlan). A listing that does not decode is the same
// Error (kind Read, naming that rank) on every rank.
Expected<Plan> gatherPlan(Comm& comm, const InputListing& mine);

// collective when needed: every rank calls it with the same plan and option.
// Only when the plan and option cannot tell P (needsDcgmGpuIds), each rank
// reads the DCGM files it is the planned reader of and the GPU ids are
// gathered; otherwise no rank communicates. The same evidence on every rank,
// or the same Error (a gathered message that does not decode).
Expected<TopologyEvidence> gatherTopologyEvidence(Comm& comm, const Plan& plan,
                                                  std::optional<int64_t> explicitP);

// The GPU ids of the rows of one DCGM file; empty when it cannot be read
// (the read stage reports that).
std::set<int64_t> dcgmGpuIdsOf(const std::string& path);

}  // namespace xstack
