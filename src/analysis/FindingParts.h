// Parts the finding rules share (Findings.cpp: the step rule; RoleFindings.cpp:
// the role and network rules), internal to the analysis library.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "xstack/analysis/Findings.h"

namespace xstack::finding {

// Ranks found slow together: one rank, or every rank of one trainer with the
// same slow steps (a node).
struct Group {
  std::vector<int64_t> ranks;
  std::vector<size_t> tables;
  std::vector<int64_t> steps;
  bool persistent = false;  // slow in >= 3/4 of its steps
  int64_t trainer = -1;     // >= 0: every rank of this trainer
};

// The groups of the slow (table -> steps) cells: a trainer whose every rank
// is slow, persistently or in the same steps, is one group; other ranks one each.
std::vector<Group> groupByTrainer(std::map<size_t, std::vector<int64_t>> slowSteps,
                                  const std::vector<RankTable>& tables, const Topology& topo);

uint64_t medianOf(std::vector<uint64_t> v);               // the median (mean of the middle two)
std::string rankList(const std::vector<int64_t>& ranks);  // "1, 5, 9"
std::string fmt(const char* f, double v);                 // snprintf of one double
// "data-loader op", "sync" or "CPU op", by the op's name.
std::string hostOpKindOf(const std::string& name);
// Whether a finding of `known` names one of `ranks`.
bool coveredBy(const std::vector<int64_t>& ranks, const std::vector<Finding>& known);
// f.traceFiles from f.ranks: traceFile_<group>_<gpu><suffix>, sorted, once each.
void nameTraceFiles(Finding& f, const Topology& topo, const std::string& traceSuffix);

}  // namespace xstack::finding
