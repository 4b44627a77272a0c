// The node (host) of each trace's rank, for the PyTorch family's words
// (docs/FORMAT.md section 2, "Words"): "rank 5 (node gpu-b, local rank 1)".
//   1. When each host reads its own files (every profile seen only by ranks
//      of the host that reads it, node-local folders, and the profiles on two
//      hosts or more), a rank's node is the host that read its file;
//   2. else, when every profile's name says its host (tensorboard_trace_handler's
//      default worker name, <host>_<pid>.<time>.pt.trace.json[.gz]; not a name
//      that begins rank<R>., as xstack synth's do), that host;
//   3. else none: the node is the rank's trainer number (rank / P).
// Pure, and the same on every rank for any np (the plan is).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "xstack/plan/Plan.h"

namespace xstack {

// The host a trace's file name says (rule 2), or nothing.
std::optional<std::string> hostFromTraceName(std::string_view fileName);

// rank -> host of every profile of `plan` (rules 1 and 2); empty under rule 3.
std::map<int64_t, std::string> nodeNamesOf(const Plan& plan);

}  // namespace xstack
