#include "xstack/plan/RenderAssignment.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace xstack {
namespace {

// Cost of rendering chunk `c` from its file: events rendered (a RankRows
// chunk renders all of them; spans and counters are small and cost their count).
double chunkCost(const Chunk& c, const InputSummary& s) {
  if (c.kind == ChunkKind::RankRows)
    return static_cast<double>(std::max<uint64_t>(s.events + s.memEvents, 1));
  return static_cast<double>(c.kind == ChunkKind::Spans ? s.spanCount : 1);
}

// What rendering a chunk of cost `cost` adds to rank `r`: less on the reader
// that kept the rows (no decode).
double costOn(int r, double cost, const InputSummary& s, const RenderWeights& w) {
  return s.rowsKept && r == s.reader ? cost * w.keptRows : cost;
}

// The rank of `seers` that would finish chunk `cost` first (its load plus the
// chunk's cost there), starting from `current`; ties go to the lower rank, but
// never to rank 0 (it also writes).
int leastLoaded(int current, const std::vector<int>& seers, const std::vector<double>& load,
                double cost, const InputSummary& s, const RenderWeights& w) {
  const int ranks = static_cast<int>(load.size());
  auto finish = [&](int r) { return load[static_cast<size_t>(r)] + costOn(r, cost, s, w); };
  int best = current;
  for (int r : seers) {
    if (r < 0 || r >= ranks) continue;
    const double fr = finish(r), fb = finish(best);
    const bool tieWins = fr == fb && (best == 0 || (r != 0 && r < best));
    if (fr < fb || tieWins) best = r;
  }
  return best;
}

}  // namespace

void assignRenderers(std::vector<OutputFile>& outputs, const std::vector<InputSummary>& all,
                     const std::vector<std::vector<int>>& seers, int ranks, RenderWeights w) {
  if (ranks <= 1) return;
  std::vector<double> load(static_cast<size_t>(ranks), 0.0);
  for (OutputFile& o : outputs) {
    for (Chunk& c : o.chunks) {
      if (c.kind == ChunkKind::ProcessMeta || c.kind == ChunkKind::ThreadMeta) continue;
      const InputSummary& s = all[c.input];
      const double cost = chunkCost(c, s);
      load[0] += w.rank0Write * cost;
      if (c.kind == ChunkKind::RankRows && c.input < seers.size())
        c.owner = leastLoaded(c.owner, seers[c.input], load, cost, s, w);
      if (c.owner >= 0 && c.owner < ranks)
        load[static_cast<size_t>(c.owner)] += costOn(c.owner, cost, s, w);
    }
  }
}

std::vector<std::vector<int>> seersOfSummaries(const Plan& plan,
                                               const std::vector<InputSummary>& all) {
  std::map<std::tuple<int, int64_t, int64_t>, const std::vector<int>*> seersOf;
  for (const auto& f : plan.files)
    seersOf[{static_cast<int>(f.file.kind), f.file.id, f.file.gpu}] = &f.seers;
  std::vector<std::vector<int>> seers(all.size());
  for (size_t i = 0; i < all.size(); ++i) {
    auto it = seersOf.find({static_cast<int>(all[i].file.kind), all[i].file.id, all[i].file.gpu});
    if (it != seersOf.end()) seers[i] = *it->second;
  }
  return seers;
}

}  // namespace xstack
