// The analysis stage of `xstack report` (SPEC.md section 6): every MPI rank
// has built the step table of each profile it read (ReadStage, for every rank
// of the job, displayed or not); this stage gathers the encoded tables to
// rank 0 (point to point, O(ranks x steps) bytes), which computes the
// findings and writes steps.csv, findings.json and report.html into the
// output folder, each atomically (temporary file, then rename).
#pragma once

#include <string>
#include <vector>

#include "xstack/app/ReadStage.h"
#include "xstack/core/Status.h"
#include "xstack/dist/Comm.h"

namespace xstack {

struct AnalysisResult {
  Status written;                  // rank 0: the three files; ok elsewhere
  std::vector<std::string> lines;  // rank 0: the terminal summary (<= 10 lines)
};

// collective: every rank calls it after the read stage, with its own inputs.
// `originNs`: the job's time origin (steps.csv start_ns is relative to it).
AnalysisResult runAnalysisStage(Comm& comm, const std::vector<LocalInput>& local,
                                const Topology& topology, uint64_t originNs,
                                const std::string& outDir);

// The encoded step table of one profile already in memory (the --cache-mb
// path of the read stage; the streaming path builds it while decoding).
std::string stepTableOf(const ProfileData& data, int64_t rank, const std::vector<Span>& spans);

}  // namespace xstack
