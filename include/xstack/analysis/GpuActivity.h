// One rank's GPU activity for ranks.csv and kernels.csv (docs/ANALYSIS.md
// "ranks.csv", "kernels.csv"), built while the rank's profile is decoded,
// from the format-neutral slices alone (event/Events.h), so every input
// format gets the same numbers.
//
// ranks.csv follows Holistic Trace Analysis (FORMAT-NOTES section 7):
//   GPU activity = a slice on a GPU row with stream (tid) >= 0 and
//     correlation >= 0, or named exactly "Event Sync" / "Context Sync" (any
//     stream, any correlation). A rank with no slice of correlation >= 0 at
//     all (Paddle dumps) has every GPU-row slice as an activity instead.
//   filter, only when the rank has >= 2 steps (forward spans): CPU-side
//     slices (rows CpuBlock, CudaApi) that start before the last step's
//     start are kept; a GPU activity stays when its correlation is that of a
//     kept CPU slice, or is < 0 (HTA keeps the correlation -1 ones because
//     some kept CPU event always lacks a correlation, e.g. the first step).
//     Without correlations (the fallback above): the GPU slices that start
//     before the last step's start stay (xstack's rule; HTA has none).
//   then rankBreakdown() over the survivors (analysis/RankBreakdown.h), and
//   HTA's idle split (idleSplit) over the survivors with a stream >= 0, each
//   launched at the latest start of a CPU-side slice with its correlation
//   (none: the rank has no correlations, e.g. Paddle dumps, and no split).
// kernels.csv counts every GPU-row slice of the profile (no filter), per
// name (Nsight's cuda_gpu_kern_sum); a name's category is HTA's kernel type.
//
// Memory: one entry per distinct GPU-row name; everything that grows with
// the trace goes to external sorters (io/ExternalSorter.h) within the
// builder's budget, spilled to disk past it: 40 bytes per GPU activity
// (interval, correlation, stream, type), 16 per launch (a CPU-side slice with
// a correlation). build() merge-joins the activities (by correlation) with
// the launches (by correlation, start), sorts the survivors by (start, end)
// for the breakdown and by (stream, start, end, launch) for the idle split,
// and streams each through its sweep (docs/DESIGN.md "Bounded memory per input").
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "xstack/analysis/NameIndexed.h"
#include "xstack/analysis/RankBreakdown.h"
#include "xstack/core/Status.h"
#include "xstack/event/Events.h"
#include "xstack/io/ExternalSorter.h"
#include "xstack/io/SpillFile.h"
#include "xstack/model/MarkerPairer.h"

namespace xstack {

// One kernels.csv row's numbers: the slices of one name on a rank's GPU rows.
struct KernelStat {
  std::string name;
  HtaKernelType type = HtaKernelType::Computation;  // by name (htaKernelTypeOf)
  uint64_t count = 0;
  uint64_t totalNs = 0;  // summed durations (end before start counts 0), held at 2^63 - 1
  uint64_t minNs = 0, maxNs = 0;
};

struct RankGpuActivity {
  uint64_t steps = 0;  // forward spans
  RankBreakdown breakdown;
};

// kernels.csv's numbers of one rank: per name over every GPU-row slice (no
// filter). One entry per distinct name.
class KernelStatsBuilder {
 public:
  // A GPU-row slice; returns its name's kernel type (htaKernelTypeOf).
  HtaKernelType add(const SliceEvent& e);
  // The stats ordered by name (bytewise); the builder is left empty.
  std::vector<KernelStat> take();
  // Names whose total ns was held at 2^63 - 1 (core/CheckedMath.h; sum_saturated).
  uint64_t saturatedSums() const { return saturatedSums_; }

 private:
  struct NameStats {
    HtaKernelType type;
    uint64_t count = 0, totalNs = 0, minNs = 0, maxNs = 0;  // totalNs: held at 2^63 - 1
    bool saturated = false;
  };
  uint64_t saturatedSums_ = 0;
  NameIndexed<NameStats> names_;
};

class GpuActivityBuilder {
 public:
  // `spill`: where the builder's sorters spill and the memory they share.
  explicit GpuActivityBuilder(SpillOptions spill = {});
  // Any slice, in input order; keeps GPU-row slices and correlated CPU-side ones.
  void addSlice(const SliceEvent& e);
  // The rank's numbers, given its forward/backward spans; the builder is left
  // empty. An Error when a sorter could not spill or read back its records
  // (it names the spill folder and why): never numbers from part of them.
  Expected<RankGpuActivity> build(const std::vector<Span>& spans);

 private:
  struct Timed {
    uint64_t startNs = 0, endNs = 0;  // endNs >= startNs
    int64_t correlation = -1;
    int64_t stream = -1;
    HtaKernelType type = HtaKernelType::Computation;
  };
  struct ByCorrelation {
    bool operator()(const Timed& a, const Timed& b) const { return a.correlation < b.correlation; }
  };
  struct ByStart {
    bool operator()(const Timed& a, const Timed& b) const { return a.startNs < b.startNs; }
  };
  struct Launch {
    int64_t correlation;
    uint64_t startNs;
  };
  struct ByCorrelationStart {
    bool operator()(const Launch& a, const Launch& b) const {
      return a.correlation != b.correlation ? a.correlation < b.correlation : a.startNs < b.startNs;
    }
  };
  class Survivors;
  void addGpuSlice(const SliceEvent& e);
  Status finishSorters();
  Status joinCorrelated(Survivors& out, bool filter, uint64_t lastStepStartNs);
  Status addLoose(Survivors& out, bool filter, uint64_t lastStepStartNs);

  SpillOptions spill_;
  // HTA's GPU activities with a correlation, and those without (sync events).
  ExternalSorter<Timed, ByCorrelation> correlated_;
  ExternalSorter<Timed, ByStart> loose_;
  // The other GPU-row slices, while no correlation was seen (then dropped).
  ExternalSorter<Timed, ByStart> uncorrelated_;
  bool sawCorrelation_ = false;
  ExternalSorter<Launch, ByCorrelationStart> launches_;  // CPU-side (correlation, startNs)
  NameIndexed<HtaKernelType> types_;                     // each kernel name's (htaKernelTypeOf)
};

// One rank's kernel stats as a wire message (wire/Wire.h), for the transfer to rank 0.
std::string encodeKernelStats(int64_t rank, const std::vector<KernelStat>& kernels);
// Sets `rank`; an Error (naming `what` and the byte offset) when the bytes are
// short, malformed or have bytes left over; never a throw.
Expected<std::vector<KernelStat>> decodeKernelStats(std::string_view bytes, int64_t& rank,
                                                    const std::string& what = "kernel table");

}  // namespace xstack
