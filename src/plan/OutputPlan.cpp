#include "xstack/plan/OutputPlan.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "xstack/model/TracePids.h"

namespace xstack {

std::string OutputFile::fileName() const {
  return "traceFile_" + std::to_string(group) + "_" + std::to_string(gpu) +
         std::string(traceFileSuffix(format));
}

std::vector<OutputFile> withFormats(const std::vector<OutputFile>& outputs,
                                    const std::vector<TraceFormat>& formats) {
  std::vector<OutputFile> out;
  out.reserve(outputs.size() * formats.size());
  for (const OutputFile& o : outputs)
    for (size_t f = 0; f < formats.size(); ++f) {
      out.push_back(o);
      out.back().format = formats[f];
      out.back().countsWarnings = f == 0;
    }
  return out;
}

JobShape jobShape(const std::vector<InputSummary>& all, const Topology& topo) {
  JobShape s;
  int64_t maxRank = -1;
  std::vector<int64_t> present;
  for (const InputSummary& x : all) {
    if (x.file.kind != InputKind::Profile) continue;
    maxRank = std::max(maxRank, x.file.id);
    present.push_back(x.file.id);
    ++s.ranks;
  }
  std::sort(present.begin(), present.end());
  for (int64_t r = 0, i = 0; r <= maxRank && s.missingRanks.size() < kMaxMissingRanks; ++r) {
    if (i < static_cast<int64_t>(present.size()) && present[static_cast<size_t>(i)] == r)
      ++i;
    else
      s.missingRanks.push_back(r);
  }
  if (maxRank >= 0) {
    s.trainers = topo.trainerOf(maxRank) + 1;
    s.groups = (s.trainers + topo.groupSize - 1) / topo.groupSize;
  }
  return s;
}

namespace {

// The summaries by subject.
struct InputIndex {
  std::map<int64_t, size_t> profileOf;                        // rank -> summary
  std::map<int64_t, size_t> dcgmOf, netOf;                    // trainer -> summary
  std::multimap<std::pair<int64_t, int64_t>, size_t> timeOf;  // (trainer, gpu) -> summary

