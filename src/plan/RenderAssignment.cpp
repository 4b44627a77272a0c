#include "xstack/plan/RenderAssignment.h"

#include <algorithm>

namespace xstack {

void assignRenderers(std::vector<OutputFile>& outputs, const std::vector<InputSummary>& all,
                     const std::vector<std::vector<int>>& seers, int ranks,
                     double rank0WriteWeight) {
  if (ranks <= 1) return;
  std::vector<double> load(static_cast<size_t>(ranks), 0.0);
  for (OutputFile& o : outputs) {
    for (Chunk& c : o.chunks) {
      if (c.kind == ChunkKind::ProcessMeta || c.kind == ChunkKind::ThreadMeta) continue;
      const InputSummary& s = all[c.input];
      // Cost: events rendered (a RankRows chunk renders all of them; spans
      // and counters are small and cost their count).
      const double cost = c.kind == ChunkKind::RankRows
                              ? static_cast<double>(std::max<uint64_t>(s.events + s.memEvents, 1))
                              : static_cast<double>(c.kind == ChunkKind::Spans ? s.spanCount : 1);
      load[0] += rank0WriteWeight * cost;
      if (c.kind == ChunkKind::RankRows && c.input < seers.size()) {
        int best = c.owner;
        for (int r : seers[c.input]) {
          if (r < 0 || r >= ranks) continue;
          const auto lr = static_cast<size_t>(r), lb = static_cast<size_t>(best);
          // Ties go to the lower rank, but never to rank 0 (it also writes).
          if (load[lr] < load[lb] || (load[lr] == load[lb] && (best == 0 || (r != 0 && r < best))))
            best = r;
        }
        c.owner = best;
      }
      if (c.owner >= 0 && c.owner < ranks) load[static_cast<size_t>(c.owner)] += cost;
    }
  }
}

}  // namespace xstack
