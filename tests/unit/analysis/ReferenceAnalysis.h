// THE PRE-STREAMING ANALYSIS, KEPT AS A TEST ORACLE (not linked into xstack).
//
// The in-memory StepTableBuilder and GpuActivityBuilder as they were before
// the builders streamed their records through external sorters (branch ana,
// "a 2 GB rank needs no more memory than a 20 MB one"): every
// kernel, CPU-side slice, memory change, activity and launch held in vectors,
// each step window answered by binary searches. Copied verbatim from
// src/analysis/StepTable.cpp, GpuActivity.cpp and RankBreakdown.cpp (mem,
// 1f3166b), with one change: the idle split's sort of activities with the
// same (stream, start, end) was std::sort's unspecified order; both this copy
// and the streaming code order them by launch (RankBreakdown.h IdleSplitOrder).
// The differential tests (StreamingAnalysisTest.cpp) check that the
// streaming builders give the same tables on random inputs.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "xstack/analysis/GpuActivity.h"
#include "xstack/analysis/Intervals.h"
#include "xstack/analysis/StepTable.h"

namespace xstack::reference {

class StepTableBuilder {
 public:
  void addSlice(const SliceEvent& e);
  void addMemory(const MemoryEvent& m);
  RankTable build(int64_t rank, const std::vector<Span>& spans);

 private:
  int64_t gapOpOf(uint64_t lo, uint64_t windowStart, uint64_t hi, const Interval& gap,
                  uint64_t& overlapNs) const;
  void addHostIdle(RankTable& t, const std::vector<uint64_t>& ends,
                   const std::vector<Interval>& all) const;
  std::vector<Interval> byCategory_[3];
  struct NameEntry {
    KernelTotal total;
    KernelCategory category;
  };
  std::unordered_map<std::string, NameEntry> totals_;
  std::string key_;
  std::vector<std::pair<uint64_t, int64_t>> memDeltas_;
  struct CpuSlice {
    uint64_t start, end;
    uint32_t name;
  };
  std::vector<CpuSlice> cpu_;
  std::vector<std::string> cpuNames_;
  std::unordered_map<std::string, uint32_t> cpuNameIds_;
  std::vector<Interval> comm_;
};

// ranks.csv's numbers and kernels.csv's per-name stats of one rank (the
// steps and kernels parts' results, from one builder here).
struct GpuResult {
  RankGpuActivity activity;
  std::vector<KernelStat> kernels;  // ordered by name (bytewise)
};

class GpuActivityBuilder {
 public:
  void addSlice(const SliceEvent& e);
  GpuResult build(const std::vector<Span>& spans);

 private:
  struct Timed {
    uint64_t startNs = 0, endNs = 0;
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

  std::vector<Timed> activities_[4];
  std::vector<Timed> uncorrelated_[4];
  bool sawCorrelation_ = false;
  std::vector<std::pair<int64_t, uint64_t>> launches_;
  std::unordered_map<std::string, NameStats> names_;
  std::string key_;
};

// RankBreakdown.cpp's rankBreakdown and idleSplit as they were (vectors).
RankBreakdown rankBreakdown(const std::vector<GpuActivity>& activities);
IdleSplit idleSplit(std::vector<StreamActivity>& activities);

}  // namespace xstack::reference
