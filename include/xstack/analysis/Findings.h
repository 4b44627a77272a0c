// Findings over the gathered step tables of every rank (docs/ANALYSIS.md).
//
// Straggler (kind "straggler"): in step n, rank r is slow when
//   compute(r, n) / median_n >= threshold_n, threshold_n = max(1.05, 1 + 5 * sigma_n / median_n),
//   sigma_n = 1.4826 * MAD of the step's compute times (robust: one slow rank
//   moves neither), with at least 4 ranks in the step, and r reaches the
//   step's last collective no earlier than the median rank (when the step has
//   collectives). Step length is never used: in synchronous training it is
//   the same on every rank.
// A rank slow in >= 3/4 of its steps is persistent ("steps": "all"), else
// transient (the steps listed). Ranks of one trainer with the same steps
// that cover every GPU of that trainer are one finding (a slow node).
// Cost of a finding in step n: how much later its ranks reach the last
// collective than the latest rank not slow in n (compute time when there is
// no collective); score = cost / the job's step time (sum of step medians).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "xstack/analysis/StepTable.h"
#include "xstack/core/Topology.h"

namespace xstack {

struct Finding {
  std::string kind;  // "straggler"
  std::vector<int64_t> ranks;
  std::vector<int64_t> steps;  // the slow steps (all of them when allSteps)
  bool allSteps = false;
  int64_t trainer = -1;  // >= 0 when the finding is one whole trainer
  double score = 0;      // cost / job step time
  uint64_t costNs = 0;
  double computeRatio = 0;    // mean compute / step median over the slow steps
  uint64_t othersWaitNs = 0;  // mean per slow step: other ranks' comm minus this one's
  int64_t stepsOfRank = 0;    // steps the rank(s) have
  std::string evidence;       // one sentence, deterministic
};

struct KernelSpread {
  std::string name;
  uint64_t medianNs = 0, slowestNs = 0;  // per-rank total over the run
  int64_t slowestRank = 0;
  int64_t ranks = 0;
};

struct StepVariation {
  int64_t step = 0;
  uint64_t medianStepNs = 0;
  double relative = 0;  // median step time / median over steps
};

struct JobAnalysis {
  int64_t ranks = 0, steps = 0;
  uint64_t jobStepNs = 0;  // sum over steps of the cross-rank median step time
  uint64_t medianStepNs = 0, minStepNs = 0, maxStepNs = 0;  // of the step medians
  // Median rank's per-step means: compute, comm, memcpy, idle, overlap.
  uint64_t breakdownNs[5] = {0, 0, 0, 0, 0};
  std::vector<Finding> findings;  // most costly first
  uint64_t idealSavingNs = 0;     // every straggler at the median
  std::vector<KernelSpread> kernelSpread;
  std::vector<StepVariation> stepVariation;
  std::vector<std::pair<int64_t, uint64_t>> memoryPeaks;  // (rank, bytes), largest first
  uint64_t memoryPeakMedian = 0;
  // Per step: the cross-rank median compute (for the heatmap).
  std::vector<uint64_t> stepComputeMedian;
};

// `tables` ordered by rank (one per rank with a profile).
JobAnalysis analyzeJob(const std::vector<RankTable>& tables, const Topology& topology);

// "12.345 ms"-style, fixed decimals (deterministic).
std::string formatMs(uint64_t ns);

}  // namespace xstack
