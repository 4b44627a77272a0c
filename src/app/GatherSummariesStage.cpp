#include "xstack/app/ReportStages.h"

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

}  // namespace xstack
