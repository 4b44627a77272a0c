// `xstack inspect FILE`: what one profile holds (counts, time range,
// devices, streams, marker pairs, memory tracks) and any parse problem.
// Exit 0 for a sound file, 3 for a partial one, 1 when it cannot be read.
#pragma once

#include <string>

namespace xstack {

struct InspectOptions {
  std::string file;
  bool json = false;
};

int runInspect(const InspectOptions& options);

}  // namespace xstack
