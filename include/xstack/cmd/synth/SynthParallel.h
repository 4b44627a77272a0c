// The shape of a Megatron-style 3D-parallel job for `xstack synth --tp N --pp N
// --dp N`: how a global rank maps to its (tp, pp, dp) coordinates, the process
// groups every rank creates (named as torch.distributed names them), and the
// 1F1B pipeline schedule of one stage.
//
// Rank order "tp-dp-pp" (Megatron's default): TP varies fastest, then DP, then PP:
//   tp = r % TP, dp = (r / TP) % DP, pp = r / (TP x DP).
// Rank order "tp-pp-dp": TP fastest, then PP, then DP:
//   tp = r % TP, pp = (r / TP) % PP, dp = r / (TP x PP).
// A TP group holds the ranks of one (pp, dp), a PP group those of one (tp, dp)
// ordered by stage, a DP group those of one (tp, pp) ordered by dp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace xstack {

struct SynthParallelShape {
  int64_t tp = 1, pp = 1, dp = 1;
  bool tpPpDp = false;  // false: "tp-dp-pp" (Megatron's default), true: "tp-pp-dp"
  int64_t world() const { return tp * pp * dp; }
};

struct SynthCoords {
  int64_t tp = 0, pp = 0, dp = 0;
  bool operator==(const SynthCoords&) const = default;
};

SynthCoords synthCoordsOf(const SynthParallelShape& s, int64_t rank);
int64_t synthRankOf(const SynthParallelShape& s, const SynthCoords& c);

enum class SynthGroupKind : uint8_t { World, Data, Tensor, Pipeline };

// The global ranks of `rank`'s group of `kind`, ordered by the coordinate that
// varies within it (World: all ranks).
std::vector<int64_t> synthGroupRanks(const SynthParallelShape& s, SynthGroupKind kind,
                                     int64_t rank);

struct SynthProcessGroupInfo {
  SynthGroupKind kind = SynthGroupKind::World;
  std::string name;  // torch.distributed's pg name: "0" (the default group), "1", ...
  std::string desc;  // "default_pg", "DATA_PARALLEL_GROUP", "TENSOR_MODEL_PARALLEL_GROUP", ...
  std::vector<int64_t> ranks;
};

// Every process group of the job, in creation order (so in name order): the
// default group "0", then every DP group, every TP group, every PP group, each
// kind ordered by its smallest rank, as every rank creates them all (ranks not
// in a group still count it).
std::vector<SynthProcessGroupInfo> synthProcessGroups(const SynthParallelShape& s);

// The 1F1B schedule of stage `stage` (0-based) of `stages` with `microbatches`
// microbatches: min(stages - 1 - stage, microbatches) warm-up forwards, then
// alternating forward/backward, then the remaining backwards.
struct SynthPipeStep {
  bool forward = true;
  int64_t microbatch = 0;
  bool operator==(const SynthPipeStep&) const = default;
};
std::vector<SynthPipeStep> synth1F1B(int64_t stage, int64_t stages, int64_t microbatches);

}  // namespace xstack
