// A group of tracks an analysis draws in the traces (one of the collectives'
// process groups), as the output plan sees it: every trace file with one of
// `ranks` carries it, rendered by MPI rank `owner`, which holds its data.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace xstack {

struct TraceTrackGroup {
  std::string name;
  std::vector<int64_t> ranks;  // training ranks, sorted
  int owner = 0;
};

}  // namespace xstack
