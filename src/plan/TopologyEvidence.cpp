#include "xstack/plan/TopologyEvidence.h"

#include "xstack/core/Topology.h"
#include "xstack/wire/Wire.h"

namespace xstack {

TopologyEvidence evidenceOfPlan(const Plan& plan, std::optional<int64_t> explicitP) {
  TopologyEvidence ev;
  ev.explicitP = explicitP;
  for (const PlannedFile& f : plan.files) ev.files.push_back(f.file);
  return ev;
}

bool needsDcgmGpuIds(const TopologyEvidence& evidence) {
  if (evidence.explicitP) return false;
  for (const InputFile& f : evidence.files)
    if (f.kind == InputKind::Time) return false;
  return true;
}

std::vector<std::string> dcgmFilesReadBy(const Plan& plan, int rank) {
  std::vector<std::string> paths;
  for (const PlannedFile& f : plan.files)
    if (f.file.kind == InputKind::Dcgm && f.reader == rank) paths.push_back(f.file.path);
  return paths;
}

std::string encodeGpuIds(const std::set<int64_t>& ids) {
  wire::Writer w;
  w.list(ids, [](wire::Writer& x, int64_t id) { x.i64(id); });
  return w.take();
}

Expected<std::vector<int64_t>> mergeGpuIds(const std::vector<std::string>& encoded) {
  std::set<int64_t> all;
  for (size_t r = 0; r < encoded.size(); ++r) {
    wire::Reader in(encoded[r], "the DCGM GPU ids of MPI rank " + std::to_string(r));
    std::vector<int64_t> ids;
    in.list(ids, [](wire::Reader& x) { return x.i64(); });
    if (Status st = in.finish(); !st.ok()) return st.error();
    for (int64_t id : ids)
      if (id >= 0 && id <= kMaxGpuId) all.insert(id);  // the parsers give no other
  }
  return std::vector<int64_t>(all.begin(), all.end());
}

}  // namespace xstack
