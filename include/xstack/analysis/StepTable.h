// Per (rank, step) GPU time table (docs/FORMAT.md section 6), built while a rank's
// profile is decoded: the builder sorts each GPU kernel's interval by
// category, each CPU-side slice and each GPU memory change in external
// sorters (io/ExternalSorter.h: held up to a memory budget, then spilled to
// disk), keeps per-name kernel totals and the CPU-side names (one entry per
// distinct name), and after the last event streams the sorted records through
// sweeps into one row per step (docs/DESIGN.md "Bounded memory per input").
//
// Definitions (all in ns, docs/ANALYSIS.md):
//   window of step n = [forward_B.start, backward_E.start] of that step
//     (forward span start, end of the backward span of the same step; a
//     step without a backward span ends at its forward_E.start);
//   comm    = |union of collective-library kernels ∩ window|, collective =
//             name contains, in any case: nccl, rccl, msccl, hccl, oneccl,
//             ccl::, nvshmem;
//   memcpy  = |union of memcpy/memset kernels ∩ window| (name contains
//             memcpy or memset in any case, or copied bytes > 0), when not comm;
//   compute = |union of every other GPU kernel ∩ window|;
//   idle    = window length - |union of all GPU kernels ∩ window|;
//   overlap = |compute union ∩ comm union ∩ window|;
//   arrival = start of the last comm kernel that starts inside the window,
//             minus the window start (-1 when the step has none);
//   last_comm = duration of that kernel (-1 when none): collectives end
//             together, so the latest rank to arrive has the shortest;
//   host_idle = GPU idle (no kernel of any category) from the lead-in start
//             to the arrival (the window end when no collective); lead-in
//             start = the end of the rank's previous window when it is before
//             this window's start, else the window start;
//   gap_op    = the CPU-side slice (CPU block or CUDA API row) that overlaps
//             the longest GPU idle gap of host_idle most (ties: the shorter
//             slice, then the name), not one covering the whole span from
//             window start to arrival (a step span); gap_op_ns = that overlap.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "xstack/analysis/Intervals.h"
#include "xstack/analysis/NameIndexed.h"
#include "xstack/analysis/RankBreakdown.h"
#include "xstack/core/Status.h"
#include "xstack/core/TextHash.h"
#include "xstack/event/Events.h"
#include "xstack/io/ExternalSorter.h"
#include "xstack/io/SpillFile.h"
#include "xstack/model/MarkerPairer.h"

namespace xstack {

enum class KernelCategory : uint8_t { Compute = 0, Comm = 1, Memcpy = 2 };
KernelCategory kernelCategoryOf(std::string_view name, uint64_t memcopyBytes);

struct StepRow {
  int64_t step = 0;
  uint64_t startNs = 0;  // absolute (Unix ns); the CSV writes it from the time origin
  uint64_t stepNs = 0, forwardNs = 0, backwardNs = 0;
  uint64_t computeNs = 0, commNs = 0, memcpyNs = 0, idleNs = 0, overlapNs = 0;
  int64_t arrivalNs = -1;
  int64_t lastCommNs = -1;  // duration of the last collective kernel; -1 none
  uint64_t hostIdleNs = 0;  // GPU idle from the lead-in start to the arrival
  uint64_t gapOpNs = 0;     // overlap of the gap op with the longest idle gap
  int64_t gapOp = -1;       // index into RankTable::gapOps; -1 none
};

struct KernelTotal {
  std::string name;  // empty in the form gathered to rank 0 (withoutKernelNames)
  // digestOf(name) (core/FileIdentity.h), kept when the name is dropped: the
  // kernel's identity across ranks on rank 0 (a 64-bit digest, not a hash
  // proof against crafted collisions; two names with one digest are one kernel).
  uint64_t nameDigest = 0;
  uint64_t ns = 0;     // summed kernel durations (not clipped, whole profile)
  uint64_t count = 0;  // launches
};

struct RankTable {
  int64_t rank = 0;
  std::vector<StepRow> steps;        // ordered by step
  std::vector<KernelTotal> kernels;  // the rank's most time-consuming kernel names
  uint64_t gpuMemoryPeakBytes = 0;   // peak of the summed GPU memory allocations
  std::vector<std::string> gapOps;   // names of the steps' gap ops (StepRow::gapOp)
  // HTA's breakdown of the rank (ranks.csv; analysis/GpuActivity.h sets it).
  RankBreakdown gpuBreakdown;
};

// Kernel names kept per rank (the largest totals; ties by name).
constexpr size_t kKernelsPerRank = 48;

// The memory a rank's analysis of one input may hold (--memory-mb /
// kAnalysisBudgetDivisor, half for each builder): its sorters spill past it.
// A fraction of the input's budget, so that a rank's peak memory does not grow
// with its profile's size (docs/PERFORMANCE.md "Kineto traces").
constexpr uint64_t kAnalysisBudgetDivisor = 8;
// The budget of one of the two builders (StepTableBuilder, GpuActivityBuilder).
SpillOptions analysisBuilderBudget(const SpillOptions& input);

class StepTableBuilder {
 public:
  // `spill`: where the builder's sorters spill and the memory they share.
  explicit StepTableBuilder(SpillOptions spill = {});

