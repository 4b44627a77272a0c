// `xstack report`: the driver. The stages are in ReportStages.h, one file each.
#include "xstack/app/Report.h"

#include <cstdio>

#include "xstack/app/ReportStages.h"
#include "xstack/core/TerminalText.h"

namespace xstack {
namespace {

// collective: rank 0 prints every rank's stage times.
void printTimings(Comm& comm, const StageClock& clk) {
  std::vector<std::string> all = comm.allgather(clk.encode());
  if (comm.rank() != 0) return;
  for (size_t r = 0; r < all.size(); ++r) {
    std::string line;
    double wall = 0, cpu = 0;
    char buf[96];
    for (const StageTime& t : StageClock::decode(all[r])) {
      std::snprintf(buf, sizeof buf, " %s %.3f/%.3f", t.stage.c_str(), t.wallSeconds, t.cpuSeconds);
      line += buf;
      wall += t.wallSeconds;
      cpu += t.cpuSeconds;
    }
    std::string counts;
    for (const auto& [name, n] : StageClock::decodeCounts(all[r]))
      counts += "; " + name + " " + std::to_string(n);
    std::fprintf(stderr, "xstack: timings rank %zu (wall/cpu s):%s total %.3f/%.3f%s\n", r,
                 line.c_str(), wall, cpu, counts.c_str());
  }
}

// Prints the failure that ended the run (rank 0) and returns its exit code.
int fail(const ReportRun& run, const Failure& f) {
  run.log(f.kind == FailureKind::Usage ? f.message : "fatal: " + f.message);
  return exitCodeFor(f.kind);
}

}  // namespace

ReportRun::ReportRun(Comm& c, const ReportOptions& o, StageClock& clk)
    : comm(c),
      options(o),
      clock(clk),
      progress(stderr, c.rank() == 0 && o.progress),
      start(std::chrono::steady_clock::now()) {}

// Every line goes through terminalSafe: paths and names from the inputs cannot
// reach the terminal with control bytes.
void ReportRun::log(const std::string& line) const {
  if (root()) std::fprintf(stderr, "xstack: %s\n", terminalSafe(line).c_str());
}

int runReport(Comm& comm, const ReportOptions& opt, StageClock* clock) {
  StageClock ownClock;
  ReportRun run(comm, opt, clock ? *clock : ownClock);
  if (Status agreed = agreeOptionsStage(run); !agreed.ok())
    return fail(run, Failure::usage(agreed.error().message));
  comm.setChunkBytes(opt.mpiChunkBytes);

  Expected<ListedInputs> listed = listInputsStage(run);
  if (!listed.ok()) return fail(run, listed.error());
  Expected<Plan> plan = planStage(run, *listed);
  if (!plan.ok()) return fail(run, plan.error());
  Expected<std::vector<LocalInput>> local = readInputsStage(run, *plan);
  if (!local.ok()) return fail(run, local.error());
  Expected<GatheredSummaries> gathered = gatherSummariesStage(run, *local);
  if (!gathered.ok()) return fail(run, gathered.error());
  if (Status readable = noReadableInputCheck(*gathered); !readable.ok())
    return fail(run, readable.error());
  if (Status topo = topologyStage(run, *plan, *local, *gathered, listed->declaredWorldSize);
      !topo.ok())
    return fail(run, topo.error());
  std::unique_ptr<JobAnalyses> analysed = analyseStage(run, *local);
  if (Status shown = showFindingRanksStage(run, analysed.get(), *plan, *local, *gathered);
      !shown.ok())
    return fail(run, shown.error());
  RenderPlan render = renderPlanStage(run, *plan, *gathered, *local);
  attachFindingEvents(analysed.get(), render);
  std::vector<AtomicFile> analysisFiles;  // rank 0: committed with the traces
  AnalysisResult analysis = writeAnalysisStage(run, analysed.get(), *local, render, analysisFiles);
  Expected<WriteResult> written = writeTracesStage(run, render, analysisFiles);
  if (!written.ok()) return fail(run, written.error());
  if (run.options.timings) printTimings(comm, run.clock);
  return summaryStage(run, *gathered, *written, render.context.shape, analysis,
                      listed->listingFailed || !plan->badPaths.empty());
}

}  // namespace xstack
