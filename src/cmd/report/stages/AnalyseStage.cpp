// The analysis stages of `xstack report` (docs/ANALYSIS.md): the registered
// analyses' per-rank parts every rank built while reading are merged before
// the traces are planned (the ranks the analyses want shown are displayed, the
// traces carry their annotations), and the analyses' files are written after
// the traces are rendered, committed with them.
#include <malloc.h>

#include <algorithm>

#include "xstack/cmd/common/VersionInfo.h"
#include "xstack/cmd/report/stages/ReportStages.h"
#include "xstack/render/OutputFormats.h"
#include "xstack/transport/TypedMessages.h"

namespace xstack {

namespace {

// Lets a part the analyses are done with leave memory, on whichever of the
// inputs' shelves holds it. It does not keep a shelf alive: the jobs keep it
// to the end, and the inputs let go of their shelves once the analysis files
// are written (writeAnalysisStage), which unmaps them.
PartRelease partReleaser(const std::vector<LocalInput>& local) {
  std::vector<std::weak_ptr<PartShelf>> shelves;
  for (const LocalInput& in : local)
    if (in.parts && std::none_of(shelves.begin(), shelves.end(),
                                 [&](const auto& s) { return s.lock() == in.parts; }))
      shelves.push_back(in.parts);
  return [shelves](std::string_view part) {
    for (const auto& s : shelves)
      if (std::shared_ptr<PartShelf> shelf = s.lock()) shelf->release(part);
  };
}

}  // namespace

std::unique_ptr<JobAnalyses> analyseStage(ReportRun& run, const std::vector<LocalInput>& local,
                                          const Topology& topology) {
  if (!run.options.analysis) return nullptr;
  AnalysisJobOptions options;
  options.topology = topology;
  options.memoryBytes = run.options.spill.memoryBytes;
  options.spillDir = run.options.spill.dir;
  options.releasePart = partReleaser(local);
  options.threads = run.options.threads;
  options.traceSuffix = std::string(outputFormat(run.options.formats.front()).suffix) +
                        (run.options.compress ? ".gz" : "");
  auto analyses = std::make_unique<JobAnalyses>(mergeAnalyses(run.comm, local, options));
  malloc_trim(0);
  run.clock.mark("analysis");
  for (const auto& job : analyses->jobs)
    for (const auto& [name, n] : job->counts()) run.clock.count(name, n);
  return analyses;
}

namespace {

void writeRanks(wire::Writer& w, const std::vector<int64_t>& ranks) {
  w.list(ranks, [](wire::Writer& x, int64_t r) { x.i64(r); });
}

std::vector<int64_t> readRanks(wire::Reader& r) {
  std::vector<int64_t> ranks;
  r.list(ranks, [](wire::Reader& x) { return x.i64(); });
  return ranks;
}

// Rank 0's list of the ranks the analyses want shown that --display-size does not show.
std::vector<int64_t> undisplayedRanksToShow(const JobAnalyses* analysed, const Topology& topo) {
  std::vector<int64_t> out;
  if (!analysed) return out;
  for (int64_t r : ranksToShow(*analysed))
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

// "xstack 0.1.0, git v0.1-12-gabc": the first two lines of versionText(), not
// the MPI library's (report.html is byte-identical for the serial and MPI builds).
std::string versionLine() {
  const std::string v = versionText();
  const size_t first = v.find('\n'), second = v.find('\n', first + 1);
  return v.substr(0, first) + ", " + v.substr(first + 1, second - first - 1);
}

}  // namespace

Expected<Topology> findingDisplayStage(ReportRun& run, const JobAnalyses* analysed,
                                       const Topology& topology) {
  if (!run.options.analysis) return topology;
  const std::vector<int64_t> mine =
      run.root() ? undisplayedRanksToShow(analysed, topology) : std::vector<int64_t>{};
  // collective: every rank learns rank 0's list.
  auto all = allgatherTyped(run.comm, mine, "the ranks to show", writeRanks, readRanks);
  if (!all.ok()) return all.error();
  const std::vector<int64_t>& ranks = all->front();
  if (ranks.empty()) return topology;
  Topology shown = topology;
  shown.shownRanks = ranks;
  run.log(shownNote(ranks, shown));
  return shown;
}

void attachFindingEvents(const JobAnalyses* analysed, RenderPlan& render) {
  if (!analysed) return;
  const uint64_t originNs = render.context.origin.ns;
  render.context.files.extraEvents = [analysed, originNs](const OutputFile& o, int64_t pid) {
    return annotationsFor(*analysed, o.group, o.gpu, pid, originNs);
  };
}

void attachAnalysisTracks(const JobAnalyses* analysed, RenderPlan& render) {
  if (!analysed) return;
  std::vector<TrackSet> sets;
  std::vector<const AnalysisJob*> jobs;  // of each set
  for (const auto& job : analysed->jobs) {
    std::vector<TraceTrackGroup> groups = job->trackGroups();
    if (groups.empty()) continue;
    sets.push_back({job->trackProcess(), std::move(groups)});
    jobs.push_back(job.get());
  }
  if (sets.empty()) return;
  addTrackChunks(render.outputs, sets, *render.context.all, render.context.job.topology);
  for (const TrackSet& s : sets) render.context.render.trackProcesses.push_back(s.process);
  render.context.render.trackRows = [jobs](size_t set, size_t index, int64_t pid, uint64_t& dropped,
                                           TrackRowSink& out) {
    jobs.at(set)->trackRows(index, pid, dropped, out);
  };
}

AnalysisResult writeAnalysisStage(ReportRun& run, JobAnalyses* analysed,
                                  std::vector<LocalInput>& local, const RenderPlan& render,
                                  std::vector<AtomicFile>& files) {
  if (!run.options.analysis || !analysed) return {};
  AnalysisOutput out;
  out.originNs = render.context.origin.ns;
  out.dir = run.outCommit.folder();
  out.fsync = run.options.fsync;
  out.toolVersion = versionLine();
  AnalysisResult r = writeAnalyses(run.comm, *analysed, local, std::move(out), files);
  for (LocalInput& in : local) {
    in.analyses.clear();
    in.parts.reset();  // the last input's reset frees the shelf, its memory and its scratch file
  }
  // What only the files needed (the jobs' releaseAfterWrite, the parts) goes
  // back before the traces are written.
  malloc_trim(0);
  run.clock.mark("analysis_files");
  return r;
}

}  // namespace xstack
