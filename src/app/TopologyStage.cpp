// The topology told by the traces themselves (Chrome JSON), once read: the
// --gpus-per-trainer settled before the read (given, from deviceProperties,
// or assumed) checked against the device every rank's GPU work ran on
// (plan/TopologyInference.h, gpusPerTrainerAgainstTraces).
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

}  // namespace

Status topologyStage(ReportRun& run, const GatheredSummaries& gathered) {
  if (!run.source || !run.source->topologyFromTraces()) return {};
  const TraceTopologyCheck check = gpusPerTrainerAgainstTraces(
      traceEvidence(gathered), run.options.topology.gpusPerTrainer, run.gpusPerTrainerSource);
  if (!check.contradiction.empty()) return Error{"error: " + check.contradiction};
  for (const auto& line : check.warnings) run.log(line);
  return {};
}

}  // namespace xstack
