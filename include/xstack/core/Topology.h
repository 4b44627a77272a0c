// Rank arithmetic of docs/FORMAT.md section 2. All ids are non-negative 64-bit.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace xstack {

struct Topology {
  int64_t gpusPerTrainer = 8;  // P
  int64_t groupSize = 8;       // S: trainers per group
  int64_t displaySize = 2;     // D: trainers per group shown in detail
  // Ranks shown in detail beyond D (sorted): the ranks the findings name
  // (app/AnalyseStage.cpp, issue 20 item 3).
  std::vector<int64_t> shownRanks;

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
