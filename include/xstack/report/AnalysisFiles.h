// The analysis' output forms (docs/ANALYSIS.md): steps.csv, ranks.csv,
// kernels.csv, findings.json, report.html and the terminal summary, rendered from the analysis'
// tables. Deterministic bytes: no host names or paths.
#pragma once

#include <string>
#include <vector>

#include "xstack/analysis/Findings.h"
#include "xstack/analysis/GpuActivity.h"

namespace xstack {

std::string stepsCsv(const std::vector<RankTable>& tables, const Topology& topology,
                     uint64_t originNs);
// One row per table (ordered as given: by rank), HTA's breakdown.
std::string ranksCsv(const std::vector<RankTable>& tables, const Topology& topology);
// kernels.csv is written one rank at a time: its header line, then each
// rank's rows (`kernels` ordered by name), ranks in increasing order.
std::string kernelsCsvHeader();
void appendKernelsCsvRows(std::string& out, int64_t rank, const std::vector<KernelStat>& kernels);
// `field` as one CSV field (RFC 4180) after the text outputs' rule
// (visibleText: valid UTF-8, no control character but TAB, CR, LF): in
// double quotes, with each quote doubled, when it then contains a comma, a
// quote, CR or LF; as is otherwise.
void appendCsvField(std::string& out, std::string_view field);
std::string findingsJson(const JobAnalysis& a, const Topology& topology);
// `toolVersion` (xstack, git, protobuf, MPI; empty: none) and `commandLine`
// (empty: none) are shown at the top. From `board` (null members: section not
// shown): "Who waits for whom" and the collectives table (collectives and
// collectiveRanks, when the summary has a group), the critical-path share per
// rank (criticalShares, when not empty). A pure function of its arguments.
std::string reportHtml(const std::vector<RankTable>& tables, const JobAnalysis& a,
                       const Topology& topology, const std::string& toolVersion = "",
                       const std::string& commandLine = "", const JobBoard& board = {});
// At most 10 lines for the terminal.
std::vector<std::string> terminalSummary(const JobAnalysis& a, const Topology& topology);

}  // namespace xstack
