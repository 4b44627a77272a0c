// `xstack report`: the driver. The stages are in ReportStages.h, one file each.
#include "xstack/cmd/report/Report.h"

#include <cstdio>

#include "xstack/cmd/report/ReportOutputs.h"
#include "xstack/cmd/report/stages/ReportStages.h"
#include "xstack/core/TerminalText.h"
#include "xstack/transport/StageTimes.h"
#include "xstack/transport/TypedMessages.h"

namespace xstack {
namespace {

// collective: rank 0 prints every rank's stage times (display only: a
// gathered message that does not decode is printed as such, the run goes on).
void printTimings(Comm& comm, const StageClock& clk) {
  Expected<std::vector<StageTimes>> all =
      allgatherTyped(comm, stageTimesOf(clk), "the timings", writeStageTimes, readStageTimes);
  if (comm.rank() != 0) return;
  if (!all) {
    std::fprintf(stderr, "xstack: timings: %s\n", terminalSafe(all.error().message).c_str());
    return;
  }
  for (size_t r = 0; r < all->size(); ++r) {
    std::string line;
    double wall = 0, cpu = 0;
    char buf[96];
    for (const StageTime& t : (*all)[r].stages) {
      std::snprintf(buf, sizeof buf, " %s %.3f/%.3f", t.stage.c_str(), t.wallSeconds, t.cpuSeconds);
      line += buf;
      wall += t.wallSeconds;
      cpu += t.cpuSeconds;
    }
    std::string counts;
    for (const auto& [name, n] : (*all)[r].counts) counts += "; " + name + " " + std::to_string(n);
    std::fprintf(stderr, "xstack: timings rank %zu (wall/cpu s):%s total %.3f/%.3f%s\n", r,
                 line.c_str(), wall, cpu, counts.c_str());
  }
}

// Prints the failure that ended the run (rank 0) and returns its exit code.
int fail(ReportRun& run, const Failure& f) {
  run.removeCreatedOutDirs();
  run.log(f.kind == FailureKind::Usage ? f.message : "fatal: " + f.message);
  return exitCodeFor(f.kind);
}

}  // namespace

ReportRun::ReportRun(Comm& c, const ReportOptions& o, StageClock& clk)
    : comm(c),
      options(o),
      clock(clk),
      progress(stderr, c.rank() == 0 && o.progress),
      start(std::chrono::steady_clock::now()),
      outCommit(isReportOutputName) {}

// Every line goes through terminalSafe: paths and names from the inputs cannot
// reach the terminal with control bytes.
void ReportRun::log(const std::string& line) const {
  if (root()) std::fprintf(stderr, "xstack: %s\n", terminalSafe(line).c_str());
}

namespace {

// The stages after the topology is final: the analysis files and the traces,
// committed together; the summary's exit code.
int renderAndWrite(ReportRun& run, const ListedInputs& listed, const PlannedInputs& planned,
                   std::vector<LocalInput>& local, GatheredSummaries& gathered,
                   JobAnalyses* analysed, const Topology& topology) {
  RenderPlan render = renderPlanStage(run, planned.plan, gathered, local, topology);
  attachAnalysisTracks(analysed, render);
  attachFindingEvents(analysed, render);
  std::vector<AtomicFile> analysisFiles;  // rank 0: committed with the traces
  AnalysisResult analysis = writeAnalysisStage(run, analysed, local, render, analysisFiles);
  Expected<WriteResult> written = writeTracesStage(run, render, analysisFiles);
  if (!written.ok()) return fail(run, written.error());
  if (run.options.timings) printTimings(run.comm, run.clock);
  return summaryStage(run, gathered, *written, render.context.job.shape, analysis,
                      listed.listingFailed || !planned.plan.badPaths.empty());
}

// From the agreed options to the exit code.
int runStages(ReportRun& run) {
  if (Status locked = lockOutputStage(run); !locked.ok()) return fail(run, locked.error());
  Expected<ListedInputs> listed = listInputsStage(run);
  if (!listed.ok()) return fail(run, listed.error());
  Expected<PlannedInputs> planned = planStage(run, *listed);
  if (!planned.ok()) return fail(run, planned.error());
  const Plan& plan = planned->plan;
  const Topology& readTopology = planned->topology.topology;
  Expected<std::vector<LocalInput>> local = readInputsStage(run, plan, readTopology);
  if (!local.ok()) return fail(run, local.error());
  Expected<GatheredSummaries> gathered = gatherSummariesStage(run, *local);
  if (!gathered.ok()) return fail(run, gathered.error());
  if (Status readable = noReadableInputCheck(*gathered); !readable.ok())
    return fail(run, readable.error());
  Expected<Topology> topology =
      topologyStage(run, planned->topology, *gathered, listed->declaredWorldSize);
  if (!topology.ok()) return fail(run, topology.error());
  std::unique_ptr<JobAnalyses> analysed = analyseStage(run, *local, *topology);
  Expected<Topology> finalTopology = findingDisplayStage(run, analysed.get(), *topology);
  if (!finalTopology.ok()) return fail(run, finalTopology.error());
  if (Status settled =
          settleDisplayStage(run, plan, readTopology, *finalTopology, *local, *gathered);
      !settled.ok())
    return fail(run, settled.error());
  return renderAndWrite(run, *listed, *planned, *local, *gathered, analysed.get(), *finalTopology);
}

}  // namespace

int runReport(Comm& comm, const ReportOptions& opt, StageClock* clock) {
  StageClock ownClock;
  StageClock& clk = clock ? *clock : ownClock;
  Expected<ReportOptions> agreed = agreeOptionsStage(comm, opt, clk);
  ReportRun run(comm, agreed.ok() ? *agreed : opt, clk);
  if (!agreed.ok()) return fail(run, Failure::usage(agreed.error().message));
  comm.setChunkBytes(run.options.mpiChunkBytes);
  return runStages(run);
}

}  // namespace xstack
