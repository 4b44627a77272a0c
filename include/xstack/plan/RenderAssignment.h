// Stage 5 plan (render): which rank renders each chunk. Chunks of counters
// and spans stay with the rank that read them (they live in its memory).
// A displayed rank's rows (RankRows, nearly all of the output) are rendered
// from the profile file, read again at render time (or from the rows its
// reader kept, much cheaper there: RenderWeights::keptRows), so any rank that
// sees that file can render them: they go, in output order, to the rank that
// sees the file and would finish them first. Rank 0 writes every byte of every trace, so its
// load grows by kRank0WriteWeight x each chunk's cost as the output goes by.
// At the default weight (1) rank 0 renders only rows no other rank can see
// (node-local files on rank 0's node with no other rank there): measured on
// 2 ranks bound to 2 cores, every share given to rank 0 made the run slower
// (its rendering competes with its writing on one core, and rank 0 writes in
// output order, so the others stall while it renders; docs/PERFORMANCE.md).
// Pure and deterministic: every rank computes the same assignment.
#pragma once

#include <vector>

#include "xstack/model/InputSummary.h"
#include "xstack/plan/OutputPlan.h"
#include "xstack/plan/Plan.h"

namespace xstack {

// Rank 0's load for writing a chunk, against rendering it, by default (the
// JSON format's; each output format says its own: render/OutputFormats.h).
inline constexpr double kRank0WriteWeight = 1.0;

// Rendering rows the reader kept from its read (InputSummary::rowsKept), against
// decoding the file again and rendering: Kineto gzip JSON, 8 ranks of 144 k events,
// one process: 0.22 s of CPU for walking and writing all 8 kept, 2.2 s more for
// decoding 7 of them again (docs/PERFORMANCE.md, issue 32).
inline constexpr double kKeptRowsRenderCost = 0.05;

// The costs the assignment weighs, in units of rendering one event from its file.
struct RenderWeights {
  double rank0Write = kRank0WriteWeight;  // rank 0 writing an event of any chunk
  double keptRows = 1.0;                  // rendering an event of rows kept on their reader
};

// `seers[i]`: the ranks that can read summary i's file (ascending).
// Sets the owner of every RankRows chunk in `outputs`: in output order, to the
// seer that would finish it first, counting rank 0's writing of every chunk.
void assignRenderers(std::vector<OutputFile>& outputs, const std::vector<InputSummary>& all,
                     const std::vector<std::vector<int>>& seers, int ranks,
                     RenderWeights weights = {});

// The plan joined with the gathered summaries: `result[i]` is every rank that
// sees summary i's file (ascending), empty when the plan does not list it.
std::vector<std::vector<int>> seersOfSummaries(const Plan& plan,
                                               const std::vector<InputSummary>& all);

}  // namespace xstack
