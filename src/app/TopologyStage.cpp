// The topology told by the traces themselves (Chrome JSON), once read:
// --gpus-per-trainer from the devices every rank's GPU work ran on when
// nothing before the read told it, else the value settled before the read
// (given, from deviceProperties) checked against them
// (plan/TopologyInference.h).
#include <algorithm>
#include <tuple>

#include "xstack/app/ReportStages.h"
#include "xstack/plan/TopologyInference.h"

namespace xstack {
namespace {

std::string baseName(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::vector<TraceTopologyEvidence> traceEvidence(const GatheredSummaries& gathered) {
  std::vector<TraceTopologyEvidence> out;
  for (const InputSummary& s : gathered.all) {
    if (s.file.kind != InputKind::Profile || s.status == InputStatus::Failed) continue;
    out.push_back({s.file.id, baseName(s.file.path), s.gpuDevices, s.visibleGpus});
  }
  // By training rank: the same message for any np and placement.
  std::sort(out.begin(), out.end(),
            [](const TraceTopologyEvidence& a, const TraceTopologyEvidence& b) {
              return std::tie(a.rank, a.file) < std::tie(b.rank, b.file);
            });
  return out;
}

// Whether any profile of the plan is displayed under one topology and not
// under the other (pure: the same answer on every rank).
bool displayChanges(const Plan& plan, const Topology& a, const Topology& b) {
  return std::any_of(plan.files.begin(), plan.files.end(), [&](const PlannedFile& f) {
    return f.file.kind == InputKind::Profile &&
           a.rankDisplayed(f.file.id) != b.rankDisplayed(f.file.id);
  });
}

// collective when P changes the display of some rank: P from the traces' GPU
// devices; the profiles whose display it changes read again, the summaries
// gathered again.
Status settleFromTraceDevices(ReportRun& run, const Plan& plan, std::vector<LocalInput>& local,
                              GatheredSummaries& gathered, int64_t worldSize) {
  const GpusPerTrainer gpt = gpusPerTrainerFromTraceDevices(traceEvidence(gathered), worldSize);
  for (const auto& line : gpt.notes) run.log(line);
  run.gpusPerTrainerSource = gpt.source;
  const Topology before = run.options.topology;
  run.options.topology.gpusPerTrainer = gpt.value;
  if (!displayChanges(plan, before, run.options.topology)) return {};
  const ReadOptions ro = readOptionsOf(run, run.options.topology);
  readWhereDisplayChanged(plan, run.comm.rank(), ro, before, local);
  Expected<GatheredSummaries> again = gatherSummariesStage(run, local);  // collective
  if (!again.ok()) return again.error();
  gathered = std::move(*again);
  run.clock.mark("topology");
  return {};
}

}  // namespace

Status topologyStage(ReportRun& run, const Plan& plan, std::vector<LocalInput>& local,
                     GatheredSummaries& gathered, int64_t worldSize) {
  if (!run.source || !run.source->topologyFromTraces()) return {};
  if (run.gpusPerTrainerAfterRead) {
    if (Status settled = settleFromTraceDevices(run, plan, local, gathered, worldSize); !settled)
      return settled;
  }
  const TraceTopologyCheck check = gpusPerTrainerAgainstTraces(
      traceEvidence(gathered), run.options.topology.gpusPerTrainer, run.gpusPerTrainerSource);
  if (!check.contradiction.empty()) return Failure::usage("error: " + check.contradiction);
  for (const auto& line : check.warnings) run.log(line);
  return {};
}

}  // namespace xstack
