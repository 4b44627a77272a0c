// The analysis stages of `xstack report` (docs/ANALYSIS.md): the step tables
// every rank built while reading are gathered and analysed before the traces
// are planned (the ranks the findings name are displayed, the traces carry the
// findings), and the analysis files are written after the traces are committed.
#include <charconv>

#include "xstack/app/ReportStages.h"
#include "xstack/sink/OutputFormats.h"

namespace xstack {

GatheredAnalysisPtr analyseStage(ReportRun& run, const std::vector<LocalInput>& local,
                                 const Topology& topology) {
  if (!run.options.analysis) return nullptr;
  const std::string traceSuffix = std::string(outputFormat(run.options.formats.front()).suffix) +
                                  (run.options.compress ? ".gz" : "");
  GatheredAnalysisPtr gathered = gatherAnalysis(run.comm, local, topology, traceSuffix);
  run.clock.mark("analysis");
  return gathered;
}

namespace {

std::string encodeRanks(const std::vector<int64_t>& ranks) {
  std::string s;
  for (int64_t r : ranks) s += std::to_string(r) + " ";
  return s;
}

std::vector<int64_t> decodeRanks(const std::string& s) {
  std::vector<int64_t> ranks;
  const char* p = s.data();
  const char* end = s.data() + s.size();
  while (p < end) {
    int64_t v = 0;
    auto [next, ec] = std::from_chars(p, end, v);
    if (ec != std::errc()) break;
    ranks.push_back(v);
    p = next + 1;  // the space
  }
  return ranks;
}

// Rank 0's list of the findings' ranks that --display-size does not show.
std::vector<int64_t> undisplayedFindingRanks(const GatheredAnalysis* g, const Topology& topo) {
  std::vector<int64_t> out;
  for (int64_t r : findingRanks(g))
    if (!topo.rankDisplayed(r)) out.push_back(r);
  return out;
}

std::string shownNote(const std::vector<int64_t>& ranks, const Topology& topo) {
  std::string s =
      "findings: shown in detail beyond --display-size " + std::to_string(topo.displaySize) + ":";
  for (size_t i = 0; i < ranks.size(); ++i)
    s += std::string(i ? ", rank " : " rank ") + std::to_string(ranks[i]) + " in traceFile_" +
         std::to_string(topo.groupOf(ranks[i])) + "_" + std::to_string(topo.gpuOf(ranks[i]));
  return s;
}

}  // namespace

Topology findingDisplayStage(ReportRun& run, const GatheredAnalysis* analysed,
                             const Topology& topology) {
  if (!run.options.analysis) return topology;
  std::string mine = run.root() ? encodeRanks(undisplayedFindingRanks(analysed, topology)) : "";
  // collective: every rank learns rank 0's list.
  const std::vector<int64_t> ranks = decodeRanks(run.comm.allgather(mine)[0]);
  if (ranks.empty()) return topology;
  Topology shown = topology;
  shown.shownRanks = ranks;
  run.log(shownNote(ranks, shown));
  return shown;
}

void attachFindingEvents(const GatheredAnalysis* g, RenderPlan& render) {
  if (!g) return;
  const uint64_t originNs = render.context.origin.ns;
  render.context.extraEvents = [g, originNs](const OutputFile& o, int64_t pid) {
    return findingEventsFor(g, o.group, o.gpu, pid, originNs);
  };
}

AnalysisResult writeAnalysisStage(ReportRun& run, const GatheredAnalysis* analysed,
                                  const std::vector<LocalInput>& local, const RenderPlan& render,
                                  std::vector<AtomicFile>& files) {
  if (!run.options.analysis) return {};
  AnalysisResult r = writeAnalysis(run.comm, analysed, local, render.context.origin.ns,
                                   run.outCommit.folder(), run.options.fsync, files);
  run.clock.mark("analysis_files");
  return r;
}

}  // namespace xstack
