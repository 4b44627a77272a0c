// Findings over the gathered step tables of every rank (docs/ANALYSIS.md).
//
// Straggler (kind "straggler"): a rank that reaches a step's last collective
// later than the others while they wait in it. In step n (at least 4 ranks,
// every one with a collective in n): collectives end together, so a late
// rank's last collective is the shortest; late(r, n) = median_n(last_comm) -
// last_comm(r, n) (ns, skew-free: one clock per rank). r is late in n when
//   late(r, n) >= max(5 * sigma_n, 5 * sigma_job, 2 % of the median step time),
//   sigma_job = 1.4826 * median over all (rank, step) of |last_comm - step median|,
//   sigma_n = 1.4826 * MAD of the step's last_comm (robust: one late rank
//   moves neither). Without a collective in every rank of the step, the
//   compute rule: compute(r, n) >= median_n * max(1.05, 1 + 5 sigma_n / median_n).
// Also late: in each step where late(r, n) > 0, a rank whose median
// lateness over its steps (>= 4) is >= max(3 sigma_job, 2 % of the median
// step time): small but persistent.
// A rank late in >= 3/4 of its steps is persistent ("steps": "all"), else
// transient (the steps listed). Ranks of one trainer with the same steps
// that cover every GPU of that trainer are one finding (a slow node).
// Cost of a finding in step n: how much later its ranks reach the last
// collective than the latest rank not late in n; score = cost / the job's
// step time (sum of step medians). Findings with score < kMinScore go to
// JobAnalysis::belowThreshold.
// Cause: over its late steps, the largest excess over the step median of
//   compute_ns ("compute"), host_idle_ns ("host": the GPU idles before the
//   collective, launches come late) and memcpy_ns ("memcpy"); ties in that order.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "xstack/analysis/JobBoard.h"
#include "xstack/analysis/StepTable.h"
#include "xstack/core/Topology.h"

namespace xstack {

struct Finding {
  std::string kind;  // "straggler"
  std::vector<int64_t> ranks;
  std::vector<int64_t> steps;  // the slow steps (all of them when allSteps)
  bool allSteps = false;
  int64_t trainer = -1;  // >= 0 when the finding is one whole trainer
  std::string node;      // that trainer's node (Topology::nodeOf), for findings.json
  double score = 0;      // cost / job step time
  uint64_t costNs = 0;
  // A sum of its ns (cost, evidence) passed 2^63 - 1 and was held there (sum_saturated).
  bool saturatedSum = false;
  double computeRatio = 0;    // mean compute / step median over the slow steps
  uint64_t othersWaitNs = 0;  // mean per slow step: other ranks' comm minus this one's
  int64_t stepsOfRank = 0;    // steps the rank(s) have
  std::string evidence;       // one sentence, deterministic, ending "; see <trace files>"
  // The same without the trace files: what the traces' finding instants say,
  // so a trace's bytes do not depend on which formats the run writes.
  std::string evidenceInTrace;
  std::string cause;    // "compute", "host" or "memcpy"
  uint64_t lateNs = 0;  // mean per late step: arrival after the median rank
  // Means per late step of the finding's ranks, and of the step medians (ns).
  uint64_t computeNs = 0, computeMedianNs = 0;
  uint64_t hostIdleNs = 0, hostIdleMedianNs = 0;
  uint64_t memcpyNs = 0, memcpyMedianNs = 0;
  // Cause host: what the host did in the GPU's longest idle gap when it
  // explains the extra idle time against the median rank (empty otherwise):
  // op name, kind ("data-loader op", "sync", "CPU op"), mean overlap per late
  // step with these ranks' longest gap and with the median rank's (ns).
  std::string hostOp, hostOpKind;
  uint64_t hostOpNs = 0, hostOpMedianNs = 0;
  // The trace files that show its ranks in detail (traceFile_<group>_<gpu>.json,
  // .pftrace with --format perfetto): `xstack report` displays every rank a
  // finding names whatever --display-size says.
  std::vector<std::string> traceFiles;
};

// A finding costs at least this part of the job's step time, or it is
// below threshold (findings.json's below_threshold, not shown).
constexpr double kMinScore = 0.01;

// Lateness floors, as parts of the median step time: one step's rule
// (kStepFloor) and the persistent rule over the steps (kPersistentFloor).
constexpr double kStepFloor = 0.02;
constexpr double kPersistentFloor = 0.02;

struct KernelSpread {
  std::string name;         // empty when the tables came without names (withoutKernelNames)
  uint64_t nameDigest = 0;  // KernelTotal::nameDigest: whom to ask for the name
  uint64_t medianNs = 0, slowestNs = 0;  // per-rank total over the run
  int64_t slowestRank = 0;
  int64_t ranks = 0;
};

constexpr size_t kKernelSpreadShown = 8;

// The spread of a kernel: slowest - median (ns).
uint64_t spreadOf(const KernelSpread& k);
// Sorts `v` by spread descending, then name, then digest.
void orderKernelSpread(std::vector<KernelSpread>& v);
// In `v` ordered by spread: the first kKernelSpreadShown and every later one
// with the same spread as the last of them (their count).
size_t kernelSpreadCut(const std::vector<KernelSpread>& v);

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
  std::vector<Finding> findings;        // most costly first, score >= kMinScore
  std::vector<Finding> belowThreshold;  // the others, most costly first
  uint64_t idealSavingNs = 0;           // every straggler at the median
  // Sums of ns held at 2^63 - 1 (docs/FORMAT.md "Sums that would overflow"; sum_saturated):
  // the job's step time, the ideal saving, and each finding with saturatedSum, 1 each.
  uint64_t saturatedSums = 0;
  // The kKernelSpreadShown non-collective kernels in the top lists of >= 2
  // ranks with the largest spread (slowest - median), ties by name
  // (orderKernelSpread). When the tables came without names (rank 0's
  // gather), also every kernel whose spread equals the last one's, numbers
  // only: rank 0 names them and keeps the first by name (cmd/report/AnalysisGather.cpp).
  std::vector<KernelSpread> kernelSpread;
  std::vector<StepVariation> stepVariation;
  std::vector<std::pair<int64_t, uint64_t>> memoryPeaks;  // (rank, bytes), largest first
  uint64_t memoryPeakMedian = 0;
  // Per step: the cross-rank median compute (for the heatmap).
  std::vector<uint64_t> stepComputeMedian;
  // Ranks with a profile but no step (no forward span): not in the step
  // analysis (their collectives still are), named in findings.json.
  std::vector<int64_t> ranksWithoutSteps;
  // Steps (by number) some ranks with steps lack: (step, those ranks), by
  // step; each step is analysed over the ranks that have it.
  std::vector<std::pair<int64_t, std::vector<int64_t>>> stepGaps;
};

// `tables` ordered by rank (one per rank with a profile). Findings name the
// trace files of their ranks as traceFile_<k>_<g><traceSuffix> (the first
// --format's file, e.g. ".json", ".pftrace", ".json.gz").
// `board`: the other analyses' products (the collectives' roles and summary
// for the peer rule and the network finding); empty = the step rule alone.
JobAnalysis analyzeJob(const std::vector<RankTable>& tables, const Topology& topology,
                       const std::string& traceSuffix = ".json", const JobBoard& board = {});

// "12.345 ms"-style, fixed decimals (deterministic).
std::string formatMs(uint64_t ns);

}  // namespace xstack
