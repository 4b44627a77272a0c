#include "xstack/plan/TopologyEvidence.h"

#include <set>
#include <sstream>

#include "xstack/source/SourceRegistry.h"

namespace xstack {
namespace {

// GPU ids of the rows of one DCGM file ("" when it cannot be read).
std::set<int64_t> dcgmGpuIdsOf(const InputFile& file) {
  CounterFileData data;
  std::set<int64_t> ids;
  if (!defaultSource().readCounterFile(file, file.path, data)) return ids;
  for (const GpuTelemetrySample& s : data.gpu) ids.insert(s.gpu);
  return ids;
}

}  // namespace

TopologyEvidence gatherTopologyEvidence(Comm& comm, const Plan& plan,
                                        std::optional<int64_t> explicitP) {
  TopologyEvidence ev;
  ev.explicitP = explicitP;
  bool anyTime = false;
  for (const PlannedFile& f : plan.files) {
    ev.files.push_back(f.file);
    anyTime = anyTime || f.file.kind == InputKind::Time;
  }
  if (explicitP || anyTime) return ev;  // the same decision on every rank: no collective
  std::set<int64_t> mine;
  for (const PlannedFile& f : plan.files)
    if (f.file.kind == InputKind::Dcgm && f.reader == comm.rank())
      for (int64_t id : dcgmGpuIdsOf(f.file)) mine.insert(id);
  std::ostringstream text;
  for (int64_t id : mine) text << id << ' ';
  std::set<int64_t> all;
  for (const std::string& s : comm.allgather(text.str())) {
    std::istringstream in(s);
    for (int64_t id; in >> id;) all.insert(id);
  }
  ev.dcgmGpuIds.assign(all.begin(), all.end());
  return ev;
}

}  // namespace xstack
