// The stages of `xstack report`, in order (runReport in Report.cpp calls them):
//
//   agreeOptionsStage     AgreeOptionsStage.cpp     collective: the options that must agree
//                                                   do, else rc 2 naming them; the run's
//                                                   options are read-only from here on
//   lockOutputStage       LockOutputStage.cpp       collective: rank 0 creates and locks --out
//                                                   before any rank lists or reads an input
//   listInputsStage       ListInputsStage.cpp       each rank lists the folders it sees
//   planStage             PlanStage.cpp             collective: who reads which file; the
//                                                   topology as far as the listing tells it
//   readInputsStage       ReadInputsStage.cpp       each rank reads its files (ProfileReading.cpp)
//   gatherSummariesStage  GatherSummariesStage.cpp  collective: every rank learns every summary
//   noReadableInputCheck  GatherSummariesStage.cpp  no profile read at all: rc 2 naming them
//   topologyStage         TopologyStage.cpp         inputs whose traces tell the topology
//                                                   (JSON): --gpus-per-trainer from every
//                                                   rank's GPU device when nothing else told
//                                                   it, else checked against them (pure over
//                                                   the summaries: nothing is read again here)
//   analyseStage          AnalyseStage.cpp          collective: every registered analysis'
//                                                   job part merges the ranks' parts, e.g.
//                                                   findings (cmd/report/AnalysisGather.h)
//   findingDisplayStage   AnalyseStage.cpp          collective: the ranks the analyses name
//                                                   are displayed whatever --display-size
//   settleDisplayStage    SettleDisplayStage.cpp    collective: the profiles whose display
//                                                   the two stages above changed are read
//                                                   again, once, and the summaries gathered
//                                                   again, once; the topology is final
//   renderPlanStage       RenderPlanStage.cpp       the model of the outputs: files, chunks,
//                                                   who renders what, time origin (pure)
//   attachAnalysisTracks  AnalyseStage.cpp          the analyses' track processes (the
//                                                   collectives' groups) into the plan, each
//                                                   group rendered by its owner (pure)
//   attachFindingEvents   AnalyseStage.cpp          the analyses' annotations (the findings'
//                                                   instants) into the traces
//   writeAnalysisStage    AnalyseStage.cpp          collective: rank 0 writes every analysis'
//                                                   files (steps.csv, ranks.csv, kernels.csv,
//                                                   findings.json, report.html) to
//                                                   temporaries, committed with the traces
//   writeTracesStage      WriteTracesStage.cpp      render -> gather -> write (TraceWriting.cpp),
//                                                   then commit (traces + analysis), collective
//   summaryStage          SummaryStage.cpp          rank 0's end-of-run lines; the exit code
//
// Every stage takes the run (comm, the agreed options, clock, progress) and
// typed values, and returns typed values; no stage changes the options. The
// topology flows as a value: planStage's, topologyStage's (P final),
// findingDisplayStage's (the display final). A stage that ends the run
// returns a Failure (core/Failure.h) in an Expected, which the driver prints
// and maps to the exit code.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "xstack/cmd/report/AnalysisGather.h"
#include "xstack/cmd/report/ProfileReading.h"
#include "xstack/cmd/report/Progress.h"
#include "xstack/cmd/report/Report.h"
#include "xstack/cmd/report/TraceWriting.h"
#include "xstack/core/Failure.h"
#include "xstack/core/Status.h"
#include "xstack/io/OutputCommit.h"
#include "xstack/plan/OutputPlan.h"
#include "xstack/plan/Plan.h"
#include "xstack/plan/TopologyInference.h"
#include "xstack/render/TraceFileWriter.h"

