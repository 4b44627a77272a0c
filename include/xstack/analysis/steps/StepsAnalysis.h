// The "steps" analysis (docs/ANALYSIS.md): per rank, the step table
// (analysis/StepTable.h) with HTA's GPU breakdown (analysis/GpuActivity.h);
// for the job, the findings (analysis/Findings.h) over every rank's table,
// their instants in the traces, and steps.csv, ranks.csv, findings.json,
// report.html and the terminal summary.
//
// merge sends every rank's step tables without kernel names to rank 0 (point
// to point, one message per MPI rank, O(ranks x (steps + kKernelsPerRank))
// numbers whatever the names' length), which computes the findings; write
// asks the readers for the few kernel names the report shows (one at a time).
#pragma once

#include "xstack/analysis/Analysis.h"

namespace xstack {

const Analysis& stepsAnalysis();

}  // namespace xstack
