// The topology told by the traces themselves (Chrome JSON), once read:
// --gpus-per-trainer from the devices every rank's GPU work ran on when
// nothing before the read told it, else the value settled before the read
// (given, from deviceProperties) checked against them
// (plan/TopologyInference.h).
#include <algorithm>
#include <tuple>

#include "xstack/cmd/report/stages/ReportStages.h"
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

Expected<Topology> topologyStage(ReportRun& run, const PlannedTopology& planned,
                                 const GatheredSummaries& gathered, int64_t worldSize) {
  Topology topology = planned.topology;
  if (!run.source || !run.source->topologyFromTraces()) return topology;
  auto words = [&topology](const std::string& line) {
    return topology.nodeWords ? inNodeWords(line) : line;
  };
  GpusPerTrainerSource source = planned.source;
  if (planned.settledAfterRead) {
    const GpusPerTrainer gpt = gpusPerTrainerFromTraceDevices(traceEvidence(gathered), worldSize);
    for (const auto& line : gpt.notes) run.log(words(line));
    source = gpt.source;
    topology.gpusPerTrainer = gpt.value;
  }
  const TraceTopologyCheck check = gpusPerTrainerAgainstTraces(
      traceEvidence(gathered), topology.gpusPerTrainer, source, worldSize);
  if (!check.contradiction.empty()) return Failure::usage("error: " + words(check.contradiction));
  for (const auto& line : check.warnings) run.log(words(line));
  for (const auto& line : check.notes) run.log(words(line));
  return topology;
}

}  // namespace xstack
