// Command line of the four subcommands. Parsing never touches MPI: a usage
// error is found by every rank alike, printed by rank 0 only, exit code 2.
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "xstack/cmd/diff/Diff.h"
#include "xstack/cmd/inspect/Inspect.h"
#include "xstack/cmd/report/Report.h"
#include "xstack/cmd/synth/Synth.h"
#include "xstack/core/Failure.h"

namespace xstack {

struct HelpRequest {
  std::string text;
};

// A command line that cannot run is a Failure of kind Usage (exit 2).
using Command =
    std::variant<ReportOptions, SynthOptions, InspectOptions, DiffOptions, HelpRequest, Failure>;

Command parseCommandLine(const std::vector<std::string>& args);

}  // namespace xstack
