// The stages of `xstack report`, in order (runReport in Report.cpp calls them):
//
//   agreeOptionsStage     AgreeOptionsStage.cpp     collective: the options that must agree
//                                                   do, else rc 2 naming them
//   listInputsStage       ListInputsStage.cpp       each rank lists the folders it sees
//   planStage             PlanStage.cpp             collective: who reads which file; checks
//   readInputsStage       ReadInputsStage.cpp       each rank reads its files (ReadStage.cpp)
//   gatherSummariesStage  GatherSummariesStage.cpp  collective: every rank learns every summary
//   noReadableInputCheck  GatherSummariesStage.cpp  no profile read at all: rc 2 naming them
//   topologyStage         TopologyStage.cpp         inputs whose traces tell the topology
//                                                   (JSON): --gpus-per-trainer from every
//                                                   rank's GPU device when nothing else told
//                                                   it (the ranks whose display changes read
//                                                   again, collective), else checked against
//                                                   them
//   analyseStage          AnalyseStage.cpp          collective: every registered analysis'
//                                                   job part merges the ranks' parts, e.g.
//                                                   findings (app/AnalysisStage.h)
//   showFindingRanksStage AnalyseStage.cpp          collective: the ranks the analyses name
//                                                   are displayed whatever --display-size
//                                                   (their profiles summarized again, the
//                                                   summaries gathered again)
//   renderPlanStage       RenderPlanStage.cpp       the model of the outputs: files, chunks,
//                                                   who renders what, time origin (pure)
//   attachFindingEvents   AnalyseStage.cpp          the analyses' annotations (the findings'
//                                                   instants) into the traces
//   writeAnalysisStage    AnalyseStage.cpp          collective: rank 0 writes every analysis'
//                                                   files (steps.csv, ranks.csv, kernels.csv,
//                                                   findings.json, report.html) to
//                                                   temporaries, committed with the traces
//   writeTracesStage      WriteTracesStage.cpp      render -> gather -> write (WriteStage.cpp),
//                                                   then commit (traces + analysis), collective
//   summaryStage          SummaryStage.cpp          rank 0's end-of-run lines; the exit code
//
// Every stage takes the run (comm, options, clock, progress) and typed
// values, and returns typed values; a stage that ends the run returns a
// Failure (core/Failure.h) in an Expected, which the driver prints and maps
// to the exit code.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "xstack/app/AnalysisStage.h"
#include "xstack/app/Progress.h"
#include "xstack/app/ReadStage.h"
#include "xstack/app/Report.h"
#include "xstack/app/WriteStage.h"
#include "xstack/core/Failure.h"
#include "xstack/core/Status.h"
#include "xstack/io/OutputCommit.h"
#include "xstack/plan/OutputPlan.h"
#include "xstack/plan/Plan.h"
#include "xstack/plan/TopologyInference.h"
#include "xstack/sink/TraceFileWriter.h"

