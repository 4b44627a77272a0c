#include <malloc.h>

#include <cstdio>
#include <exception>
#include <optional>

#include "xstack/cmd/report/stages/ReportStages.h"
#include "xstack/core/FaultInjection.h"
#include "xstack/core/TerminalText.h"

namespace xstack {

ReadOptions readOptionsOf(const ReportRun& run, const Topology& topology) {
  ReadOptions ro;
  ro.topology = topology;
  ro.analysis = run.options.analysis;
  ro.source = run.source;
  ro.spill = run.options.spill;
  ro.threads = run.options.threads;
  return ro;
}

namespace {

// Why this rank's analyses will fail when their per-rank parts could not be
// read back from --spill-dir (the analyses then fail naming only the part):
// printed by this rank, as rank 0 only learns that its parts were empty.
void sayWhyPartsAreEmpty(const ReportRun& run, const std::vector<LocalInput>& local) {
  for (const LocalInput& in : local) {
    if (!in.parts || in.parts->readBackError().empty()) continue;
    std::fprintf(stderr, "xstack: rank %d on %s: the analyses' per-rank parts: %s\n",
                 run.comm.rank(), terminalSafe(run.comm.host()).c_str(),
                 terminalSafe(in.parts->readBackError()).c_str());
    return;  // one shelf for all of them
  }
}

}  // namespace

Expected<std::vector<LocalInput>> readInputsStage(ReportRun& run, const Plan& plan,
                                                  const Topology& topology) {
  const ReadOptions ro = readOptionsOf(run, topology);
  // Test hook: change files after their listing. collective (when armed, on
  // every rank alike): every rank's change is made before any rank reads.
  runInjectedCommand("read-cmd", run.comm.rank());
  if (faultArmed("read-cmd")) run.comm.barrier();
  std::vector<LocalInput> local;
  std::optional<Failure> mine;  // this rank's failure
  try {
    uint64_t files = 0, done = 0;
    for (const auto& f : plan.files) files += f.reader == run.comm.rank();
    local = readAssigned(plan, run.comm.rank(), ro,
                         [&](const LocalInput&) { run.progress.update("read", ++done, files); });
  } catch (const std::exception& e) {
    mine = Failure::read(e.what()).onRank(run.comm.rank(), run.comm.host());
  }
  run.progress.finish();
  sayWhyPartsAreEmpty(run, local);
  malloc_trim(0);
  run.clock.mark("read");
  if (run.comm.allTrue(!mine)) return local;
  // Printed by the rank that failed: rank 0 only learns that some rank did.
  if (mine)
    std::fprintf(stderr, "xstack: rank %d on %s: read failed: %s\n", mine->rank,
                 terminalSafe(mine->host).c_str(), terminalSafe(mine->message).c_str());
  return Failure::read("reading failed on some rank; nothing written");
}

}  // namespace xstack
