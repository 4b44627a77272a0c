#include "xstack/plan/TopologyInference.h"

#include <algorithm>
#include <filesystem>
#include <set>
#include <string_view>
#include <utility>

#include "xstack/core/Topology.h"

namespace xstack {
namespace {

constexpr int64_t kAssumedGpusPerTrainer = 8;

std::string baseName(const std::string& path) {
  return std::filesystem::path(path).filename().string();
}

// Up to three file names and the folder of the first, e.g.
// "time.txt.0.1, time.txt.1.1 (+2 more) in /data/time".
std::string nameFiles(const std::vector<const InputFile*>& fs) {
  std::string s;
  for (size_t i = 0; i < fs.size() && i < 3; ++i) s += (i ? ", " : "") + baseName(fs[i]->path);
  if (fs.size() > 3) s += " (+" + std::to_string(fs.size() - 3) + " more)";
  if (!fs.empty()) s += " in " + std::filesystem::path(fs[0]->path).parent_path().string();
  return s;
}

// Under P: time files whose rank has no profile, and profiles with no time file.
struct Mismatch {
  std::vector<const InputFile*> timesWithoutProfile;
  std::vector<const InputFile*> profilesWithoutTime;
  size_t total() const { return timesWithoutProfile.size() + profilesWithoutTime.size(); }
};

Mismatch mismatchUnder(int64_t P, const std::vector<const InputFile*>& times,
                       const std::vector<const InputFile*>& profiles) {
  std::set<int64_t> profileRanks, timeRanks;
  for (const InputFile* p : profiles) profileRanks.insert(p->id);
  Mismatch m;
  for (const InputFile* t : times) {
    if (t->gpu >= P) continue;  // counted separately (gpu >= P)
    const int64_t rank = t->id * P + t->gpu;
    timeRanks.insert(rank);
    if (!profileRanks.count(rank)) m.timesWithoutProfile.push_back(t);
  }
  for (const InputFile* p : profiles)
    if (!timeRanks.count(p->id)) m.profilesWithoutTime.push_back(p);
  return m;
}

std::string contradictionOf(int64_t P, int64_t implied, const std::vector<const InputFile*>& times,
                            const std::vector<const InputFile*>& profiles) {
  const std::string head = "--gpus-per-trainer " + std::to_string(P) +
                           " contradicts the time files (time.txt.<gpu>.<trainer>): ";
  const std::string tail = "; they imply --gpus-per-trainer " + std::to_string(implied) +
                           " (give that, or leave the option out to use it)";
  std::vector<const InputFile*> tooHigh;
  for (const InputFile* t : times)
    if (t->gpu >= P) tooHigh.push_back(t);
  if (!tooHigh.empty())
    return head + nameFiles(tooHigh) + " name GPU " + std::to_string(tooHigh.back()->gpu) +
           ", not below " + std::to_string(P) + tail;
  const Mismatch given = mismatchUnder(P, times, profiles);
  if (given.timesWithoutProfile.empty() || given.profilesWithoutTime.empty()) return {};
  if (mismatchUnder(implied, times, profiles).total() >= given.total()) return {};
  return head + "under it, " + nameFiles(given.timesWithoutProfile) +
         " belong to ranks with no profile, while " +
         std::to_string(given.profilesWithoutTime.size()) + " profiles (" +
         nameFiles(given.profilesWithoutTime) + ") have no time file" + tail;
}

// The time files naming GPU `gpu`.
std::vector<const InputFile*> timesOfGpu(int64_t gpu, const std::vector<const InputFile*>& times) {
  std::vector<const InputFile*> out;
  for (const InputFile* t : times)
    if (t->gpu == gpu) out.push_back(t);
  return out;
}

// How badly P fits: time files naming a GPU >= P, time files whose rank has
// no profile and profiles with no time file, all counted.
size_t misfitCount(int64_t P, const std::vector<const InputFile*>& times,
                   const std::vector<const InputFile*>& profiles) {
  size_t tooHigh = 0;
  for (const InputFile* t : times) tooHigh += t->gpu >= P;
  return tooHigh + mismatchUnder(P, times, profiles).total();
}

// The value time files imply when that value rests on stray files: none of
// the files naming the largest GPU belongs to a rank with a profile while
// profiles have no time file, and no other time file names a GPU or a smaller
// value (another GPU named + 1) fits the files and profiles better. Empty when
// the value is plausible; else the usage error naming the stray files.
std::string strayTimeFiles(int64_t implied, const std::vector<const InputFile*>& times,
                           const std::vector<const InputFile*>& profiles) {
  if (profiles.empty()) return {};
  const std::vector<const InputFile*> top = timesOfGpu(implied - 1, times);
  std::set<int64_t> profileRanks;
  for (const InputFile* p : profiles) profileRanks.insert(p->id);
  for (const InputFile* t : top)
    if (profileRanks.count(t->id * implied + t->gpu)) return {};
  const Mismatch m = mismatchUnder(implied, times, profiles);
  if (m.profilesWithoutTime.empty()) return {};
  std::set<int64_t> others;  // the values the other GPUs named would give
  for (const InputFile* t : times)
    if (t->gpu < implied - 1) others.insert(t->gpu + 1);
  const size_t misfit = misfitCount(implied, times, profiles);
  std::optional<int64_t> better;
  size_t betterMisfit = misfit;
  for (int64_t P : others)
    if (const size_t n = misfitCount(P, times, profiles); n < betterMisfit) {
      better = P;
      betterMisfit = n;
    }
  if (!others.empty() && !better) return {};
  return "the time files imply --gpus-per-trainer " + std::to_string(implied) + " (" +
         nameFiles(top) + " name GPU " + std::to_string(implied - 1) +
         "), but under it no time file naming GPU " + std::to_string(implied - 1) +
         " belongs to a rank with a profile, while " +
         std::to_string(m.profilesWithoutTime.size()) + " profiles (" +
         nameFiles(m.profilesWithoutTime) + ") have no time file; " +
         (better ? "the other time files imply --gpus-per-trainer " + std::to_string(*better)
                 : std::string("no other time file names a GPU")) +
         ". Move the stray time files out of the time folder, or give --gpus-per-trainer if the "
         "nodes have " +
         std::to_string(implied) + " GPUs";
}

// The ids as ranges, e.g. "0..7, 1000".
std::string idRanges(const std::set<int64_t>& ids) {
  std::string s;
  for (auto it = ids.begin(); it != ids.end();) {
    const int64_t first = *it;
    int64_t last = first;
    for (++it; it != ids.end() && *it == last + 1; ++it) last = *it;
    s += (s.empty() ? "" : ", ") + std::to_string(first);
    if (last != first) s += ".." + std::to_string(last);
  }
  return s;
}

// The DCGM rows tell the GPUs per trainer only when their ids are those of a node's GPUs:
// every id from 0 to the largest (dcgmIds: not empty). Empty then; else the usage error
// naming the ids and files (e.g. one row of "GPU 1000" beside GPUs 0..7 would make
// trainer 1's ranks 1001..2001).
std::string sparseDcgmIds(const std::vector<int64_t>& dcgmIds,
                          const std::vector<InputFile>& files) {
  const std::set<int64_t> ids(dcgmIds.begin(), dcgmIds.end());
  if (static_cast<int64_t>(ids.size()) == *ids.rbegin() + 1) return {};
  std::vector<const InputFile*> dcgm;
  for (const InputFile& f : files)
    if (f.kind == InputKind::Dcgm) dcgm.push_back(&f);
  return "there are no time files, and the DCGM rows (" + nameFiles(dcgm) + ") name GPU ids " +
         idRanges(ids) +
         ": not every id from 0 to the largest, so they do not say how many GPUs "
         "a trainer has (the largest, " +
         std::to_string(*ids.rbegin()) + ", would give --gpus-per-trainer " +
         std::to_string(*ids.rbegin() + 1) + "). Give --gpus-per-trainer";
}

// dcgm/net files of trainers that no profile belongs to under P.
std::vector<std::string> strayTrainerFiles(int64_t P, const std::vector<InputFile>& files) {
  std::set<int64_t> trainers;
  for (const InputFile& f : files)
    if (f.kind == InputKind::Profile) trainers.insert(f.id / P);
  std::vector<std::string> out;
  for (const InputFile& f : files) {
    if (f.kind != InputKind::Dcgm && f.kind != InputKind::Net) continue;
    if (trainers.count(f.id)) continue;
    out.push_back("warning: " + std::string(kindName(f.kind)) + " file " + f.path +
                  " is of trainer " + std::to_string(f.id) +
                  ", which has no profiles (with --gpus-per-trainer " + std::to_string(P) +
                  " its ranks would be " + std::to_string(f.id * P) + ".." +
                  std::to_string(f.id * P + P - 1) + ")");
  }
  return out;
}

// A trace's local GPU, when it shows one (see gpusPerTrainerAgainstTraces);
// a device above kMaxGpuId is no node's (warned about by the check).
std::optional<int64_t> shownLocalGpu(const TraceTopologyEvidence& t) {
  if (t.gpuDevices.size() != 1 || t.gpuDevices[0] < 0 || t.gpuDevices[0] > kMaxGpuId)
    return std::nullopt;
  if (t.visibleGpus <= 1 && t.gpuDevices[0] == 0) return std::nullopt;
  return t.gpuDevices[0];
}

// Whether the trace's only GPU device is one no node has (above kMaxGpuId).
bool implausibleDevice(const TraceTopologyEvidence& t) {
  return t.gpuDevices.size() == 1 && t.gpuDevices[0] > kMaxGpuId;
}

// Whether the traces are those of a job of one rank: one trace, of rank 0, and no file
// declaring more ranks (worldSize 0: none says). Its GPU is no evidence of the GPUs per
// node: such a job may run on any GPU of its node (CUDA_VISIBLE_DEVICES, a launcher).
bool oneRankJob(const std::vector<TraceTopologyEvidence>& traces, int64_t worldSize) {
  return traces.size() == 1 && traces[0].rank == 0 && worldSize <= 1;
}

// The first trace whose shown local GPU does not fit P, or nullptr.
const TraceTopologyEvidence* firstMisfit(int64_t P,
                                         const std::vector<TraceTopologyEvidence>& traces) {
  for (const TraceTopologyEvidence& t : traces) {
    const std::optional<int64_t> d = shownLocalGpu(t);
    if (d && (*d >= P || t.rank % P != *d)) return &t;
  }
  return nullptr;
}

std::string misfitText(int64_t P, const TraceTopologyEvidence& t) {
  return t.file + " (rank " + std::to_string(t.rank) + ") runs its GPU work on GPU " +
         std::to_string(*shownLocalGpu(t)) + ", but with --gpus-per-trainer " + std::to_string(P) +
         " rank " + std::to_string(t.rank) + " is local GPU " + std::to_string(t.rank % P) +
         " of trainer " + std::to_string(t.rank / P);
}

// The largest value a fit is searched up to: the largest P xstack takes.
constexpr int64_t kLargestSearchedP = kMaxGpusPerTrainer;

// The trace showing the largest local GPU, or nullptr when none shows one.
const TraceTopologyEvidence* largestShown(const std::vector<TraceTopologyEvidence>& traces) {
  const TraceTopologyEvidence* best = nullptr;
  for (const TraceTopologyEvidence& t : traces) {
    const std::optional<int64_t> d = shownLocalGpu(t);
    if (d && (!best || *d > *shownLocalGpu(*best))) best = &t;
  }
  return best;
}

// The smallest P above `from` - 1 that fits every trace (at least the
// largest shown GPU + 1), up to kLargestSearchedP.
std::optional<int64_t> smallestFit(const std::vector<TraceTopologyEvidence>& traces,
                                   int64_t from = 1) {
  const TraceTopologyEvidence* top = largestShown(traces);
  for (int64_t P = std::max(from, top ? *shownLocalGpu(*top) + 1 : 1); P <= kLargestSearchedP; ++P)
    if (!firstMisfit(P, traces)) return P;
  return std::nullopt;
}

std::string howSettled(int64_t P, GpusPerTrainerSource source) {
  const std::string p = "--gpus-per-trainer " + std::to_string(P);
  switch (source) {
    case GpusPerTrainerSource::Option:
      return p;
    case GpusPerTrainerSource::Assumed:
      return p + " (assumed)";
    default:
      return p + " (from the " + gpusPerTrainerSourceName(source) + ")";
  }
}

// P for a job of one rank whose GPU work runs on a GPU its rank 0 is under no P: 1, with
// a note naming the trace and its GPU.
GpusPerTrainer oneRankOnItsGpu(const TraceTopologyEvidence& t) {
  GpusPerTrainer r;
  r.value = 1;
  r.source = GpusPerTrainerSource::TraceGpuIds;
  r.notes.push_back("note: --gpus-per-trainer 1: the job has one rank (" + t.file + ", rank " +
                    std::to_string(t.rank) + "), whose GPU work runs on GPU " +
                    std::to_string(*shownLocalGpu(t)) +
                    ", the GPU it was given (no evidence of the GPUs per node); give "
                    "--gpus-per-trainer for another value");
  return r;
}

}  // namespace

const char* gpusPerTrainerSourceName(GpusPerTrainerSource s) {
  switch (s) {
    case GpusPerTrainerSource::Option:
      return "option";
    case GpusPerTrainerSource::TimeFiles:
      return "time file names";
    case GpusPerTrainerSource::DcgmGpuIds:
      return "GPU ids of the DCGM rows";
    case GpusPerTrainerSource::Assumed:
      return "assumed value";
    case GpusPerTrainerSource::TraceDevices:
      return "traces' deviceProperties";
    case GpusPerTrainerSource::TraceGpuIds:
      return "GPUs of the traces' GPU work";
  }
  return "?";
}

TraceTopologyCheck gpusPerTrainerAgainstTraces(const std::vector<TraceTopologyEvidence>& traces,
                                               int64_t P, GpusPerTrainerSource source,
                                               int64_t worldSize) {
  TraceTopologyCheck c;
  if (oneRankJob(traces, worldSize)) return c;
  for (const TraceTopologyEvidence& t : traces)
    if (implausibleDevice(t))
      c.warnings.push_back("warning: " + t.file + " (rank " + std::to_string(t.rank) +
                           ") runs its GPU work on device " + std::to_string(t.gpuDevices[0]) +
                           ", above " + std::to_string(kMaxGpuId) +
                           ": not used as evidence of GPUs per node");
  const TraceTopologyEvidence* bad = firstMisfit(P, traces);
  if (!bad) return c;
  const std::optional<int64_t> fit = smallestFit(traces);
  if (!fit) {  // device ids that do not follow the ranks: nothing wrong with the job
    c.notes.push_back("note: the traces' GPUs follow rank = trainer x P + GPU for no P up to " +
                      std::to_string(kLargestSearchedP) + ": " + misfitText(P, *bad) +
                      "; the trace files are named by rank mod " + std::to_string(P));
    return c;
  }
  c.contradiction = howSettled(P, source) + " contradicts the traces: " + misfitText(P, *bad) +
                    "; they fit --gpus-per-trainer " + std::to_string(*fit) + " (give that)";
  return c;
}

GpusPerTrainer gpusPerTrainerFromTraceDevices(const std::vector<TraceTopologyEvidence>& traces,
                                              int64_t worldSize) {
  GpusPerTrainer r;
  r.value = kAssumedGpusPerTrainer;
  r.source = GpusPerTrainerSource::Assumed;
  const TraceTopologyEvidence* top = largestShown(traces);
  const std::optional<int64_t> fit = top ? smallestFit(traces) : std::nullopt;
  if (!fit && top && oneRankJob(traces, worldSize)) return oneRankOnItsGpu(*top);
  if (!fit) {
    r.notes.push_back(
        "note: --gpus-per-trainer 8 assumed: no trace's deviceProperties says how many GPUs a "
        "node has, and " +
        std::string(top ? "no value up to " + std::to_string(kLargestSearchedP) +
                              " fits the GPUs the ranks run on"
                        : "no rank's GPU work shows its GPU (none on a GPU above 0 or on one of "
                          "several GPUs it saw)") +
        "; give --gpus-per-trainer if it is not 8");
    return r;
  }
  r.value = *fit;
  r.source = GpusPerTrainerSource::TraceGpuIds;
  const int64_t d = *shownLocalGpu(*top);
  std::string note = "note: --gpus-per-trainer " + std::to_string(r.value) +
                     ", from the GPUs the traces' GPU work runs on (no deviceProperties; largest " +
                     "GPU " + std::to_string(d) + ", of " + top->file + " (rank " +
                     std::to_string(top->rank) + ")";
  if (r.value > d + 1) note += "; the smallest value every rank's GPU fits";
  note += ")";
  const std::optional<int64_t> larger = smallestFit(traces, r.value + 1);
  if (larger && worldSize > static_cast<int64_t>(traces.size()))
    note += "; the job's other ranks are not here, and larger values fit the ranks here too (" +
            std::to_string(*larger) + ", ...): give --gpus-per-trainer if the nodes have more GPUs";
  r.notes.push_back(note);
  return r;
}

std::string inNodeWords(std::string line) {
  static const std::pair<std::string_view, std::string_view> kWords[] = {
      {"--gpus-per-trainer", "--gpus-per-node"},
      {"rank = trainer x P + GPU", "rank = node x P + local rank"},
      {" is local GPU ", " is local rank "},
      {" of trainer ", " of node "}};
  for (const auto& [from, to] : kWords)
    for (size_t at = line.find(from); at != std::string::npos; at = line.find(from, at + to.size()))
      line.replace(at, from.size(), to);
  return line;
}

std::optional<int64_t> gpusPerTrainerFromTimeFiles(const std::vector<InputFile>& files) {
  std::optional<int64_t> largest;
  for (const InputFile& f : files)
    if (f.kind == InputKind::Time) largest = std::max(largest.value_or(0), f.gpu);
  if (!largest) return std::nullopt;
  return *largest + 1;
}

GpusPerTrainer inferGpusPerTrainer(const TopologyEvidence& ev) {
  std::vector<const InputFile*> times, profiles;
  for (const InputFile& f : ev.files) {
    if (f.kind == InputKind::Time) times.push_back(&f);
    if (f.kind == InputKind::Profile) profiles.push_back(&f);
  }
  const std::optional<int64_t> fromTime = gpusPerTrainerFromTimeFiles(ev.files);
  GpusPerTrainer r;
  if (ev.explicitP) {
    r.value = *ev.explicitP;
    r.source = GpusPerTrainerSource::Option;
    if (fromTime && *fromTime != r.value)
      r.contradiction = contradictionOf(r.value, *fromTime, times, profiles);
  } else if (fromTime) {
    r.value = *fromTime;
    r.source = GpusPerTrainerSource::TimeFiles;
    r.contradiction = strayTimeFiles(*fromTime, times, profiles);
    if (!r.contradiction.empty()) return r;
    r.notes.push_back("note: --gpus-per-trainer " + std::to_string(r.value) +
                      ", from the time file names (time.txt.<gpu>.<trainer>, largest gpu " +
                      std::to_string(r.value - 1) + ")");
    const Mismatch m = mismatchUnder(r.value, times, profiles);
    if (!m.profilesWithoutTime.empty())
      r.notes.push_back("note: under it " + std::to_string(m.profilesWithoutTime.size()) +
                        " profiles have no time file (" + nameFiles(m.profilesWithoutTime) +
                        "); if time files are missing, give --gpus-per-trainer");
  } else if (!ev.dcgmGpuIds.empty()) {
    r.value = *std::max_element(ev.dcgmGpuIds.begin(), ev.dcgmGpuIds.end()) + 1;
    r.source = GpusPerTrainerSource::DcgmGpuIds;
    r.contradiction = sparseDcgmIds(ev.dcgmGpuIds, ev.files);
    if (!r.contradiction.empty()) return r;
    r.notes.push_back("note: --gpus-per-trainer " + std::to_string(r.value) +
                      ", from the GPU ids of the DCGM rows (no time files; largest id " +
                      std::to_string(r.value - 1) + ")");
  } else if (ev.traceVisibleGpus > 1) {
    r.value = ev.traceVisibleGpus;
    r.source = GpusPerTrainerSource::TraceDevices;
    r.notes.push_back("note: --gpus-per-trainer " + std::to_string(r.value) +
                      ", from the traces' deviceProperties (the most GPUs a rank's process saw)");
  } else if (ev.tracesTellDevices) {  // settled after the read, from the GPU devices
    r.value = kAssumedGpusPerTrainer;
    r.source = GpusPerTrainerSource::Assumed;
    r.settledAfterRead = true;
  } else {
    r.value = kAssumedGpusPerTrainer;
    r.source = GpusPerTrainerSource::Assumed;
    r.notes.push_back(
        "note: --gpus-per-trainer 8 assumed: no time files and no DCGM rows say how many GPUs a "
        "trainer has; give --gpus-per-trainer if it is not 8");
  }
  if (r.contradiction.empty()) r.warnings = strayTrainerFiles(r.value, ev.files);
  return r;
}

}  // namespace xstack