namespace xstack {

// What every stage may use: the communicator, the options, the stage clock,
// the progress line and rank 0's log.
struct ReportRun {
  ReportRun(Comm& comm, const ReportOptions& options, StageClock& clock);
  Comm& comm;
  // The effective options: a copy of the given ones, where planStage puts the
  // --gpus-per-trainer it inferred from the inputs (plan/TopologyInference.h).
  ReportOptions options;
  StageClock& clock;
  Progress progress;
  std::chrono::steady_clock::time_point start;
  OutputCommit outCommit;  // rank 0: the --out folder's lock, held to the end of the run
  // The format of the inputs, the same on every rank (listInputsStage).
  const Source* source = nullptr;
  // How planStage settled options.topology.gpusPerTrainer (topologyStage, when
  // only the traces' GPU devices can tell it: gpusPerTrainerAfterRead).
  GpusPerTrainerSource gpusPerTrainerSource = GpusPerTrainerSource::Assumed;
  bool gpusPerTrainerAfterRead = false;
  bool root() const { return comm.rank() == 0; }
  // Rank 0 only: "xstack: <line>" on stderr.
  void log(const std::string& line) const;
};

struct ListedInputs {
  InputDirs dirs;
  InputListing listing;
  bool listingFailed = false;       // this rank's listing threw: it contributes no files
  int64_t declaredWorldSize = 0;    // the largest world size any rank's files declare (0: none)
  int64_t declaredVisibleGpus = 0;  // the most GPUs any rank's traces saw (0: none say)
  // Files in the input folders that are no input (each host's counted once),
  // hidden ones apart, and the first few of them.
  uint64_t ignoredFiles = 0, hiddenFiles = 0;
  std::vector<std::string> ignoredExamples;
};

struct GatheredSummaries {
  std::vector<InputSummary> all;  // every rank's summaries, in rank order
  size_t firstLocal = 0;          // index in `all` of this rank's first summary
};

struct RenderPlan {
  std::vector<OutputFile> outputs;
  WriteContext context;
};

// collective, the run's first, before comm.setChunkBytes: every rank's
// outputs-shaping options (OptionAgreement.h) against every other's; an error
// naming each option that differs, its values and ranks. Sets
// run.options.timings to rank 0's (display-only).
Status agreeOptionsStage(ReportRun& run);
// collective: every rank lists its folders with the source that finds
// inputs there; all ranks agree on one source (run.source). Usage failures:
// two formats, or inputs to fix (e.g. a trace without a rank).
Expected<ListedInputs> listInputsStage(ReportRun& run);
Expected<Plan> planStage(ReportRun& run, const ListedInputs& listed);
Expected<std::vector<LocalInput>> readInputsStage(ReportRun& run, const Plan& plan);
// The read options of this run (analysis, source, --memory-mb/--spill-dir) for
// `topology`: every read of the run, first or again, takes them from here.
ReadOptions readOptionsOf(const ReportRun& run, const Topology& topology);
// collective; a summary that does not decode fails the run on every rank alike
// (each rank decodes every rank's bytes).
Expected<GatheredSummaries> gatherSummariesStage(ReportRun& run,
                                                 const std::vector<LocalInput>& local);
// Pure over the gathered summaries (the same on every rank): when no profile
// was read (every one failed), a usage Failure (exit 2) naming them.
Status noReadableInputCheck(const GatheredSummaries& gathered);
// Over the gathered summaries (the same on every rank): when
// run.gpusPerTrainerAfterRead, --gpus-per-trainer from the traces' GPU
// devices; when it changes, the profiles of `local` whose display changes
// are read again and the summaries gathered again (collective, alike on
// every rank). A contradicted --gpus-per-trainer is a usage Failure (exit 2)
// on every rank alike. `worldSize`: the job's ranks as the files declare them.
Status topologyStage(ReportRun& run, const Plan& plan, std::vector<LocalInput>& local,
                     GatheredSummaries& gathered, int64_t worldSize);
RenderPlan renderPlanStage(ReportRun& run, const Plan& plan, const GatheredSummaries& gathered,
                           std::vector<LocalInput>& local);
// collective: every registered analysis' job part, merged; null (and no
// findings in the traces) with --no-analysis.
std::unique_ptr<JobAnalyses> analyseStage(ReportRun& run, const std::vector<LocalInput>& local);
// collective (rank 0's list of the undisplayed ranks the analyses want shown,
// to every rank): puts them in run.options.topology.shownRanks, reads their
// profiles again as displayed ones (rows, row warnings) and gathers the
// summaries again into `gathered`. Nothing when there is no such rank.
Status showFindingRanksStage(ReportRun& run, const JobAnalyses* analysed, const Plan& plan,
                             std::vector<LocalInput>& local, GatheredSummaries& gathered);
// Sets render.context.extraEvents so each affected trace carries the
// analyses' annotations (the findings' instants). `analysed` outlives render.
void attachFindingEvents(const JobAnalyses* analysed, RenderPlan& render);
// collective (e.g. kernels.csv's tables go to rank 0): rank 0's analysis
// files' temporaries (appended to `files`) and the terminal summary (no-op
// without analysis).
AnalysisResult writeAnalysisStage(ReportRun& run, JobAnalyses* analysed,
                                  const std::vector<LocalInput>& local, const RenderPlan& render,
                                  std::vector<AtomicFile>& files);
// collective: writes the traces, then commits them together with `extraFiles`
// (rank 0: the analysis files; removed, never committed, if a trace fails).
Expected<WriteResult> writeTracesStage(ReportRun& run, RenderPlan& render,
                                       std::vector<AtomicFile>& extraFiles);
// Returns the exit code: kExitOk, or kExitPartial when an input or a chunk
// had a problem (on any rank).
int summaryStage(ReportRun& run, const GatheredSummaries& gathered, const WriteResult& written,
                 const JobShape& shape, const AnalysisResult& analysis, bool inputFailed);

}  // namespace xstack
