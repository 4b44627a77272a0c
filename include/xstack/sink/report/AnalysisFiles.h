// The analysis' output forms (docs/ANALYSIS.md): steps.csv, findings.json,
// report.html and the terminal summary, rendered from the analysis' tables.
// Deterministic bytes: no host names or paths.
#pragma once

#include <string>
#include <vector>

#include "xstack/analysis/Findings.h"

namespace xstack {

std::string stepsCsv(const std::vector<RankTable>& tables, const Topology& topology,
                     uint64_t originNs);
std::string findingsJson(const JobAnalysis& a, const Topology& topology);
std::string reportHtml(const std::vector<RankTable>& tables, const JobAnalysis& a,
                       const Topology& topology);
// At most 10 lines for the terminal.
std::vector<std::string> terminalSummary(const JobAnalysis& a, const Topology& topology);

}  // namespace xstack
