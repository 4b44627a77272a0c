// The per-rank GPU time breakdown an HTA user checks first (ranks.csv,
// docs/ANALYSIS.md "ranks.csv"), with Holistic Trace Analysis' definitions
// (its temporal breakdown and comm/comp overlap), all in integer ns:
//   span        = last end - first start over every GPU activity given
//                 (not clipped to step windows);
//   idle        = span - |union of all of them|;
//   compute     = |union of COMPUTATION activities|;
//   non_compute = span - idle - compute;
//   overlap     = |COMPUTATION union ∩ COMMUNICATION union| / |COMMUNICATION union|,
//                 undefined (no value) when the rank has no COMMUNICATION activity.
// Which activities count (HTA's filter on steps, which events are GPU events)
// is the caller's: this takes the already selected activities.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "xstack/analysis/Intervals.h"

namespace xstack {

// HTA's kernel type, decided by the name alone; the first rule that matches
// wins (docs/ANALYSIS.md):
//   Communication  name starts with nccl, hip or hccl, or contains ncclKernel;
//   Memory         starts with Memcpy, Memset, hipMemcpy, hipMemset or dma;
//   Other          starts with nccl/hip/hccl/Stream Wait Event/runFunction/
//                  job_exe/packet/pe_exe/cpum_exe_subgraph/
//                  collective_subgraph_execution, contains Memcpy, Memset,
//                  dma or Sync, or starts with cuda and contains LaunchKernel
//                  after it;
//   Computation    everything else.
enum class HtaKernelType : uint8_t { Computation = 0, Communication = 1, Memory = 2, Other = 3 };
HtaKernelType htaKernelTypeOf(std::string_view name);
const char* htaKernelTypeName(HtaKernelType t);  // "COMPUTATION", ...

struct GpuActivity {
  uint64_t startNs = 0;
  uint64_t endNs = 0;  // >= startNs
  HtaKernelType type = HtaKernelType::Computation;
};

// HTA's idle time breakdown (its get_idle_time_breakdown), per stream then
// summed over the rank's streams, in ns. On each stream the activities are
// taken in start order (ties: end order) and each one's gap to the previous
// one's end, when positive, is idle time of one kind:
//   host wait   the activity's launch (its CPU-side slice) started after the
//               previous activity ended: the GPU ran dry waiting for the host;
//   kernel wait otherwise, when the gap is below kKernelWaitBelowNs: the
//               overhead of launching back-to-back kernels;
//   other       otherwise (cross-stream syncs, launch delays).
// Summed over streams, so a rank with several streams can have more idle here
// than its GPU's idle_ns (which is over the union of all streams).
inline constexpr uint64_t kKernelWaitBelowNs = 30'000;  // HTA's consecutive_kernel_delay=30 (us)
struct IdleSplit {
  uint64_t hostWaitNs = 0, kernelWaitNs = 0, otherNs = 0;
  uint64_t totalNs() const { return hostWaitNs + kernelWaitNs + otherNs; }
};

struct StreamActivity {
  int64_t stream = 0;
  uint64_t startNs = 0, endNs = 0;  // endNs >= startNs
  int64_t launchNs = -1;            // start of its CPU-side launch; -1: unknown
};

// The order the split takes a rank's activities in: by stream, start, end,
// then launch (of activities with the same interval on one stream, the
// earliest launch comes first; unknown, -1, before any).
struct IdleSplitOrder {
  bool operator()(const StreamActivity& a, const StreamActivity& b) const;
};

// The split over `activities` (any order; reordered in place).
IdleSplit idleSplit(std::vector<StreamActivity>& activities);

// idleSplit, streamed: add() every activity in IdleSplitOrder.
class IdleSplitSweep {
 public:
  void add(const StreamActivity& a);
  const IdleSplit& split() const { return split_; }

 private:
  StreamActivity prev_;
  bool any_ = false;
  IdleSplit split_;
};

struct RankBreakdown {
  uint64_t spanNs = 0, idleNs = 0, computeNs = 0, nonComputeNs = 0;
  bool hasComm = false;       // the overlap is defined
  uint64_t commNs = 0;        // |COMMUNICATION union|
  uint64_t overlapNs = 0;     // |COMPUTATION union ∩ COMMUNICATION union|
  bool hasIdleSplit = false;  // the rank's GPU slices carry launch correlations
  IdleSplit idle;             // meaningful iff hasIdleSplit
};

// The breakdown of one rank's selected GPU activities (any order); the idle
// split is the caller's (idleSplit).
RankBreakdown rankBreakdown(const std::vector<GpuActivity>& activities);

// rankBreakdown, streamed: add() every activity in (start, end) order, then
// finish(). Holds four open union intervals, not the activities.
class BreakdownSweep {
 public:
  void add(const GpuActivity& a);
  RankBreakdown finish();

 private:
  // The unions of all, COMPUTATION, COMMUNICATION, and of both (their
  // intersection's length is |compute| + |comm| - |compute or comm|).
  UnionStream unions_[4];
  uint64_t lengths_[4] = {0, 0, 0, 0};
  uint64_t first_ = UINT64_MAX, last_ = 0;
  bool any_ = false;
};

// `part` / `whole` x 100 with 2 decimals, rounded half up, as exact text
// ("12.34"; "0.00" when `whole` is 0). Integer arithmetic only.
std::string percentText(uint64_t part, uint64_t whole);

}  // namespace xstack
