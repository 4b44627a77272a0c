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
// Memory (what grows with the trace): 32 bytes per GPU-row slice (its
// interval, stream and correlation), 16 bytes per CPU-side slice that has a
// correlation (launches), one entry per distinct GPU-row name.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "xstack/analysis/RankBreakdown.h"
#include "xstack/event/Events.h"
#include "xstack/model/MarkerPairer.h"

namespace xstack {

// One kernels.csv row's numbers: the slices of one name on a rank's GPU rows.
struct KernelStat {
  std::string name;
  HtaKernelType type = HtaKernelType::Computation;  // by name (htaKernelTypeOf)
  uint64_t count = 0;
  uint64_t totalNs = 0;  // summed durations (end before start counts 0)
  uint64_t minNs = 0, maxNs = 0;
};

struct RankGpuActivity {
  uint64_t steps = 0;  // forward spans
  RankBreakdown breakdown;
  std::vector<KernelStat> kernels;  // ordered by name (bytewise)
};

class GpuActivityBuilder {
 public:
  // Any slice, in input order; keeps GPU-row slices and correlated CPU-side ones.
  void addSlice(const SliceEvent& e);
  // The rank's numbers, given its forward/backward spans; the builder is left empty.
  RankGpuActivity build(const std::vector<Span>& spans);

 private:
  struct Timed {
    uint64_t startNs = 0, endNs = 0;  // endNs >= startNs
    int64_t correlation = -1;
    int64_t stream = -1;
  };
  struct NameStats {
    HtaKernelType type;
    uint64_t count = 0, totalNs = 0, minNs = 0, maxNs = 0;
  };
  void addGpuSlice(const SliceEvent& e);
  void keepOnly(uint64_t lastStepStartNs);
  IdleSplit idleSplitOfActivities();

  std::vector<Timed> activities_[4];    // by HtaKernelType: HTA's GPU activities
  std::vector<Timed> uncorrelated_[4];  // other GPU-row slices, while no correlation was seen
  bool sawCorrelation_ = false;
  std::vector<std::pair<int64_t, uint64_t>> launches_;  // CPU-side (correlation, startNs)
  std::unordered_map<std::string, NameStats> names_;
  std::string key_;
};

// Compact text form of one rank's kernel stats, for the transfer to rank 0.
std::string encodeKernelStats(int64_t rank, const std::vector<KernelStat>& kernels);
// Throws std::runtime_error on malformed input.
std::vector<KernelStat> decodeKernelStats(std::string_view text, int64_t& rank);

}  // namespace xstack
