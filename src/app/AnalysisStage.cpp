#include "xstack/app/AnalysisStage.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
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

// Collective (with gatherAnalysis's receives): every rank's step tables
// without kernel names go to rank 0, one message per MPI rank, so what rank 0
// receives and keeps is O(ranks x (steps + kKernelsPerRank)) numbers (plus
// the gap ops' names), whatever the names' length (issue 21 item 10).
GatheredAnalysisPtr gatherAnalysis(Comm& comm, const std::vector<LocalInput>& local,
                                   const Topology& topology, const std::string& traceSuffix) {
  std::string mine;
  try {
    for (const LocalInput& in : local) mine += withoutKernelNames(in.stepTable);
  } catch (const std::exception&) {
    mine = "malformed";  // rank 0 fails the analysis on it, naming this MPI rank
  }
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

// "n <rank> <digest>": a request for one kernel's name (kernelNameFrom).
std::string nameRequest(int64_t rank, uint64_t digest) {
  return "n " + std::to_string(rank) + " " + std::to_string(digest);
}

// The answer to nameRequest(rank, digest) from this rank's own step tables
// (with names): the name, empty when unknown.
std::string localKernelName(const std::vector<LocalInput>& local, const std::string& request) {
  int64_t rank = -1;
  uint64_t digest = 0;
  const char* end = request.data() + request.size();
  auto r = std::from_chars(request.data() + std::min<size_t>(2, request.size()), end, rank);
  if (r.ec != std::errc() || r.ptr == end) return {};
  if (std::from_chars(r.ptr + 1, end, digest).ec != std::errc()) return {};
  try {
    for (const LocalInput& in : local)
      if (!in.stepTable.empty() && in.summary.file.id == rank)
        return kernelNameOf(in.stepTable, rank, digest);
  } catch (const std::exception&) {
  }
  return {};
}

// Rank 0: the name of the kernel `digest` of training rank `rank`, read by
// MPI rank `reader` (asked while it serves kernel tables); empty when unknown.
std::string kernelNameFrom(Comm& comm, const std::vector<LocalInput>& local, int64_t rank,
                           uint64_t digest, int reader) {
  if (reader == 0) return localKernelName(local, nameRequest(rank, digest));
  sendMessage(comm, reader, MessageTag::KernelTableRequest, nameRequest(rank, digest));
  return receiveMessage(comm, reader, MessageTag::KernelName);
}

// Rank 0: the reader of training rank `rank` (-1 when none).
int readerOf(const GatheredAnalysis& g, int64_t rank) {
  auto r = std::lower_bound(g.readers.begin(), g.readers.end(), std::pair<int64_t, int>(rank, -1));
  return r != g.readers.end() && r->first == rank ? r->second : -1;
}

// Keeps in `kept` the `room` first kernels by (name, digest), `k` included.
void keepFirstByName(std::vector<KernelSpread>& kept, KernelSpread k, size_t room) {
  kept.push_back(std::move(k));
  std::sort(kept.begin(), kept.end(), [](const KernelSpread& x, const KernelSpread& y) {
    return x.name != y.name ? x.name < y.name : x.nameDigest < y.nameDigest;
  });
  if (kept.size() > room) kept.pop_back();
}

// Rank 0: names the kernel-spread table (nameless from the gather), each
// kernel asked from the reader of its slowest rank, and cuts it to
// kKernelSpreadShown, ties at the cut by name as with names in hand. Rank 0
// holds at most kKernelSpreadShown + 1 names at a time (issue 21 item 10).
Status nameKernelSpread(Comm& comm, const GatheredAnalysis& g, const std::vector<LocalInput>& local,
                        std::vector<KernelSpread>& spread) {
  const size_t shown = std::min(spread.size(), kKernelSpreadShown);
  const uint64_t cutSpread = shown ? spreadOf(spread[shown - 1]) : 0;
  std::vector<KernelSpread> named, tied;
  for (KernelSpread& k : spread) {
    const int reader = readerOf(g, k.slowestRank);
    if (reader < 0) return Error{"analysis: no reader of rank " + std::to_string(k.slowestRank)};
    if (k.name.empty()) k.name = kernelNameFrom(comm, local, k.slowestRank, k.nameDigest, reader);
    if (k.name.empty())
      return Error{"analysis: MPI rank " + std::to_string(reader) +
                   " sent no kernel name of rank " + std::to_string(k.slowestRank)};
    if (spreadOf(k) > cutSpread)
      named.push_back(std::move(k));
    else
      keepFirstByName(tied, std::move(k), shown - named.size());
  }
  for (KernelSpread& k : tied) named.push_back(std::move(k));
  orderKernelSpread(named);
  spread = std::move(named);
  return {};
}

// A reader (MPI rank > 0) answers rank 0's requests for the kernel tables of
// the training ranks it read, one at a time, and for kernel names
// (nameRequest), until the empty request.
void serveKernelTables(Comm& comm, const std::vector<LocalInput>& local) {
  for (;;) {
    const std::string request = receiveMessage(comm, 0, MessageTag::KernelTableRequest);
    if (request.empty()) return;
    if (request.front() == 'n') {
      sendMessage(comm, 0, MessageTag::KernelName, localKernelName(local, request));
      continue;
    }
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
Status writeTables(const GatheredAnalysis& g, const JobAnalysis& a, uint64_t originNs,
                   const Folder& outDir, bool fsync, std::vector<AtomicFile>& written) {
  const Topology& topo = g.topology;
  Status st =
      writeForCommit(outDir, "steps.csv", stepsCsv(g.tables, topo, originNs), fsync, written);
  if (st.ok()) st = writeForCommit(outDir, "ranks.csv", ranksCsv(g.tables, topo), fsync, written);
  if (st.ok()) st = writeForCommit(outDir, "findings.json", findingsJson(a, topo), fsync, written);
  if (st.ok())
    st = writeForCommit(
        outDir, "report.html",
        reportHtml(g.tables, a, topo, versionLine(), reproducingCommand(topo, originNs)), fsync,
        written);
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
      JobAnalysis named = g->analysis;  // with the kernel names it shows
      Status st = nameKernelSpread(comm, *g, local, named.kernelSpread);
      if (st.ok()) res.lines = terminalSummary(named, g->topology);
      std::vector<AtomicFile> written;  // all five or none
      if (st.ok()) st = writeTables(*g, named, originNs, outDir, fsync, written);
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