  explicit InputIndex(const std::vector<InputSummary>& all) {
    for (size_t i = 0; i < all.size(); ++i) {
      const InputFile& f = all[i].file;
      switch (f.kind) {
        case InputKind::Profile:
          profileOf[f.id] = i;
          break;
        case InputKind::Dcgm:
          dcgmOf[f.id] = i;
          break;
        case InputKind::Net:
          netOf[f.id] = i;
          break;
        case InputKind::Time:
          timeOf.insert({{f.id, f.gpu}, i});
          break;
      }
    }
  }
};

// Trainers and time files of output `o` (its ranks are set).
void describeOutput(OutputFile& o, const InputIndex& in, const JobShape& shape,
                    const Topology& topo) {
  const int64_t firstTrainer = o.group * topo.groupSize;
  o.trainersInGroup = std::min(topo.groupSize, shape.trainers - firstTrainer);
  for (int64_t r : o.ranks) {
    int64_t t = topo.trainerOf(r);
    if (o.trainers.empty() || o.trainers.back() != t) o.trainers.push_back(t);
    auto range = in.timeOf.equal_range({t, o.gpu});
    for (auto it = range.first; it != range.second; ++it) o.inputs.push_back(it->second);
  }
}

// Process 0: its metadata, then per rank its thread metadata and spans.
void addPipelineChunks(OutputFile& o, const InputIndex& in, const std::vector<InputSummary>& all) {
  o.chunks.push_back({ChunkKind::ProcessMeta, 0, kPipelinePid, 0, 0, 0});
  for (int64_t r : o.ranks) {
    size_t idx = in.profileOf.at(r);
    o.chunks.push_back({ChunkKind::ThreadMeta, 0, kPipelinePid, r, 0, idx});
    if (all[idx].spanCount)
      o.chunks.push_back({ChunkKind::Spans, all[idx].reader, kPipelinePid, r, 0, idx});
  }
}

// The trainers of file `o` shown in detail, ascending: the first D of its group and those of the
// ranks a finding names (topo.shownRanks with this file's GPU), so that a shown rank's DCGM and
// net counters are in the file beside its rows.
std::vector<int64_t> shownTrainers(const OutputFile& o, const Topology& topo) {
  const int64_t firstTrainer = o.group * topo.groupSize;
  std::vector<int64_t> out;
  for (int64_t i = 0; i < std::min(topo.displaySize, o.trainersInGroup); ++i)
    out.push_back(firstTrainer + i);
  for (int64_t r : topo.shownRanks)
    if (topo.groupOf(r) == o.group && topo.gpuOf(r) == o.gpu) out.push_back(topo.trainerOf(r));
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// The counter processes (kCounterGroups, in output order): the shown trainers of this file
// that have a DCGM / net file with counters for that process. Chunk subject: the trainer T.
void addCounterChunks(OutputFile& o, const InputIndex& in, const std::vector<InputSummary>& all,
                      const Topology& topo) {
  const std::vector<int64_t> trainers = shownTrainers(o, topo);
  for (const CounterGroup group : kCounterGroups) {
    const int64_t pid = counterPid(group);
    const bool net = isNetGroup(group);
    const auto& files = net ? in.netOf : in.dcgmOf;
    bool metaDone = false;
    for (int64_t t : trainers) {
      auto it = files.find(t);
      if (it == files.end()) continue;
      const InputSummary& s = all[it->second];
      if (!s.counters(group, net ? 0 : o.gpu)) continue;
      if (!metaDone) o.chunks.push_back({ChunkKind::ProcessMeta, 0, pid, 0, 0, 0});
      metaDone = true;
      o.chunks.push_back(
          {net ? ChunkKind::Net : ChunkKind::Dcgm, s.reader, pid, t, o.gpu, it->second});
    }
  }
  for (int64_t t : trainers) {
    for (const auto* files : {&in.dcgmOf, &in.netOf}) {
      auto it = files->find(t);
      if (it != files->end()) o.inputs.push_back(it->second);
    }
  }
}

// Processes kFirstRankPid..: every displayed rank's rows, numbered consecutively.
void addRankRowChunks(OutputFile& o, const InputIndex& in, const std::vector<InputSummary>& all,
                      const Topology& topo) {
  int64_t pid = kFirstRankPid;
  for (int64_t r : o.ranks) {
    size_t idx = in.profileOf.at(r);
    const InputSummary& s = all[idx];
    if (!topo.rankDisplayed(r) || s.rows.empty()) continue;
    o.chunks.push_back({ChunkKind::RankRows, s.reader, pid, r, 0, idx});
    pid = nextRankFirstPid(pid, s.rows.size());
  }
}

}  // namespace

std::vector<OutputFile> planOutputs(const std::vector<InputSummary>& all, const Topology& topo) {
  const JobShape shape = jobShape(all, topo);
  const InputIndex in(all);
  std::map<std::pair<int64_t, int64_t>, OutputFile> outputs;
  for (const auto& [rank, idx] : in.profileOf) {
    OutputFile& o = outputs[{topo.groupOf(rank), topo.gpuOf(rank)}];
    o.group = topo.groupOf(rank);
    o.gpu = topo.gpuOf(rank);
    o.ranks.push_back(rank);
    o.inputs.push_back(idx);
  }
  // Missing ranks go to their output in one pass (linear in outputs + missing
  // ranks; ascending order is kept).
  for (int64_t r : shape.missingRanks) {
    auto it = outputs.find({topo.groupOf(r), topo.gpuOf(r)});
    if (it != outputs.end()) it->second.missingRanks.push_back(r);
  }
  for (auto& [key, o] : outputs) {
    describeOutput(o, in, shape, topo);
    addPipelineChunks(o, in, all);
    addCounterChunks(o, in, all, topo);
    addRankRowChunks(o, in, all, topo);
    // Subject order, never gather order: the bytes must not depend on which rank read what.
    std::sort(o.inputs.begin(), o.inputs.end(), [&](size_t a, size_t b) {
      const InputFile &x = all[a].file, &y = all[b].file;
      return std::tie(x.kind, x.id, x.gpu) < std::tie(y.kind, y.id, y.gpu);
    });
  }
  std::vector<OutputFile> out;
  for (auto& kv : outputs) out.push_back(std::move(kv.second));
  return out;
}

int64_t lastPidOf(const OutputFile& o, const std::vector<InputSummary>& all) {
  int64_t lastPid = kPipelinePid;
  for (const Chunk& c : o.chunks) {
    const size_t rows = c.kind == ChunkKind::RankRows ? all[c.input].rows.size() : 1;
    lastPid = std::max(lastPid, lastPidOfChunk(c.pid, rows));
  }
  return lastPid;
}

namespace {

// Whether sorted `a` and sorted `b` share an element.
bool intersects(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  for (size_t i = 0, j = 0; i < a.size() && j < b.size();) {
    if (a[i] == b[j]) return true;
    a[i] < b[j] ? ++i : ++j;
  }
  return false;
}

}  // namespace

void addTrackChunks(std::vector<OutputFile>& outputs, const std::vector<TrackSet>& sets,
                    const std::vector<InputSummary>& all, const Topology& topo) {
  for (OutputFile& o : outputs) {
    std::vector<int64_t> ranks;  // displayed, sorted
    for (int64_t r : o.ranks)
      if (topo.rankDisplayed(r)) ranks.push_back(r);
    std::sort(ranks.begin(), ranks.end());
    for (size_t set = 0; set < sets.size(); ++set) {
      const int64_t pid = lastPidOf(o, all) + 1;
      bool processDone = false;
      for (size_t g = 0; g < sets[set].groups.size(); ++g) {
        const TraceTrackGroup& group = sets[set].groups[g];
        if (!intersects(ranks, group.ranks)) continue;
        if (!processDone) o.chunks.push_back({ChunkKind::AnalysisProcess, 0, pid, 0, 0, 0, set});
        processDone = true;
        o.chunks.push_back(
            {ChunkKind::AnalysisTrack, group.owner, pid, static_cast<int64_t>(g), 0, 0, set});
      }
    }
  }
}

}  // namespace xstack
