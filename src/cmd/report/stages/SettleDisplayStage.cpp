// The display settles once: after the topology (--gpus-per-trainer from the
// traces) and the findings (the ranks they name are shown) are final, the
// profiles whose display changed since the first read are read again, once,
// and the summaries gathered again, once.
#include <algorithm>

#include "xstack/cmd/report/stages/ReportStages.h"

namespace xstack {
namespace {

// Whether any profile of the plan is displayed under one topology and not
// under the other (pure: the same answer on every rank).
bool displayChanges(const Plan& plan, const Topology& a, const Topology& b) {
  return std::any_of(plan.files.begin(), plan.files.end(), [&](const PlannedFile& f) {
    return f.file.kind == InputKind::Profile &&
           a.rankDisplayed(f.file.id) != b.rankDisplayed(f.file.id);
  });
}

}  // namespace

Status settleDisplayStage(ReportRun& run, const Plan& plan, const Topology& readTopology,
                          const Topology& finalTopology, std::vector<LocalInput>& local,
                          GatheredSummaries& gathered) {
  if (!displayChanges(plan, readTopology, finalTopology)) return {};
  const ReadOptions ro = readOptionsOf(run, finalTopology);
  readWhereDisplayChanged(plan, run.comm.rank(), ro, readTopology, local);
  Expected<GatheredSummaries> again = gatherSummariesStage(run, local);  // collective
  if (!again.ok()) return again.error();
  gathered = std::move(*again);
  run.clock.mark("display");
  return {};
}

}  // namespace xstack
