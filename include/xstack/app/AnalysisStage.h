// The analysis stage of `xstack report` (docs/ANALYSIS.md): every MPI rank
// has built the step table of each profile it read (ReadStage, for every rank
// of the job, displayed or not). gatherAnalysis sends the encoded tables to
// rank 0 (point to point, O(ranks x steps) bytes), which computes the
// findings before the traces are written (so each affected trace carries
// them as instant events, findingEventsFor); writeAnalysis then writes
// steps.csv, ranks.csv, kernels.csv, findings.json and report.html to
// temporaries that are committed together with the traces (OutputCommit):
// one run's set, or the earlier one.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "xstack/app/ReadStage.h"
#include "xstack/comm/Comm.h"
#include "xstack/core/Status.h"
#include "xstack/io/AtomicFile.h"
#include "xstack/sink/TraceEvents.h"

namespace xstack {

struct GatheredAnalysis;  // rank 0: every rank's step table and the findings
struct GatheredAnalysisDeleter {
  void operator()(GatheredAnalysis* g) const;
};
using GatheredAnalysisPtr = std::unique_ptr<GatheredAnalysis, GatheredAnalysisDeleter>;

// Rank 0: the ranks the findings (not those below threshold) name, sorted,
// once each; empty without an analysis.
std::vector<int64_t> findingRanks(const GatheredAnalysis* g);

struct AnalysisResult {
  Status written;                  // rank 0: the five files; ok elsewhere
  std::vector<std::string> lines;  // rank 0: the terminal summary (<= 10 lines)
};

// collective: every rank calls it after the read stage, with its own inputs;
// returns the gathered analysis on rank 0, null elsewhere.
// `traceSuffix`: of the trace files the findings name (analyzeJob).
GatheredAnalysisPtr gatherAnalysis(Comm& comm, const std::vector<LocalInput>& local,
                                   const Topology& topology, const std::string& traceSuffix);

// Rank 0: the findings' instant events for trace file (group, gpu), on a
// process `pid` of their own (after the file's last row), as format-neutral
// rows every trace writer renders; empty when no finding concerns a
// rank of that file. One event per (finding, rank of the file, slow step),
// at the step's start, thread = rank. `originNs`: the traces' time origin.
TraceExtraRows findingEventsFor(const GatheredAnalysis* g, int64_t group, int64_t gpu, int64_t pid,
                                uint64_t originNs);

// collective (every rank, after gatherAnalysis): rank 0 writes steps.csv,
// ranks.csv, findings.json and report.html to temporaries, then kernels.csv,
// asking each training rank's reader (point to point, in rank order, one
// table at a time) for its kernel table and writing its rows before the
// next; the other ranks answer until rank 0 releases them (an empty
// request, always sent). Rank 0 appends the five files, finished, to
// `files` (all, or none and an error in `written`), for OutputCommit, and
// returns the summary. `originNs`: steps.csv start_ns is relative to it.
// `outDir`: rank 0's locked --out (OutputCommit::folder()).
AnalysisResult writeAnalysis(Comm& comm, const GatheredAnalysis* g,
                             const std::vector<LocalInput>& local, uint64_t originNs,
                             const Folder& outDir, bool fsync, std::vector<AtomicFile>& files);

}  // namespace xstack
