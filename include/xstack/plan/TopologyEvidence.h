// What the inputs say about the topology, for inferGpusPerTrainer: the
// planned files, and, only when they cannot tell P by their names (no time
// files, no --gpus-per-trainer), the GPU ids of the DCGM rows. The pure parts
// of gathering it; the app's plan stage reads the DCGM files and gathers the
// ids (app/PlanGather.h).
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "xstack/plan/Plan.h"
#include "xstack/plan/TopologyInference.h"

namespace xstack {

// Pure: the evidence the plan alone gives (every planned file, the option),
// without DCGM GPU ids.
TopologyEvidence evidenceOfPlan(const Plan& plan, std::optional<int64_t> explicitP);

// Pure: whether the DCGM GPU ids are needed (no explicitP and no time file).
// The same answer on every rank for the same plan and option.
bool needsDcgmGpuIds(const TopologyEvidence& evidence);

// Pure: the paths of the DCGM files of the plan whose planned reader is `rank`.
std::vector<std::string> dcgmFilesReadBy(const Plan& plan, int rank);

// Pure: one rank's GPU ids as text for the gather ("0 1 3 "), and the union
// of every rank's, ascending; an id outside 0..kMaxGpuId (core/Topology.h) is
// dropped (the DCGM parser gives none: a row naming one is dcgm_bad_row).
std::string encodeGpuIds(const std::set<int64_t>& ids);
std::vector<int64_t> mergeGpuIds(const std::vector<std::string>& encoded);

}  // namespace xstack
