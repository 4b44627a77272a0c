// The analyses of `xstack report` (docs/ANALYSIS.md), driven through the
// registry (analysis/AnalysisRegistry.h), naming none of them: every rank has
// run each registered analysis' per-rank part on each profile it read
// (ProfileReading, LocalInput::analyses). mergeAnalyses makes each analysis' job
// part and merges (collective) before the traces are planned, so the ranks the
// analyses want shown are displayed and each affected trace carries their
// annotations (annotationsFor); writeAnalyses then has rank 0 write every
// analysis' files to temporaries that are committed together with the traces
// (OutputCommit): one run's set, or the earlier one.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "xstack/analysis/Analysis.h"
#include "xstack/cmd/report/ProfileReading.h"
#include "xstack/comm/Comm.h"
#include "xstack/core/Status.h"
#include "xstack/io/AtomicFile.h"
#include "xstack/render/TraceEvents.h"

namespace xstack {

// Every registered analysis' job part, indexed like registeredAnalyses().
struct JobAnalyses {
  std::vector<std::unique_ptr<AnalysisJob>> jobs;
};

// This MPI rank's finished parts of analysis `index` (LocalInput::analyses),
// in `local`'s order; views into `local`.
std::vector<RankPart> rankParts(const std::vector<LocalInput>& local, size_t index);

// collective: every rank calls it after the read stage, with its own inputs.
JobAnalyses mergeAnalyses(Comm& comm, const std::vector<LocalInput>& local,
                          const AnalysisJobOptions& options);

// Rank 0: the training ranks any analysis wants shown in detail, sorted, once each.
std::vector<int64_t> ranksToShow(const JobAnalyses& analyses);

// Rank 0: every analysis' annotations of trace file (group, gpu), on one
// process `pid` of their own (after the file's last row), as format-neutral
// rows every trace writer renders; empty when none concerns that file.
// `originNs`: the traces' time origin.
TraceExtraRows annotationsFor(const JobAnalyses& analyses, int64_t group, int64_t gpu, int64_t pid,
                              uint64_t originNs);

struct AnalysisResult {
  Status written;                  // rank 0: every analysis' files; ok elsewhere
  std::vector<std::string> lines;  // rank 0: the terminal summary
};

// collective (every rank, after mergeAnalyses): each analysis' write in
// registry order (AnalysisJob::write). Rank 0 appends every analysis' files,
// finished, to `files` (all, or none and the first error in `written`), for
// OutputCommit, and returns the summary lines. `out.files` and `out.lines`
// are set here.
AnalysisResult writeAnalyses(Comm& comm, JobAnalyses& analyses,
                             const std::vector<LocalInput>& local, AnalysisOutput out,
                             std::vector<AtomicFile>& files);

}  // namespace xstack
