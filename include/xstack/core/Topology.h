// Rank arithmetic of docs/FORMAT.md section 2. All ids are non-negative 64-bit.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace xstack {

// The largest ids xstack takes from file names and DCGM rows. A
// larger one is no real job's (a stray file, a corrupt row) and would overflow the
// rank arithmetic (trainer x P + gpu): the parsers and the listing warn, naming the
// file, and do not use it. Every id within them keeps rankOf far from overflow.
inline constexpr int64_t kMaxGpuId = 1023;                    // a trainer's local GPU g
inline constexpr int64_t kMaxGpusPerTrainer = kMaxGpuId + 1;  // P
inline constexpr int64_t kMaxTrainerId = int64_t{1} << 20;    // T
inline constexpr int64_t kMaxRankId = (kMaxTrainerId + 1) * kMaxGpusPerTrainer - 1;  // R

struct Topology {
  int64_t gpusPerTrainer = 8;  // P
  int64_t groupSize = 8;       // S: trainers per group
  int64_t displaySize = 2;     // D: trainers per group shown in detail
  // Ranks shown in detail beyond D (sorted): the ranks the findings name
  // (cmd/report/stages/AnalyseStage.cpp).
  std::vector<int64_t> shownRanks;

  Topology() = default;
  // The options P, S and D; no rank shown beyond D until the findings name one.
  Topology(int64_t p, int64_t s, int64_t d) : gpusPerTrainer(p), groupSize(s), displaySize(d) {}

  int64_t trainerOf(int64_t rank) const { return rank / gpusPerTrainer; }
  int64_t gpuOf(int64_t rank) const { return rank % gpusPerTrainer; }
  int64_t groupOfTrainer(int64_t trainer) const { return trainer / groupSize; }
  int64_t indexInGroup(int64_t trainer) const { return trainer % groupSize; }
  int64_t groupOf(int64_t rank) const { return groupOfTrainer(trainerOf(rank)); }
  bool trainerDisplayed(int64_t trainer) const { return indexInGroup(trainer) < displaySize; }
  bool rankDisplayed(int64_t rank) const {
    return trainerDisplayed(trainerOf(rank)) ||
           std::binary_search(shownRanks.begin(), shownRanks.end(), rank);
  }
  int64_t rankOf(int64_t trainer, int64_t gpu) const { return trainer * gpusPerTrainer + gpu; }
};

}  // namespace xstack
