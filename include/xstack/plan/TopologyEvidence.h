// What the inputs say about the topology, for inferGpusPerTrainer: the
// planned files, and, only when they cannot tell P by their names (no time
// files, no --gpus-per-trainer), the GPU ids of the DCGM rows. The pure parts
// of gathering it; the report's plan stage reads the DCGM files and gathers the
// ids (cmd/report/PlanExchange.h).
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

// Pure: one rank's GPU ids as the gather's message (wire/Wire.h), and the
// union of every rank's (encoded[r] from rank r), ascending; an id outside
// 0..kMaxGpuId (core/Topology.h) is dropped (the DCGM parser gives none: a
// row naming one is dcgm_bad_row). A message that does not decode is an Error
// naming its rank, the same on every rank that merges the same messages.
std::string encodeGpuIds(const std::set<int64_t>& ids);
Expected<std::vector<int64_t>> mergeGpuIds(const std::vector<std::string>& encoded);

}  // namespace xstack
