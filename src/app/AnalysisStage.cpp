#include "xstack/app/AnalysisStage.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>

#include "xstack/analysis/Findings.h"
#include "xstack/analysis/StepTable.h"
#include "xstack/core/TimeUnits.h"
#include "xstack/sink/json/JsonText.h"
#include "xstack/sink/report/AnalysisFiles.h"
#include "xstack/transport/MessageTags.h"

namespace fs = std::filesystem;

namespace xstack {

struct GatheredAnalysis {
  Topology topology;
  std::vector<RankTable> tables;  // ordered by rank
  JobAnalysis analysis;
  Status status;  // a decode or analysis failure: no files, no instant events
};

void GatheredAnalysisDeleter::operator()(GatheredAnalysis* g) const { delete g; }

namespace {

// Writes `text` to the temporary of dir/name (an AtomicFile, created like a
// trace's, O_EXCL, so a later run recognises it) and appends the finished
// file to `files`: it is renamed into place with the traces by
// OutputCommit, never alone.
Status writeForCommit(const std::string& dir, const std::string& name, const std::string& text,
                      bool fsync, std::vector<AtomicFile>& files) {
  AtomicFile f;
  Status st = f.open((fs::path(dir) / name).string());
  if (st) st = f.write(text);
  if (st) st = f.finish(fsync);
  if (!st) return Error{"cannot write " + name + ": " + st.error().message};
  files.push_back(std::move(f));
  return {};
}

}  // namespace

GatheredAnalysisPtr gatherAnalysis(Comm& comm, const std::vector<LocalInput>& local,
                                   const Topology& topology) {
  std::string mine;
  for (const LocalInput& in : local) mine += in.stepTable;
  if (comm.rank() != 0) {
    sendMessage(comm, 0, MessageTag::StepTables, mine);
    return nullptr;
  }
  GatheredAnalysisPtr g(new GatheredAnalysis);
  g->topology = topology;
  for (int r = 0; r < comm.size(); ++r) {
    std::string blob = r == 0 ? std::move(mine) : receiveMessage(comm, r, MessageTag::StepTables);
    try {
      for (RankTable& t : decodeRankTables(blob)) g->tables.push_back(std::move(t));
    } catch (const std::exception& e) {
      g->status = Error{"analysis: step tables of MPI rank " + std::to_string(r) + ": " + e.what()};
    }
  }
  if (!g->status.ok()) return g;
  try {  // rank 0 only: a failure here (memory) fails the analysis, not the traces
    std::sort(g->tables.begin(), g->tables.end(),
              [](const RankTable& a, const RankTable& b) { return a.rank < b.rank; });
    g->analysis = analyzeJob(g->tables, topology);
  } catch (const std::exception& e) {
    g->status = Error{std::string("analysis failed: ") + e.what()};
  }
  return g;
}

namespace {

// (rank, ts) of every instant event of `f` in file (group, gpu).
std::vector<std::pair<int64_t, uint64_t>> instantsOf(const GatheredAnalysis& g, const Finding& f,
                                                     int64_t group, int64_t gpu) {
  std::vector<std::pair<int64_t, uint64_t>> out;
  const Topology& topo = g.topology;
  for (int64_t rank : f.ranks) {
    if (topo.groupOf(rank) != group || topo.gpuOf(rank) != gpu) continue;
    auto t = std::lower_bound(g.tables.begin(), g.tables.end(), rank,
                              [](const RankTable& x, int64_t r) { return x.rank < r; });
    if (t == g.tables.end() || t->rank != rank) continue;
    for (const StepRow& row : t->steps)
      if (std::binary_search(f.steps.begin(), f.steps.end(), row.step))
        out.emplace_back(rank, row.startNs);
  }
  return out;
}

}  // namespace

TraceExtraRows findingEventsFor(const GatheredAnalysis* g, int64_t group, int64_t gpu, int64_t pid,
                                uint64_t originNs) {
  TraceExtraRows out;
  if (!g || !g->status.ok()) return out;
  // rank -> (ts, finding index), so events come ordered by (tid, ts).
  std::map<int64_t, std::vector<std::pair<uint64_t, size_t>>> byRank;
  const auto& findings = g->analysis.findings;
  for (size_t i = 0; i < findings.size(); ++i)
    for (auto [rank, ts] : instantsOf(*g, findings[i], group, gpu))
      byRank[rank].emplace_back(ts > originNs ? ts - originNs : 0, i);
  if (byRank.empty()) return out;
  char nn[24];
  std::snprintf(nn, sizeof nn, "%02lld_findings", static_cast<long long>(pid));
  out.pid = pid;
  out.processName = nn;
  for (auto& [rank, events] : byRank) {
    std::stable_sort(events.begin(), events.end());
    for (auto [ts, i] : events) {
      const Finding& f = findings[i];
      out.instants.push_back({rank, f.kind, "finding", ts, f.score, f.evidence});
    }
  }
  return out;
}

AnalysisResult writeAnalysis(const GatheredAnalysis* g, uint64_t originNs,
                             const std::string& outDir, bool fsync,
                             std::vector<AtomicFile>& files) {
  AnalysisResult res;
  if (!g) return res;
  if (!g->status.ok()) {
    res.written = g->status;
    return res;
  }
  try {
    const Topology& topo = g->topology;
    res.lines = terminalSummary(g->analysis, topo);
    std::vector<AtomicFile> written;  // all three or none
    Status st =
        writeForCommit(outDir, "steps.csv", stepsCsv(g->tables, topo, originNs), fsync, written);
    if (st.ok())
      st = writeForCommit(outDir, "findings.json", findingsJson(g->analysis, topo), fsync, written);
    if (st.ok())
      st = writeForCommit(outDir, "report.html", reportHtml(g->tables, g->analysis, topo), fsync,
                          written);
    if (st.ok())
      for (auto& f : written) files.push_back(std::move(f));
    res.written = st;
  } catch (const std::exception& e) {
    res.written = Error{std::string("analysis failed: ") + e.what()};
  }
  return res;
}

}  // namespace xstack
