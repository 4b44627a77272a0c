// Rank arithmetic of docs/FORMAT.md section 2. All ids are non-negative 64-bit.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
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

  // The words that name a rank in messages and analysis files (docs/FORMAT.md
  // section 2): Paddle's, "rank R (trainer t, gpu g)", or, for the PyTorch
  // family's traces (JSON but Paddle's), "rank R (node N, local rank g)", N
  // the rank's host when the inputs tell it (nodeNames), else its trainer t.
  bool nodeWords = false;
  std::map<int64_t, std::string> nodeNames;  // rank -> its node's host (nodeWords only)

  // The rank's node: its host when known, else its trainer number.
  std::string nodeOf(int64_t rank) const {
    auto it = nodeNames.find(rank);
    return it != nodeNames.end() ? it->second : std::to_string(trainerOf(rank));
  }
  // "rank 5 (trainer 2, gpu 1)" or "rank 5 (node h2, local rank 1)".
  std::string rankWho(int64_t rank) const {
    const std::string g = std::to_string(gpuOf(rank));
    return "rank " + std::to_string(rank) +
           (nodeWords ? " (node " + nodeOf(rank) + ", local rank " + g + ")"
                      : " (trainer " + std::to_string(trainerOf(rank)) + ", gpu " + g + ")");
  }
  // The node of every rank of `trainer`: "trainer 2" or "node h2".
  std::string trainerWho(int64_t trainer) const {
    return nodeWords ? "node " + nodeOf(rankOf(trainer, 0)) : "trainer " + std::to_string(trainer);
  }
};

}  // namespace xstack
