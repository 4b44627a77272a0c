// Stage 5 plan (render): which rank renders each chunk. Chunks of counters
// and spans stay with the rank that read them (they live in its memory).
// A displayed rank's rows (RankRows, nearly all of the output) are rendered
// from the profile file, read again at render time, so any rank that sees
// that file can render them: they are spread over those ranks, in output
// order, to the least-loaded one. Rank 0 also writes every byte of every
// trace, so its load grows by kRank0WriteWeight x each chunk's cost as the
// output goes by: with 2 ranks on one node it renders about a quarter of the
// rows, with 3 or more none (at the default weight), and its share is spread
// evenly over the run, so the other ranks render ahead while it writes.
// Pure and deterministic: every rank computes the same assignment.
#pragma once

#include <vector>

#include "xstack/model/InputSummary.h"
#include "xstack/trace/OutputPlan.h"

namespace xstack {

// Writing a byte on rank 0 (receive + write) against rendering it
// (decode + render), measured on the standard set (docs/PERFORMANCE.md).
inline constexpr double kRank0WriteWeight = 0.5;

// `seers[i]`: the ranks that can read summary i's file (ascending).
// Sets the owner of every RankRows chunk in `outputs`.
void assignRenderers(std::vector<OutputFile>& outputs, const std::vector<InputSummary>& all,
                     const std::vector<std::vector<int>>& seers, int ranks,
                     double rank0WriteWeight = kRank0WriteWeight);

}  // namespace xstack
