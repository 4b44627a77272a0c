#include "xstack/app/AnalysisStage.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>

#include "xstack/analysis/Findings.h"
#include "xstack/analysis/StepTable.h"
#include "xstack/app/VersionInfo.h"
#include "xstack/core/TimeUnits.h"
#include "xstack/sink/TracePids.h"
#include "xstack/sink/json/JsonText.h"
#include "xstack/sink/report/AnalysisFiles.h"
#include "xstack/transport/MessageTags.h"

namespace fs = std::filesystem;

namespace xstack {

struct GatheredAnalysis {
  Topology topology;
  std::vector<RankTable> tables;  // ordered by rank
  // (training rank, MPI rank that read it) of every table, ordered by rank:
  // whom rank 0 asks for the rank's kernel table.
  std::vector<std::pair<int64_t, int>> readers;
  JobAnalysis analysis;
  Status status;  // a decode or analysis failure: no files, no instant events
};

void GatheredAnalysisDeleter::operator()(GatheredAnalysis* g) const { delete g; }

namespace {

// Writes `text` to the temporary of dir/name (an AtomicFile, created like a
// trace's, O_EXCL, so a later run recognises it) and appends the finished
// file to `files`: it is renamed into place with the traces by
// OutputCommit, never alone.
Status writeForCommit(const Folder& dir, const std::string& name, const std::string& text,
                      bool fsync, std::vector<AtomicFile>& files) {
  AtomicFile f;
  Status st = f.open(dir, name);
  if (st) st = f.write(text);
  if (st) st = f.finish(fsync);
  if (!st) return Error{"cannot write " + name + ": " + st.error().message};
  files.push_back(std::move(f));
  return {};
}

}  // namespace

GatheredAnalysisPtr gatherAnalysis(Comm& comm, const std::vector<LocalInput>& local,
                                   const Topology& topology, const std::string& traceSuffix) {
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
      for (RankTable& t : decodeRankTables(blob)) {
        g->readers.emplace_back(t.rank, r);
        g->tables.push_back(std::move(t));
      }
    } catch (const std::exception& e) {
      g->status = Error{"analysis: step tables of MPI rank " + std::to_string(r) + ": " + e.what()};
    }
  }
  if (!g->status.ok()) return g;
  try {  // rank 0 only: a failure here (memory) fails the analysis, not the traces
    std::sort(g->tables.begin(), g->tables.end(),
              [](const RankTable& a, const RankTable& b) { return a.rank < b.rank; });
    std::sort(g->readers.begin(), g->readers.end());
    g->analysis = analyzeJob(g->tables, topology, traceSuffix);
  } catch (const std::exception& e) {
    g->status = Error{std::string("analysis failed: ") + e.what()};
  }
  return g;
}

std::vector<int64_t> findingRanks(const GatheredAnalysis* g) {
  std::vector<int64_t> ranks;
  if (!g || !g->status.ok()) return ranks;
  for (const Finding& f : g->analysis.findings)
    ranks.insert(ranks.end(), f.ranks.begin(), f.ranks.end());
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  return ranks;
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
  char nn[32];
  std::snprintf(nn, sizeof nn, "%02lld_findings", static_cast<long long>(processOrder(pid)));
  out.pid = pid;
  out.processName = nn;
  for (auto& [rank, events] : byRank) {
    std::stable_sort(events.begin(), events.end());
    for (auto [ts, i] : events) {
      const Finding& f = findings[i];
      out.instants.push_back({rank, f.kind, "finding", ts, f.score, f.evidenceInTrace});
    }
  }
  return out;
}

