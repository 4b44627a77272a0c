#include "xstack/analysis/RankBreakdown.h"

#include <algorithm>
#include <array>
#include <tuple>

namespace xstack {
namespace {

bool startsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool contains(std::string_view s, std::string_view p) {
  return s.find(p) != std::string_view::npos;
}

bool startsWithAny(std::string_view s, std::initializer_list<std::string_view> prefixes) {
  return std::any_of(prefixes.begin(), prefixes.end(),
                     [s](std::string_view p) { return startsWith(s, p); });
}

bool isCommunication(std::string_view n) {
  return startsWithAny(n, {"nccl", "hip", "hccl"}) || contains(n, "ncclKernel");
}

bool isMemory(std::string_view n) {
  return startsWithAny(n, {"Memcpy", "Memset", "hipMemcpy", "hipMemset", "dma"});
}

// HTA's "not computation" pattern (its re.match semantics: anchored at the start).
bool isNotComputation(std::string_view n) {
  if (startsWithAny(n, {"nccl", "hip", "hccl", "Stream Wait Event", "runFunction", "job_exe",
                        "packet", "pe_exe", "cpum_exe_subgraph", "collective_subgraph_execution"}))
    return true;
  if (contains(n, "Memcpy") || contains(n, "Memset") || contains(n, "dma") || contains(n, "Sync"))
    return true;
  return startsWith(n, "cuda") && contains(n.substr(4), "LaunchKernel");
}

}  // namespace

HtaKernelType htaKernelTypeOf(std::string_view name) {
  if (isCommunication(name)) return HtaKernelType::Communication;
  if (isMemory(name)) return HtaKernelType::Memory;
  if (isNotComputation(name)) return HtaKernelType::Other;
  return HtaKernelType::Computation;
}

const char* htaKernelTypeName(HtaKernelType t) {
  static constexpr std::array<const char*, 4> kNames{"COMPUTATION", "COMMUNICATION", "MEMORY",
                                                     "OTHER"};
  return kNames[static_cast<size_t>(t)];
}

RankBreakdown rankBreakdown(const std::vector<GpuActivity>& activities) {
  RankBreakdown b;
  if (activities.empty()) return b;
  std::vector<Interval> all, compute, comm;
  uint64_t first = UINT64_MAX, last = 0;
  for (const GpuActivity& a : activities) {
    first = std::min(first, a.startNs);
    last = std::max(last, a.endNs);
    all.push_back({a.startNs, a.endNs});
    if (a.type == HtaKernelType::Computation) compute.push_back({a.startNs, a.endNs});
    if (a.type == HtaKernelType::Communication) comm.push_back({a.startNs, a.endNs});
  }
  b.spanNs = last > first ? last - first : 0;
  mergeIntervals(all);
  mergeIntervals(compute);
  mergeIntervals(comm);
  b.idleNs = b.spanNs - unionLengthIn(all, first, last);
  b.computeNs = unionLengthIn(compute, first, last);
  b.nonComputeNs = b.spanNs - b.idleNs - b.computeNs;
  b.hasComm = !comm.empty();
  b.commNs = unionLengthIn(comm, first, last);
  b.overlapNs = intersectionLengthIn(compute, comm, first, last);
  return b;
}

IdleSplit idleSplit(std::vector<StreamActivity>& activities) {
  std::sort(
      activities.begin(), activities.end(), [](const StreamActivity& a, const StreamActivity& b) {
        return std::tie(a.stream, a.startNs, a.endNs) < std::tie(b.stream, b.startNs, b.endNs);
      });
  IdleSplit split;
  for (size_t i = 1; i < activities.size(); ++i) {
    const StreamActivity& prev = activities[i - 1];
    const StreamActivity& cur = activities[i];
    if (cur.stream != prev.stream || cur.startNs <= prev.endNs) continue;
    const uint64_t gap = cur.startNs - prev.endNs;
    if (cur.launchNs >= 0 && static_cast<uint64_t>(cur.launchNs) > prev.endNs)
      split.hostWaitNs += gap;
    else if (gap < kKernelWaitBelowNs)
      split.kernelWaitNs += gap;
    else
      split.otherNs += gap;
  }
  return split;
}

std::string percentText(uint64_t part, uint64_t whole) {
  if (whole == 0) return "0.00";
  // part/whole x 10000, rounded half up, in 128 bits (part x 20000 may pass 2^64).
  const unsigned __int128 scaled = static_cast<unsigned __int128>(part) * 20000 / whole;
  const auto hundredths = static_cast<uint64_t>((scaled + 1) / 2);
  std::string text = std::to_string(hundredths / 100);
  text += '.';
  text += static_cast<char>('0' + hundredths % 100 / 10);
  text += static_cast<char>('0' + hundredths % 10);
  return text;
}

}  // namespace xstack
