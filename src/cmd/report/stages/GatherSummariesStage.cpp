#include <algorithm>
#include <tuple>

#include "xstack/cmd/report/stages/ReportStages.h"

namespace xstack {

Expected<GatheredSummaries> gatherSummariesStage(ReportRun& run,
                                                 const std::vector<LocalInput>& local) {
  std::vector<InputSummary> mine;
  mine.reserve(local.size());
  for (const auto& in : local) mine.push_back(in.summary);
  std::vector<std::string> blobs = run.comm.allgather(encodeSummaries(mine));
  GatheredSummaries out;
  for (int r = 0; r < run.comm.size(); ++r) {
    if (r == run.comm.rank()) out.firstLocal = out.all.size();
    Expected<std::vector<InputSummary>> decoded = decodeSummaries(blobs[static_cast<size_t>(r)]);
    if (!decoded) return Failure::read(decoded.error().message).onRank(r, {});
    for (auto& s : *decoded) out.all.push_back(std::move(s));
  }
  run.clock.mark("gather");
  return out;
}

Status noReadableInputCheck(const GatheredSummaries& gathered) {
  constexpr size_t kNamed = 5;
  std::vector<const InputSummary*> profiles;
  for (const InputSummary& s : gathered.all) {
    if (s.file.kind != InputKind::Profile) continue;
    if (s.status != InputStatus::Failed) return {};
    profiles.push_back(&s);
  }
  if (profiles.empty()) return {};
  std::sort(profiles.begin(), profiles.end(), [](const InputSummary* a, const InputSummary* b) {
    return std::tie(a->file.id, a->file.path) < std::tie(b->file.id, b->file.path);
  });
  std::string named;
  for (size_t i = 0; i < profiles.size() && i < kNamed; ++i)
    named += (i ? ", " : "") + profiles[i]->file.path + " (" + profiles[i]->problem + ")";
  if (profiles.size() > kNamed)
    named += " (+" + std::to_string(profiles.size() - kNamed) + " more)";
  return Failure::usage("error: no readable trace: none of the " + std::to_string(profiles.size()) +
                        " trace files could be read: " + named + "; nothing written");
}

}  // namespace xstack
