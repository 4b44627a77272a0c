// What the inputs say about the topology, gathered for inferGpusPerTrainer:
// the planned files, and, only when they cannot tell P by their names (no
// time files, no --gpus-per-trainer), the GPU ids of the DCGM rows.
#pragma once

#include <optional>

#include "xstack/comm/Comm.h"
#include "xstack/plan/Plan.h"
#include "xstack/plan/TopologyInference.h"

namespace xstack {

// collective: every rank calls it with the same plan and option; each rank
// parses the DCGM files it is the planned reader of (only if needed: no time
// files and no explicitP), and the GPU ids are gathered. The same evidence on
// every rank. A DCGM file that cannot be read adds nothing here (the read
// stage reports it).
TopologyEvidence gatherTopologyEvidence(Comm& comm, const Plan& plan,
                                        std::optional<int64_t> explicitP);

}  // namespace xstack
