// The per-rank part of the "collectives" analysis: a profile's arrivals
// (analysis/collectives/CollectiveMatch.h), built on the read stage's walk.
//
// Memory: the arrivals (one per communication kernel), the recent launches
// (at most kLaunchesKept) and the kind of each distinct kernel name (as the
// steps and kernels parts keep a total per name) are held; every GPU-row slice's interval (24
// bytes) goes to an external sorter within the part's budget, spilled past it, for the compute and
// idle time between collectives and the critical path's own-work windows
// (analysis/collectives/CriticalPath.h).
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "xstack/analysis/Analysis.h"
#include "xstack/analysis/NameIndexed.h"
#include "xstack/analysis/StepTable.h"
#include "xstack/analysis/collectives/CollectiveMatch.h"
#include "xstack/analysis/collectives/CriticalPath.h"
#include "xstack/io/ExternalSorter.h"

namespace xstack {

// The most recent host launches by correlation id: the last `capacity` added,
// the first kept for an id added twice. A ring in the order they came,
// searched by bisection while their ids came increasing (a trace's launches
// usually do); from the first that does not, through a hash index as well.
class LaunchTable {
 public:
  explicit LaunchTable(size_t capacity) : capacity_(capacity) {}
  void add(int64_t correlation, uint64_t startNs);  // no-op when it is held
  const uint64_t* find(int64_t correlation) const;  // its start; null when not held

 private:
  size_t slotOf(int64_t correlation) const;  // ring_.size() when not held
  void buildIndex();

  size_t capacity_;
  std::vector<std::pair<int64_t, uint64_t>> ring_;  // (correlation, start)
  size_t oldest_ = 0;                               // ring_'s first slot in order
  bool increasing_ = true;
  std::unordered_map<int64_t, size_t> index_;  // correlation -> slot, once not increasing
};

class ArrivalRecorder final : public RankAnalysis {
 public:
  // Launches (CudaApi slices with a correlation) remembered for kernels that
  // come later in the input: the most recent ones.
  static constexpr size_t kLaunchesKept = size_t{1} << 16;

  explicit ArrivalRecorder(SpillOptions spill = {});
  void onSlice(const SliceEvent& e) override;
  // The arrivals ordered by start, with their instances, steps, compute and
  // idle times, and the critical path's walk data, as CollectivesPart's wire
  // form. An Error when the sorter failed.
  Expected<std::string> finish(int64_t rank, const std::vector<Span>& spans) override;
  // finish() without the encoding (tests).
  Expected<CollectivesPart> buildPart(int64_t rank, const std::vector<Span>& spans);
  // buildPart()'s arrivals (tests).
  Expected<RankArrivals> build(int64_t rank, const std::vector<Span>& spans);

 private:
  struct GpuSpan {
    uint64_t startNs = 0, endNs = 0;  // endNs >= startNs
    bool compute = false;             // a non-communication kernel (HTA's computation type)
    // The critical path's kind: a communication kernel (either way), else
    // memcpy/memset (kernelCategoryOf), else compute.
    bool memcpy = false, comm = false;
  };
  struct ByStart {
    bool operator()(const GpuSpan& a, const GpuSpan& b) const { return a.startNs < b.startNs; }
  };
  // A GPU kernel's name's kinds: HTA's computation type, and
  // kernelCategoryOf(name, 0) (a copy's bytes can make it Memcpy).
  struct KernelKind {
    bool compute = false;
    KernelCategory category = KernelCategory::Compute;
  };
  KernelKind kindOf(const SliceEvent& e);  // remembered by name
  void noteLaunch(int64_t correlation, uint64_t startNs);
  void addArrival(const SliceEvent& e);
  void assignInstances(std::vector<Arrival>& arrivals) const;
  Status addWindowTimes(std::vector<Arrival>& arrivals, RankWalk& walk);

  ExternalSorter<GpuSpan, ByStart> gpu_;
  uint64_t firstGpuNs_ = UINT64_MAX;
  std::vector<Arrival> arrivals_;  // input order
  std::vector<int64_t> seqs_;      // each arrival's seq (-1 = none)
  std::vector<GroupRanks> groups_;
  LaunchTable launches_{kLaunchesKept};
  std::unordered_map<int64_t, size_t> waiting_;  // correlation -> arrival without its launch
  NameIndexed<KernelKind> kinds_;                // by kernel name: one per distinct name
};

}  // namespace xstack
