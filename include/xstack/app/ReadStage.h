// Stages 3-4 (read, compute): each rank reads the files the plan gave it,
// parses them, pairs markers, finds rows and counts, and keeps what the
// write stage will render. Purely local: no communication.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "xstack/core/Topology.h"
#include "xstack/input/DcgmParser.h"
#include "xstack/input/NetParser.h"
#include "xstack/input/ProfileReader.h"
#include "xstack/model/InputSummary.h"
#include "xstack/model/MarkerPairer.h"
#include "xstack/plan/Plan.h"

namespace xstack {

struct LocalInput {
  InputSummary summary;
  std::vector<Span> spans;  // profile
  std::vector<DcgmSample> dcgm;
  std::vector<NetSample> net;
  std::string stepTable;  // profile: encoded analysis/StepTable.h table (empty with --no-analysis)
};

struct ReadOptions {
  Topology topology;
  // (Displayed profiles are not kept between reading and rendering: the
  // renderer reads and decodes them again, into reused memory. Measured
  // against keeping them decoded: faster with 2 ranks, and a rank holds one
  // profile at a time; docs/PERFORMANCE.md.)
  bool analysis = true;  // build each profile's step table (app/AnalysisStage.h)
};

// Reads every file of `plan` whose reader is `myRank`, in plan order.
// `onFile` is called after each file (for progress).
std::vector<LocalInput> readAssigned(const Plan& plan, int myRank, const ReadOptions& options,
                                     const std::function<void(const LocalInput&)>& onFile = {});

// The summary part for one profile already in memory (also used by
// `xstack inspect`). `displayed` adds rows and memory warnings.
void summarizeProfile(const LoadedProfile& p, bool displayed, InputSummary& s,
                      std::vector<Span>& spans);

// "path: what" -> "what" (problems in traces must not depend on paths).
std::string withoutPath(const std::string& message, const std::string& path);

}  // namespace xstack
