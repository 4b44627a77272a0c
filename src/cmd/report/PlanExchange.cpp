#include "xstack/cmd/report/PlanExchange.h"

#include <utility>
#include <vector>

#include "xstack/plan/TopologyEvidence.h"
#include "xstack/source/SourceRegistry.h"

namespace xstack {

namespace {

// collective: the lowest MPI rank whose listing is the same as this rank's
// (itself when none): on a shared folder every rank lists the same files, and
// only the first sends them. An Error (alike on every rank) when a gathered
// digest is not one.
Expected<int> firstWithSameListing(Comm& comm, const InputListing& mine) {
  const std::string digest = listingDigest(mine);
  const std::vector<std::string> digests = comm.allgather(digest);
  for (size_t r = 0; r < digests.size(); ++r)
    if (digests[r].size() != digest.size())
      return Failure(Error("the listing digest of MPI rank " + std::to_string(r) + ": " +
                           std::to_string(digests[r].size()) + " bytes, not " +
                           std::to_string(digest.size())))
          .onRank(static_cast<int>(r), {});
  const std::string& own = digests[static_cast<size_t>(comm.rank())];
  for (int r = 0; r < comm.rank(); ++r)
    if (digests[static_cast<size_t>(r)] == own) return r;
  return comm.rank();
}

}  // namespace

Expected<Plan> gatherPlan(Comm& comm, const InputListing& mine) {
  const Expected<int> first = firstWithSameListing(comm, mine);
  if (!first) return first.error();
  const std::vector<std::string> all =
      comm.allgather(encodeListing(comm.host(), mine, *first == comm.rank() ? -1 : *first));
  std::vector<RankListing> listings;
  listings.reserve(all.size());
  for (size_t r = 0; r < all.size(); ++r) {
    Expected<RankListing> l = decodeListing(static_cast<int>(r), all[r]);
    if (!l) return Failure(l.error()).onRank(static_cast<int>(r), {});
    listings.push_back(std::move(*l));
  }
  return makePlan(listings);
}

Expected<TopologyEvidence> gatherTopologyEvidence(Comm& comm, const Plan& plan,
                                                  std::optional<int64_t> explicitP) {
  TopologyEvidence ev = evidenceOfPlan(plan, explicitP);
  if (!needsDcgmGpuIds(ev)) return ev;  // the same decision on every rank: no collective
  std::set<int64_t> mine;
  for (const std::string& path : dcgmFilesReadBy(plan, comm.rank()))
    for (int64_t id : dcgmGpuIdsOf(path)) mine.insert(id);
  Expected<std::vector<int64_t>> ids = mergeGpuIds(comm.allgather(encodeGpuIds(mine)));
  if (!ids) return ids.error();
  ev.dcgmGpuIds = std::move(*ids);
  return ev;
}

std::set<int64_t> dcgmGpuIdsOf(const std::string& path) {
  InputFile file;
  file.kind = InputKind::Dcgm;
  file.path = path;
  CounterFileData data;
  std::set<int64_t> ids;
  if (!defaultSource().readCounterFile(file, path, data)) return ids;
  for (const GpuTelemetrySample& s : data.gpu) ids.insert(s.gpu);
  return ids;
}

}  // namespace xstack