  // Any slice: keeps those on a GPU row (kernels) and the CPU-side ones
  // (interval and name id, 24 bytes each; gap ops).
  void addSlice(const SliceEvent& e);
  void addMemory(const MemoryEvent& m);  // any block; keeps GPU memory

  // The table of `rank` from its forward/backward spans; the builder is left
  // empty. An Error when a sorter could not spill or read back its records
  // (it names the spill folder and why): never a table from part of them.
  Expected<RankTable> build(int64_t rank, const std::vector<Span>& spans);

 private:
  struct ByStartEnd {
    bool operator()(const Interval& a, const Interval& b) const {
      return a.start != b.start ? a.start < b.start : a.end < b.end;
    }
  };
  struct CpuSlice {
    uint64_t start, end;
    uint32_t name;  // index into cpuNames_
  };
  struct CpuOrder {  // start, end, name id
    bool operator()(const CpuSlice& a, const CpuSlice& b) const {
      return a.start != b.start ? a.start < b.start
             : a.end != b.end   ? a.end < b.end
                                : a.name < b.name;
    }
  };
  struct MemDelta {
    uint64_t ns;
    int64_t bytes;  // +allocated, -freed
  };
  struct MemOrder {
    bool operator()(const MemDelta& a, const MemDelta& b) const {
      return a.ns != b.ns ? a.ns < b.ns : a.bytes < b.bytes;
    }
  };
  using KernelSorter = ExternalSorter<Interval, ByStartEnd>;
  struct GapQuery;

  Status finishSorters();
  Status addLastCollectives(std::vector<StepRow>& rows, const std::vector<uint64_t>& ends) const;
  Status addUnions(RankTable& t, const std::vector<uint64_t>& ends) const;
  Status addGapOps(RankTable& t, std::vector<GapQuery>& queries) const;
  Expected<uint64_t> memoryPeak() const;

  SpillOptions spill_;
  // By KernelCategory: compute and memcpy without empty intervals (a union
  // drops them), comm all of them (the last collective's length).
  KernelSorter kernels_[3];
  ExternalSorter<CpuSlice, CpuOrder> cpu_;
  ExternalSorter<MemDelta, MemOrder> mem_;  // GPU memory
  struct NameEntry {
    KernelTotal total;
    KernelCategory category;  // by name (classified once per name)
  };
  NameIndexed<NameEntry> totals_;
  struct CpuName {};
  NameIndexed<CpuName> cpuNames_;  // a CpuSlice's name: its index here
};

// A reader's tables as one wire message (wire/Wire.h; O(steps + kernels) per
// rank, names included).
std::string encodeRankTables(const std::vector<RankTable>& tables);
// An Error (naming `what` and the byte offset) when the bytes are short,
// malformed or have bytes left over; never a throw.
Expected<std::vector<RankTable>> decodeRankTables(std::string_view bytes,
                                                  const std::string& what = "step tables");

// What travels to rank 0: the tables with every kernel's name dropped (its
// nameDigest kept) and the collective kernels left out (analyzeJob never uses
// them), so a rank's table is O(steps + kKernelsPerRank) numbers plus its gap
// ops' names, whatever its kernel names' length. Rank 0 asks the reader for
// the few names it shows (kernelNameOf).
void dropKernelNames(std::vector<RankTable>& tables);
// dropKernelNames over `encoded`, encoded again; an Error when it does not decode.
Expected<std::string> withoutKernelNames(std::string_view encoded);

// The name of the kernel of training rank `rank` whose digest is `digest` in
// `encoded` (a reader's own tables, with names); empty when there is none or
// the bytes do not decode.
std::string kernelNameOf(std::string_view encoded, int64_t rank, uint64_t digest);

}  // namespace xstack
