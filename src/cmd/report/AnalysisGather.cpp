#include "xstack/cmd/report/AnalysisGather.h"

#include <algorithm>
#include <exception>

#include "xstack/analysis/AnalysisRegistry.h"
#include "xstack/analysis/JobBoard.h"

namespace xstack {

std::vector<RankPart> rankParts(const std::vector<LocalInput>& local, size_t index) {
  std::vector<RankPart> parts;
  for (const LocalInput& in : local)
    if (index < in.analyses.size()) parts.push_back({in.summary.file.id, in.analysisPart(index)});
  return parts;
}

JobAnalyses mergeAnalyses(Comm& comm, const std::vector<LocalInput>& local,
                          const AnalysisJobOptions& options) {
  JobAnalyses out;
  const std::vector<const Analysis*>& all = registeredAnalyses();
  for (size_t i = 0; i < all.size(); ++i) {
    out.jobs.push_back(all[i]->jobPart(options));
    out.jobs.back()->merge(comm, rankParts(local, i));
  }
  if (comm.rank() != 0) return out;
  JobBoard board;
  for (const auto& job : out.jobs) job->publish(board);
  for (const auto& job : out.jobs) job->conclude(board);
  return out;
}

std::vector<int64_t> ranksToShow(const JobAnalyses& analyses) {
  std::vector<int64_t> ranks;
  for (const auto& job : analyses.jobs) {
    std::vector<int64_t> mine = job->ranksToShow();
    ranks.insert(ranks.end(), mine.begin(), mine.end());
  }
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  return ranks;
}

// The first analysis with annotations for a file names their process; the
// instants of all of them are ordered by (tid, ts), each analysis' in its order.
TraceExtraRows annotationsFor(const JobAnalyses& analyses, int64_t group, int64_t gpu, int64_t pid,
                              uint64_t originNs) {
  TraceExtraRows out;
  size_t contributing = 0;
  for (const auto& job : analyses.jobs) {
    TraceExtraRows rows = job->annotations(group, gpu, pid, originNs);
    if (rows.empty()) continue;
    if (contributing++ == 0) {
      out = std::move(rows);
      continue;
    }
    out.instants.insert(out.instants.end(), rows.instants.begin(), rows.instants.end());
  }
  if (contributing > 1)
    std::stable_sort(out.instants.begin(), out.instants.end(),
                     [](const TraceInstant& a, const TraceInstant& b) {
                       return a.tid != b.tid ? a.tid < b.tid : a.tsNs < b.tsNs;
                     });
  return out;
}

AnalysisResult writeAnalyses(Comm& comm, JobAnalyses& analyses,
                             const std::vector<LocalInput>& local, AnalysisOutput out,
                             std::vector<AtomicFile>& files) {
  AnalysisResult res;
  std::vector<AtomicFile> written;  // every analysis' files or none
  out.files = &written;
  out.lines = &res.lines;
  for (size_t i = 0; i < analyses.jobs.size(); ++i) {
    // Every analysis writes (its readers wait for rank 0's release), even
    // after an earlier one failed.
    Status st = analyses.jobs[i]->write(comm, rankParts(local, i), out);
    if (res.written.ok() && !st.ok()) res.written = st;
  }
  if (comm.rank() == 0 && res.written.ok())
    for (auto& f : written) files.push_back(std::move(f));
  for (auto& job : analyses.jobs) job->releaseAfterWrite();
  return res;
}

}  // namespace xstack
