#include "xstack/plan/RenderAssignment.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace xstack {
namespace {

// Cost of rendering chunk `c`: events rendered (a RankRows chunk renders all
// of them; spans and counters are small and cost their count).
double chunkCost(const Chunk& c, const InputSummary& s) {
  if (c.kind == ChunkKind::RankRows)
    return static_cast<double>(std::max<uint64_t>(s.events + s.memEvents, 1));
  return static_cast<double>(c.kind == ChunkKind::Spans ? s.spanCount : 1);
}

// The least-loaded rank of `seers`, starting from `current`; ties go to the
// lower rank, but never to rank 0 (it also writes).
int leastLoaded(int current, const std::vector<int>& seers, const std::vector<double>& load) {
  int best = current;
  const int ranks = static_cast<int>(load.size());
  for (int r : seers) {
    if (r < 0 || r >= ranks) continue;
    const auto lr = static_cast<size_t>(r), lb = static_cast<size_t>(best);
    const bool tieWins = load[lr] == load[lb] && (best == 0 || (r != 0 && r < best));
    if (load[lr] < load[lb] || tieWins) best = r;
  }
  return best;
}

}  // namespace

void assignRenderers(std::vector<OutputFile>& outputs, const std::vector<InputSummary>& all,
                     const std::vector<std::vector<int>>& seers, int ranks,
                     double rank0WriteWeight) {
  if (ranks <= 1) return;
  std::vector<double> load(static_cast<size_t>(ranks), 0.0);
  for (OutputFile& o : outputs) {
    for (Chunk& c : o.chunks) {
      if (c.kind == ChunkKind::ProcessMeta || c.kind == ChunkKind::ThreadMeta) continue;
      const double cost = chunkCost(c, all[c.input]);
      load[0] += rank0WriteWeight * cost;
      if (c.kind == ChunkKind::RankRows && c.input < seers.size())
        c.owner = leastLoaded(c.owner, seers[c.input], load);
      if (c.owner >= 0 && c.owner < ranks) load[static_cast<size_t>(c.owner)] += cost;
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
