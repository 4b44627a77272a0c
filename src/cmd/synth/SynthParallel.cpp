#include "xstack/cmd/synth/SynthParallel.h"

#include <algorithm>

namespace xstack {

SynthCoords synthCoordsOf(const SynthParallelShape& s, int64_t rank) {
  SynthCoords c;
  c.tp = rank % s.tp;
  if (s.tpPpDp) {
    c.pp = (rank / s.tp) % s.pp;
    c.dp = rank / (s.tp * s.pp);
  } else {
    c.dp = (rank / s.tp) % s.dp;
    c.pp = rank / (s.tp * s.dp);
  }
  return c;
}

int64_t synthRankOf(const SynthParallelShape& s, const SynthCoords& c) {
  return s.tpPpDp ? c.tp + s.tp * (c.pp + s.pp * c.dp) : c.tp + s.tp * (c.dp + s.dp * c.pp);
}

std::vector<int64_t> synthGroupRanks(const SynthParallelShape& s, SynthGroupKind kind,
                                     int64_t rank) {
  std::vector<int64_t> ranks;
  if (kind == SynthGroupKind::World) {
    for (int64_t r = 0; r < s.world(); ++r) ranks.push_back(r);
    return ranks;
  }
  SynthCoords c = synthCoordsOf(s, rank);
  int64_t* varying = kind == SynthGroupKind::Tensor ? &c.tp
                     : kind == SynthGroupKind::Data ? &c.dp
                                                    : &c.pp;
  const int64_t n = kind == SynthGroupKind::Tensor ? s.tp
                    : kind == SynthGroupKind::Data ? s.dp
                                                   : s.pp;
  for (int64_t i = 0; i < n; ++i) {
    *varying = i;
    ranks.push_back(synthRankOf(s, c));
  }
  return ranks;
}

std::vector<SynthProcessGroupInfo> synthProcessGroups(const SynthParallelShape& s) {
  std::vector<SynthProcessGroupInfo> groups;
  groups.push_back(
      {SynthGroupKind::World, "0", "default_pg", synthGroupRanks(s, SynthGroupKind::World, 0)});
  struct Kind {
    SynthGroupKind kind;
    const char* desc;
  };
  for (const Kind& k : {Kind{SynthGroupKind::Data, "DATA_PARALLEL_GROUP"},
                        Kind{SynthGroupKind::Tensor, "TENSOR_MODEL_PARALLEL_GROUP"},
                        Kind{SynthGroupKind::Pipeline, "PIPELINE_MODEL_PARALLEL_GROUP"}}) {
    for (int64_t r = 0; r < s.world(); ++r) {
      std::vector<int64_t> ranks = synthGroupRanks(s, k.kind, r);
      if (*std::min_element(ranks.begin(), ranks.end()) != r) continue;  // seen at its smallest
      groups.push_back({k.kind, std::to_string(groups.size()), k.desc, std::move(ranks)});
    }
  }
  return groups;
}

std::vector<SynthPipeStep> synth1F1B(int64_t stage, int64_t stages, int64_t microbatches) {
  const int64_t warmup = std::min(stages - 1 - stage, microbatches);
  std::vector<SynthPipeStep> steps;
  int64_t f = 0, b = 0;
  for (; f < warmup; ++f) steps.push_back({true, f});
  for (; f < microbatches; ++f, ++b) {
    steps.push_back({true, f});
    steps.push_back({false, b});
  }
  for (; b < microbatches; ++b) steps.push_back({false, b});
  return steps;
}

}  // namespace xstack