namespace {

// A reader (MPI rank > 0) answers rank 0's requests for the kernel tables of
// the training ranks it read, one at a time, until the empty request.
void serveKernelTables(Comm& comm, const std::vector<LocalInput>& local) {
  for (;;) {
    const std::string request = receiveMessage(comm, 0, MessageTag::KernelTableRequest);
    if (request.empty()) return;
    const int64_t rank = std::stoll(request);
    std::string_view table;
    for (const LocalInput& in : local)
      if (!in.kernelTable.empty() && in.summary.file.id == rank) table = in.kernelTable;
    sendMessage(comm, 0, MessageTag::KernelTable, table);
  }
}

// Rank 0: the kernel table of training rank `rank`, read by MPI rank `reader`.
// The request and its answer are one step (nothing can fail in between), so
// a reader is never left sending to a rank 0 that has moved on.
std::string kernelTableOf(Comm& comm, const std::vector<LocalInput>& local, int64_t rank,
                          int reader) {
  if (reader != 0) {
    sendMessage(comm, reader, MessageTag::KernelTableRequest, std::to_string(rank));
    return receiveMessage(comm, reader, MessageTag::KernelTable);
  }
  for (const LocalInput& in : local)
    if (!in.kernelTable.empty() && in.summary.file.id == rank) return in.kernelTable;
  return {};
}

// Rank 0: kernels.csv, streamed: the training ranks' kernel tables are
// fetched in rank order, one at a time, and each one's rows are written to
// the temporary before the next is fetched (rank 0 holds one remote table at
// a time, never all ranks' names). The caller releases the readers.
Status writeKernelsCsv(Comm& comm, const GatheredAnalysis& g, const std::vector<LocalInput>& local,
                       const Folder& dir, bool fsync, std::vector<AtomicFile>& files) {
  AtomicFile f;
  Status st = f.open(dir, "kernels.csv");
  if (st) st = f.write(kernelsCsvHeader());
  std::string rows;
  for (auto [rank, reader] : g.readers) {
    if (!st) break;
    const std::string table = kernelTableOf(comm, local, rank, reader);
    int64_t decodedRank = -1;
    std::vector<KernelStat> kernels;
    try {
      kernels = decodeKernelStats(table, decodedRank);
    } catch (const std::exception& e) {
      return Error{"analysis: kernel table of rank " + std::to_string(rank) + ": " + e.what()};
    }
    if (decodedRank != rank)
      return Error{"analysis: MPI rank " + std::to_string(reader) +
                   " sent no kernel table of rank " + std::to_string(rank)};
    rows.clear();
    appendKernelsCsvRows(rows, rank, kernels);
    st = f.write(rows);
  }
  if (st) st = f.finish(fsync);
  if (!st) return Error{"cannot write kernels.csv: " + st.error().message};
  files.push_back(std::move(f));
  return {};
}

// "xstack 0.1.0, git v0.1-12-gabc": the first two lines of versionText(), not
// the MPI library's (report.html is byte-identical for the serial and MPI builds).
std::string versionLine() {
  const std::string v = versionText();
  const size_t first = v.find('\n'), second = v.find('\n', first + 1);
  return v.substr(0, first) + ", " + v.substr(first + 1, second - first - 1);
}

// The `xstack report` command that gives these analysis files again: the
// job-wide values that decide them (P as used, given or inferred; S; the time
// origin), the input folder as DIR (each node has its own, agree.sh). The
// options that change only the traces or the log are left out, so report.html
// is the same for any np, placement, --display-size and --format.
std::string reproducingCommand(const Topology& topo, uint64_t originNs) {
  return "xstack report --data-dir DIR --gpus-per-trainer " + std::to_string(topo.gpusPerTrainer) +
         " --group-size " + std::to_string(topo.groupSize) + " --time-origin-ns " +
         std::to_string(originNs);
}

// Rank 0: the files other than kernels.csv, appended to `written`.
Status writeTables(const GatheredAnalysis& g, uint64_t originNs, const Folder& outDir, bool fsync,
                   std::vector<AtomicFile>& written) {
  const Topology& topo = g.topology;
  Status st =
      writeForCommit(outDir, "steps.csv", stepsCsv(g.tables, topo, originNs), fsync, written);
  if (st.ok()) st = writeForCommit(outDir, "ranks.csv", ranksCsv(g.tables, topo), fsync, written);
  if (st.ok())
    st = writeForCommit(outDir, "findings.json", findingsJson(g.analysis, topo), fsync, written);
  if (st.ok())
    st = writeForCommit(
        outDir, "report.html",
        reportHtml(g.tables, g.analysis, topo, versionLine(), reproducingCommand(topo, originNs)),
        fsync, written);
  return st;
}

}  // namespace

AnalysisResult writeAnalysis(Comm& comm, const GatheredAnalysis* g,
                             const std::vector<LocalInput>& local, uint64_t originNs,
                             const Folder& outDir, bool fsync, std::vector<AtomicFile>& files) {
  AnalysisResult res;
  if (comm.rank() != 0) {
    serveKernelTables(comm, local);
    return res;
  }
  if (!g) {
    res.written = Error{"analysis: nothing gathered"};
  } else if (!g->status.ok()) {
    res.written = g->status;
  } else {
    try {
      res.lines = terminalSummary(g->analysis, g->topology);
      std::vector<AtomicFile> written;  // all five or none
      Status st = writeTables(*g, originNs, outDir, fsync, written);
      if (st.ok()) st = writeKernelsCsv(comm, *g, local, outDir, fsync, written);
      if (st.ok())
        for (auto& f : written) files.push_back(std::move(f));
      res.written = st;
    } catch (const std::exception& e) {
      res.written = Error{std::string("analysis failed: ") + e.what()};
    }
  }
  for (int r = 1; r < comm.size(); ++r) sendMessage(comm, r, MessageTag::KernelTableRequest, "");
  return res;
}

}  // namespace xstack
