// The options that shape the outputs or the MPI protocol must be
// the same on every rank (a launcher script may give them per rank). Each
// rank encodes what its user gave; the encodings are compared right at the
// start of the run, before any collective whose message sizes depend on them.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "xstack/cmd/report/Report.h"
#include "xstack/wire/Wire.h"

namespace xstack {

// One rank's options that must agree: (name, value as text) in a fixed order.
using AgreedOptions = std::vector<std::pair<std::string, std::string>>;

// This rank's options that must agree, as given (--gpus-per-trainer "not
// given" when it is to be inferred). Per-node folders (--data-dir,
// --profile-dir, ...) and the display-only options (--plan, --no-progress,
// --timings) are not in it.
AgreedOptions agreedOptionsOf(const ReportOptions& o);

// The options inside the agreement's message (wire/Wire.h) and back.
void writeAgreedOptions(wire::Writer& w, const AgreedOptions& options);
AgreedOptions readAgreedOptions(wire::Reader& r);

// The lines naming each option that differs between ranks, with its values
// and the ranks that gave each, e.g.
//   "--display-size differs between ranks: 2 on ranks 0-1; 4 on rank 2";
// empty when every rank gave the same. `perRank[r]` is rank r's options; an
// option a rank does not have is "(unknown: another version)".
std::vector<std::string> describeOptionMismatch(const std::vector<AgreedOptions>& perRank);

// "0-2,5,7-8": ascending rank numbers as ranges.
std::string rankRangesText(const std::vector<int>& ascending);

}  // namespace xstack
