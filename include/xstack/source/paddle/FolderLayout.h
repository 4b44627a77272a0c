// Stage 1 (discover) for the Paddle input family (docs/FORMAT.md section 1):
// list the input files this node can see. Runs on every MPI rank, touches
// only directory entries and stat(), never opens a file.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "xstack/event/InputListing.h"

namespace xstack {

// --data-dir D gives D/profile, D/dcgm, D/net, D/time unless overridden.
InputDirs resolveInputDirs(const std::string& dataDir, const InputDirs& overrides);

// Lists the four folders. A folder that does not exist on this node is not
// an error (node-local layouts differ; a dcgm/net/time path that exists as
// something else is); whether profiles exist at all is decided collectively later.
InputListing listInputs(const InputDirs& dirs);

// "<anything>.<R>": the integer after the last dot (digits only, fits int63).
std::optional<int64_t> trailingId(std::string_view fileName);
// "time.txt.<g>.<T>" (any prefix): the two trailing integers {g, T}.
std::optional<std::pair<int64_t, int64_t>> timeFileIds(std::string_view fileName);

}  // namespace xstack
