// The analysis stages of `xstack report` (docs/ANALYSIS.md): the step tables
// every rank built while reading are gathered and analysed before the traces
// are written (the traces carry the findings), and the analysis files are
// written after the traces are committed.
#include "xstack/app/ReportStages.h"

namespace xstack {

GatheredAnalysisPtr analyseStage(ReportRun& run, const std::vector<LocalInput>& local,
                                 RenderPlan& render) {
  if (!run.options.analysis) return nullptr;
  GatheredAnalysisPtr gathered = gatherAnalysis(run.comm, local, run.options.topology);
  const GatheredAnalysis* g = gathered.get();
  const uint64_t originNs = render.context.origin.ns;
  render.context.extraEvents = [g, originNs](const OutputFile& o, int64_t pid) {
    return findingEventsFor(g, o.group, o.gpu, pid, originNs);
  };
  run.clock.mark("analysis");
  return gathered;
}

AnalysisResult writeAnalysisStage(ReportRun& run, const GatheredAnalysis* analysed,
                                  const std::vector<LocalInput>& local, const RenderPlan& render,
                                  std::vector<AtomicFile>& files) {
  if (!run.options.analysis) return {};
  AnalysisResult r = writeAnalysis(run.comm, analysed, local, render.context.origin.ns,
                                   run.options.outDir, run.options.fsync, files);
  run.clock.mark("analysis_files");
  return r;
}

}  // namespace xstack
