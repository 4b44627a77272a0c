#include "xstack/analysis/steps/StepsAnalysis.h"

#include <algorithm>
#include <cstdio>
#include <exception>
#include <iterator>
#include <map>

#include "StepsJob.h"
#include "xstack/analysis/GpuActivity.h"
#include "xstack/model/TracePids.h"
#include "xstack/transport/MessageTags.h"

namespace xstack {

namespace {

// One profile's step table and GPU breakdown, built as it is decoded.
class StepsRankPart final : public RankAnalysis {
 public:
  explicit StepsRankPart(const SpillOptions& input)
      : steps_(analysisBuilderBudget(input)), gpu_(analysisBuilderBudget(input)) {}
  void onSlice(const SliceEvent& e) override {
    steps_.addSlice(e);
    gpu_.addSlice(e);
  }
  void onMemory(const MemoryEvent& m) override { steps_.addMemory(m); }
  Expected<std::string> finish(int64_t rank, const std::vector<Span>& spans) override {
    Expected<RankTable> table = steps_.build(rank, spans);
    if (!table) return table.error();
    Expected<RankGpuActivity> activity = gpu_.build(spans);
    if (!activity) return activity.error();
    table->gpuBreakdown = activity->breakdown;
    return encodeRankTables({*table});
  }

 private:
  StepTableBuilder steps_;
  GpuActivityBuilder gpu_;
};

class StepsAnalysis final : public Analysis {
 public:
  std::string_view name() const override { return "steps"; }
  std::vector<std::string> outputFiles() const override {
    return {"steps.csv", "ranks.csv", "findings.json", "report.html"};
  }
  std::unique_ptr<RankAnalysis> rankPart(const SpillOptions& input) const override {
    return std::make_unique<StepsRankPart>(input);
  }
  std::unique_ptr<AnalysisJob> jobPart(const AnalysisJobOptions& options) const override {
    return std::make_unique<StepsJob>(options);
  }
};

}  // namespace

const Analysis& stepsAnalysis() {
  static const StepsAnalysis kAnalysis;
  return kAnalysis;
}

// collective: every MPI rank's step tables without kernel names go to rank 0,
// one message per MPI rank, so what rank 0 receives and keeps is
// O(ranks x (steps + kKernelsPerRank)) numbers (plus the gap ops' names),
// whatever the names' length.
void StepsJob::merge(Comm& comm, const std::vector<RankPart>& local) {
  std::vector<RankTable> mine;
  bool malformed = false;
  for (const RankPart& p : local) {
    Expected<std::vector<RankTable>> tables = decodeRankTables(p.bytes);
    malformed = malformed || !tables;
    if (!tables) continue;
    dropKernelNames(*tables);  // part by part: never every local rank's names at once
    std::move(tables->begin(), tables->end(), std::back_inserter(mine));
  }
  // An empty message does not decode: rank 0 fails the analysis on it, naming this MPI rank.
  std::string message = malformed ? std::string() : encodeRankTables(mine);
  std::vector<RankTable>().swap(mine);
  if (comm.rank() != 0) {
    sendMessage(comm, 0, MessageTag::StepTables, message);
    return;
  }
  for (int r = 0; r < comm.size(); ++r) {
    std::string blob =
        r == 0 ? std::move(message) : receiveMessage(comm, r, MessageTag::StepTables);
    auto tables = decodeRankTables(blob, "step tables of MPI rank " + std::to_string(r));
    if (!tables) {
      status_ = Error{"analysis: " + tables.error().message};
      continue;
    }
    for (RankTable& t : *tables) {
      readers_.emplace_back(t.rank, r);
      tables_.push_back(std::move(t));
    }
  }
}

void StepsJob::conclude(const JobBoard& board) {
  board_ = board;
  if (status_.ok()) analyse();
}

// Rank 0: a failure here (memory) fails the analysis, not the traces.
void StepsJob::analyse() {
  try {
    std::sort(tables_.begin(), tables_.end(),
              [](const RankTable& a, const RankTable& b) { return a.rank < b.rank; });
    std::sort(readers_.begin(), readers_.end());
    analysis_ = analyzeJob(tables_, options_.topology, options_.traceSuffix, board_);
  } catch (const std::exception& e) {
    status_ = Error{std::string("analysis failed: ") + e.what()};
  }
}

// The ranks the findings (not those below threshold) name, sorted, once each.
std::vector<int64_t> StepsJob::ranksToShow() const {
  std::vector<int64_t> ranks;
  if (!status_.ok()) return ranks;
  for (const Finding& f : analysis_.findings)
    ranks.insert(ranks.end(), f.ranks.begin(), f.ranks.end());
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  return ranks;
}

void StepsJob::releaseAfterWrite() {
  std::vector<int64_t> named;
  for (const Finding& f : analysis_.findings)
    named.insert(named.end(), f.ranks.begin(), f.ranks.end());
  std::sort(named.begin(), named.end());
  std::vector<RankTable> kept;
  for (RankTable& t : tables_)
    if (std::binary_search(named.begin(), named.end(), t.rank)) {
      RankTable steps;
      steps.rank = t.rank;
      steps.steps = std::move(t.steps);
      kept.push_back(std::move(steps));
    }
  tables_ = std::move(kept);
  JobAnalysis findings;
  findings.findings = std::move(analysis_.findings);
  analysis_ = std::move(findings);
  std::vector<std::pair<int64_t, int>>().swap(readers_);
  board_ = JobBoard();
}

// (rank, ts) of every instant event of `f` in file (group, gpu).
std::vector<std::pair<int64_t, uint64_t>> StepsJob::instantsOf(const Finding& f, int64_t group,
                                                               int64_t gpu) const {
  std::vector<std::pair<int64_t, uint64_t>> out;
  const Topology& topo = options_.topology;
  for (int64_t rank : f.ranks) {
    if (topo.groupOf(rank) != group || topo.gpuOf(rank) != gpu) continue;
    auto t = std::lower_bound(tables_.begin(), tables_.end(), rank,
                              [](const RankTable& x, int64_t r) { return x.rank < r; });
    if (t == tables_.end() || t->rank != rank) continue;
    for (const StepRow& row : t->steps)
      if (std::binary_search(f.steps.begin(), f.steps.end(), row.step))
        out.emplace_back(rank, row.startNs);
  }
  return out;
}

// The findings' instants in trace file (group, gpu), on a process of their
// own: one event per (finding, rank of the file, slow step), at the step's
// start, thread = rank, ordered by (tid, ts).
TraceExtraRows StepsJob::annotations(int64_t group, int64_t gpu, int64_t pid,
                                     uint64_t originNs) const {
  TraceExtraRows out;
  if (!status_.ok()) return out;
  // rank -> (ts, finding index), so events come ordered by (tid, ts).
  std::map<int64_t, std::vector<std::pair<uint64_t, size_t>>> byRank;
  const auto& findings = analysis_.findings;
  for (size_t i = 0; i < findings.size(); ++i)
    for (auto [rank, ts] : instantsOf(findings[i], group, gpu))
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

}  // namespace xstack
