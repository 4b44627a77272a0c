// `xstack report`: the whole pipeline, on any number of ranks (SerialComm or
// MPI). Its stages, in order, are listed once: in ReportStages.h.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "xstack/cmd/common/ExitCode.h"
#include "xstack/comm/Comm.h"
#include "xstack/core/StageClock.h"
#include "xstack/core/Topology.h"
#include "xstack/event/InputListing.h"
#include "xstack/io/SpillFile.h"
#include "xstack/plan/OutputPlan.h"

namespace xstack {

struct ReportOptions {
  std::string dataDir;
  InputDirs dirs;  // explicit per-kind folders (override dataDir)
  std::string outDir;
  Topology topology;
  // true (--gpus-per-trainer not given): P is inferred from the inputs; false:
  // topology.gpusPerTrainer is used and checked against the time files.
  bool inferGpusPerTrainer = false;
  std::optional<uint64_t> timeOriginNs;
  bool showPlan = false;
  bool compress = false;  // traceFile_<k>_<g>.json.gz (zlib, streamed)
  // Output formats in order (--format): json (default), perfetto, or both.
  std::vector<TraceFormat> formats{TraceFormat::Json};
  bool fsync = false;  // sync each trace before it is renamed into place
  bool progress = true;
  bool timings = false;  // per-rank stage times on stderr (--timings)
  bool analysis = true;  // steps.csv, findings.json, report.html (--no-analysis: off)
  uint64_t pieceBytes = uint64_t{4} << 20;
  uint64_t mpiChunkBytes = uint64_t{1} << 30;
  // What one input's rows and analysis tables may hold in a rank's memory
  // before they spill to a scratch file in spill.dir (--memory-mb,
  // --spill-dir); the outputs do not depend on it.
  SpillOptions spill{{}, uint64_t{64} << 20};
  // Threads of each rank (--threads; default: the CPUs the rank may run on,
  // cpusOfProcess): its files are read, each on one thread, this many at once.
  // Per rank, not agreed between ranks: the outputs are the same bytes for any value.
  unsigned threads = 1;
};

// collective: every rank calls it with the same options; returns the exit
// code (the same on every rank). `clock`, when given, has the stages before
// runReport (launch, MPI start) and receives the pipeline's stages.
int runReport(Comm& comm, const ReportOptions& options, StageClock* clock = nullptr);

}  // namespace xstack
