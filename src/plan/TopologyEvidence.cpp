#include "xstack/plan/TopologyEvidence.h"

#include <sstream>

#include "xstack/core/Topology.h"

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
  std::ostringstream text;
  for (int64_t id : ids) text << id << ' ';
  return text.str();
}

std::vector<int64_t> mergeGpuIds(const std::vector<std::string>& encoded) {
  std::set<int64_t> all;
  for (const std::string& s : encoded) {
    std::istringstream in(s);
    for (int64_t id; in >> id;)
      if (id >= 0 && id <= kMaxGpuId) all.insert(id);  // the parsers give no other
  }
  return {all.begin(), all.end()};
}

}  // namespace xstack
