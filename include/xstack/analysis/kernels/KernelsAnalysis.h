// The "kernels" analysis (docs/ANALYSIS.md "kernels.csv"): per rank, the
// numbers of every GPU-row slice name (analysis/GpuActivity.h,
// KernelStatsBuilder); rank 0 writes kernels.csv, fetching the ranks' tables
// from their readers one at a time, in rank order (point to point), so it
// holds one remote table at a time, never every rank's names.
#pragma once

#include "xstack/analysis/Analysis.h"

namespace xstack {

const Analysis& kernelsAnalysis();

}  // namespace xstack
