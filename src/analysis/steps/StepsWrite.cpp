// The files and terminal lines of the "steps" analysis (rank 0), with the
// kernel names of the report's kernel-spread table asked from the readers.
#include <algorithm>
#include <exception>

#include "StepsJob.h"
#include "xstack/report/AnalysisFiles.h"

namespace xstack {

namespace {

// Keeps in `kept` the `room` first kernels by (name, digest), `k` included.
void keepFirstByName(std::vector<KernelSpread>& kept, KernelSpread k, size_t room) {
  kept.push_back(std::move(k));
  std::sort(kept.begin(), kept.end(), [](const KernelSpread& x, const KernelSpread& y) {
    return x.name != y.name ? x.name < y.name : x.nameDigest < y.nameDigest;
  });
  if (kept.size() > room) kept.pop_back();
}

// The `xstack report` command that gives these analysis files again: the
// job-wide values that decide them (P as used, given or inferred; S; the time
// origin), the input folder as DIR (each node has its own, agree.sh), in the
// words of the inputs (--gpus-per-node for PyTorch's traces). The
// options that change only the traces or the log are left out, so report.html
// is the same for any np, placement, --display-size and --format.
std::string reproducingCommand(const Topology& topo, uint64_t originNs) {
  return "xstack report --data-dir DIR " +
         std::string(topo.nodeWords ? "--gpus-per-node " : "--gpus-per-trainer ") +
         std::to_string(topo.gpusPerTrainer) + " --group-size " + std::to_string(topo.groupSize) +
         " --time-origin-ns " + std::to_string(originNs);
}

}  // namespace

int StepsJob::readerOf(int64_t rank) const {
  auto r = std::lower_bound(readers_.begin(), readers_.end(), std::pair<int64_t, int>(rank, -1));
  return r != readers_.end() && r->first == rank ? r->second : -1;
}

// Rank 0: names the kernel-spread table (nameless from the gather), each
// kernel asked from the reader of its slowest rank, and cuts it to
// kKernelSpreadShown, ties at the cut by name as with names in hand. Rank 0
// holds at most kKernelSpreadShown + 1 names at a time.
Status StepsJob::nameKernelSpread(Comm& comm, const std::vector<RankPart>& local,
                                  std::vector<KernelSpread>& spread) const {
  const size_t shown = std::min(spread.size(), kKernelSpreadShown);
  const uint64_t cutSpread = shown ? spreadOf(spread[shown - 1]) : 0;
  std::vector<KernelSpread> named, tied;
  for (KernelSpread& k : spread) {
    const int reader = readerOf(k.slowestRank);
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

// Rank 0: steps.csv, ranks.csv, findings.json and report.html, appended to `written`.
Status StepsJob::writeTables(const JobAnalysis& a, const AnalysisOutput& out,
                             std::vector<AtomicFile>& written) const {
  const Topology& topo = options_.topology;
  const Folder& dir = out.dir;
  Status st =
      writeForCommit(dir, "steps.csv", stepsCsv(tables_, topo, out.originNs), out.fsync, written);
  if (st.ok()) st = writeForCommit(dir, "ranks.csv", ranksCsv(tables_, topo), out.fsync, written);
  if (st.ok()) st = writeForCommit(dir, "findings.json", findingsJson(a, topo), out.fsync, written);
  if (st.ok())
    st = writeForCommit(dir, "report.html",
                        reportHtml(tables_, a, topo, out.toolVersion,
                                   reproducingCommand(topo, out.originNs), board_),
                        out.fsync, written);
  return st;
}

Status StepsJob::writeOnRoot(Comm& comm, const std::vector<RankPart>& local,
                             const AnalysisOutput& out) {
  if (!status_.ok()) return status_;
  JobAnalysis named = analysis_;  // with the kernel names it shows
  Status st = nameKernelSpread(comm, local, named.kernelSpread);
  if (!st.ok()) return st;
  for (std::string& line : terminalSummary(named, options_.topology))
    out.lines->push_back(std::move(line));
  std::vector<AtomicFile> written;  // all four or none
  st = writeTables(named, out, written);
  if (st.ok())
    for (auto& f : written) out.files->push_back(std::move(f));
  return st;
}

// collective: rank 0 asks the readers for kernel names, then releases them.
Status StepsJob::write(Comm& comm, const std::vector<RankPart>& local, const AnalysisOutput& out) {
  if (comm.rank() != 0) {
    serveKernelNames(comm, local);
    return {};
  }
  Status st;
  try {
    st = writeOnRoot(comm, local, out);
  } catch (const std::exception& e) {
    st = Error{std::string("analysis failed: ") + e.what()};
  }
  releaseNameServers(comm);
  return st;
}

}  // namespace xstack
