// The findings of jobs with several process groups (docs/ANALYSIS.md "Role
// rule", "Network rule"), from the step tables and the collectives' products.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "xstack/analysis/Findings.h"
#include "xstack/analysis/JobBoard.h"

namespace xstack {

// Role rule: per role (ranks with the same collectives, RankInfo::role; at
// least 3 ranks), a (rank, step) is slow when its compute, idle or memcpy
// ns exceeds the role's median of that step by max(5 sigma, kStepFloor of
// `stepMedian` of that step). Ranks that a `known` finding names are left
// out. Evidence without the trace files (the caller names them).
std::vector<Finding> roleFindings(const std::vector<RankTable>& tables, const Topology& topo,
                                  const JobBoard& board,
                                  const std::map<int64_t, uint64_t>& stepMedian, uint64_t jobStepNs,
                                  const std::vector<Finding>& known);

// Network rule: the node whose cross-node transfers take >= 1.4x the same
// (collective, bytes, members) elsewhere, the most excess time first; at
// most one finding, cause "network", every rank of that node.
std::vector<Finding> networkFindings(const std::vector<RankTable>& tables, const Topology& topo,
                                     const JobBoard& board, uint64_t jobStepNs,
                                     const std::string& traceSuffix);

}  // namespace xstack