namespace xstack {

// A folder lockOutputStage created for --out (--out itself or a missing
// parent), by path and identity.
struct CreatedFolder {
  std::string path;
  uint64_t device = 0;
  uint64_t inode = 0;
};

// What every stage may use: the communicator, the agreed options, the stage
// clock, the progress line and rank 0's log.
struct ReportRun {
  // `agreed`: agreeOptionsStage's result.
  ReportRun(Comm& comm, const ReportOptions& agreed, StageClock& clock);
  Comm& comm;
  // The options every rank agreed on, read-only: what the run settles from
  // the inputs (the topology) flows between the stages as values.
  const ReportOptions options;
  StageClock& clock;
  Progress progress;
  std::chrono::steady_clock::time_point start;
  OutputCommit outCommit;  // rank 0: the --out folder's lock, held to the end of the run
  // Rank 0: the folders lockOutputStage created, --out first. A run that fails
  // removes those still empty and still the same folder (removeCreatedOutDirs),
  // so a usage error or a run that found no input leaves no --out behind.
  std::vector<CreatedFolder> createdOut;
  void removeCreatedOutDirs();
  // The format of the inputs, the same on every rank: set once, by listInputsStage.
  const Source* source = nullptr;
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
  bool paddleTraces = false;        // JSON traces of Paddle's profiler (its words stay)
  // Files in the input folders that are no input (each host's counted once),
  // hidden ones apart, and the first few of them.
  uint64_t ignoredFiles = 0, hiddenFiles = 0;
  std::vector<std::string> ignoredExamples;
};

struct GatheredSummaries {
  std::vector<InputSummary> all;  // every rank's summaries, in rank order
  size_t firstLocal = 0;          // index in `all` of this rank's first summary
};

// The topology as the listing settles it (planStage): --gpus-per-trainer
// given and checked, or inferred; and how.
struct PlannedTopology {
  Topology topology;
  GpusPerTrainerSource source = GpusPerTrainerSource::Assumed;
  // Only the traces' GPU devices can tell --gpus-per-trainer (topologyStage).
  bool settledAfterRead = false;
};

struct PlannedInputs {
  Plan plan;
  PlannedTopology topology;
};

struct RenderPlan {
  std::vector<OutputFile> outputs;
  WriteContext context;
};

// collective, the run's first, before comm.setChunkBytes: every rank's
// outputs-shaping options (OptionAgreement.h) against every other's; an error
// naming each option that differs, its values and ranks. The agreed options:
// `given` with rank 0's --timings (display-only).
Expected<ReportOptions> agreeOptionsStage(Comm& comm, const ReportOptions& given,
                                          StageClock& clock);
// collective: rank 0 creates --out when missing, checks it and takes its lock
// (OutputCommit::lock: flock on the folder, so any alias of it is the same
// lock); an outputDir Failure on every rank when rank 0 cannot.
Status lockOutputStage(ReportRun& run);
// collective: every rank lists its folders with the source that finds
// inputs there; all ranks agree on one source (run.source). Usage failures:
// two formats, or inputs to fix (e.g. a trace without a rank).
Expected<ListedInputs> listInputsStage(ReportRun& run);
Expected<PlannedInputs> planStage(ReportRun& run, const ListedInputs& listed);
// Reads this rank's files under `topology` (which ranks are displayed).
Expected<std::vector<LocalInput>> readInputsStage(ReportRun& run, const Plan& plan,
                                                  const Topology& topology);
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
// Pure over the gathered summaries (the same on every rank): when
// planned.settledAfterRead, --gpus-per-trainer from the traces' GPU devices,
// else planned's checked against them; returns the topology with P final. A
// contradicted --gpus-per-trainer is a usage Failure (exit 2) on every rank
// alike. `worldSize`: the job's ranks as the files declare them. Reads
// nothing: settleDisplayStage reads again what the new P displays otherwise.
Expected<Topology> topologyStage(ReportRun& run, const PlannedTopology& planned,
                                 const GatheredSummaries& gathered, int64_t worldSize);
// `topology`: the final one (settleDisplayStage's).
RenderPlan renderPlanStage(ReportRun& run, const Plan& plan, const GatheredSummaries& gathered,
                           std::vector<LocalInput>& local, const Topology& topology);
// collective: every registered analysis' job part, merged; null (and no
// findings in the traces) with --no-analysis.
std::unique_ptr<JobAnalyses> analyseStage(ReportRun& run, const std::vector<LocalInput>& local,
                                          const Topology& topology);
// collective (rank 0's list of the undisplayed ranks the analyses want shown,
// to every rank): `topology` with those ranks in shownRanks, displayed
// whatever --display-size. Reads nothing (settleDisplayStage does).
Expected<Topology> findingDisplayStage(ReportRun& run, const JobAnalyses* analysed,
                                       const Topology& topology);
// collective: the display settles once. The profiles of `local` (read under
// `readTopology`) whose display differs under `finalTopology` are read again,
// once, and the summaries gathered again into `gathered`, once; nothing when
// no profile's display changed (the same answer on every rank). The failure
// rules of a second read: a profile displayed or hidden by a changed
// --gpus-per-trainer fails when the second read throws (its first reading has
// the other display's rows); one shown only because a finding names it keeps
// its first reading when the second is worse (it stays undisplayed); one that
// changed between the reads fails.
Status settleDisplayStage(ReportRun& run, const Plan& plan, const Topology& readTopology,
                          const Topology& finalTopology, std::vector<LocalInput>& local,
                          GatheredSummaries& gathered);
// Sets render.context.extraEvents so each affected trace carries the
// analyses' annotations (the findings' instants). `analysed` outlives render.
void attachFindingEvents(const JobAnalyses* analysed, RenderPlan& render);
// Adds the analyses' track processes (AnalysisJob::trackGroups) to the plan's
// files, and sets render.context so each group's owner renders its rows.
void attachAnalysisTracks(const JobAnalyses* analysed, RenderPlan& render);
// collective (e.g. kernels.csv's tables go to rank 0): rank 0's analysis
// files' temporaries (appended to `files`) and the terminal summary (no-op
// without analysis). Then every local input lets go of its analyses' parts
// (LocalInput::analyses, parts): nothing after the files reads them.
AnalysisResult writeAnalysisStage(ReportRun& run, JobAnalyses* analysed,
                                  std::vector<LocalInput>& local, const RenderPlan& render,
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
