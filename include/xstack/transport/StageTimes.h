// One rank's stage times and counts (core/StageClock.h) as `report --timings`
// gathers them to print on rank 0: a message of the one codec (wire/Wire.h).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "xstack/core/StageClock.h"
#include "xstack/wire/Wire.h"

namespace xstack {

struct StageTimes {
  std::vector<StageTime> stages;
  std::vector<std::pair<std::string, uint64_t>> counts;
};

StageTimes stageTimesOf(const StageClock& clock);
void writeStageTimes(wire::Writer& w, const StageTimes& t);
StageTimes readStageTimes(wire::Reader& r);

}  // namespace xstack
