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

void BreakdownSweep::add(const GpuActivity& a) {
  any_ = true;
  first_ = std::min(first_, a.startNs);
  last_ = std::max(last_, a.endNs);
  const Interval iv{a.startNs, a.endNs};
  const bool compute = a.type == HtaKernelType::Computation;
  const bool comm = a.type == HtaKernelType::Communication;
  for (size_t u = 0; u < 4; ++u) {
    if ((u == 1 && !compute) || (u == 2 && !comm) || (u == 3 && !compute && !comm)) continue;
    unions_[u].add(iv, [this, u](const Interval& done) { lengths_[u] += done.end - done.start; });
  }
}

// Every activity lies inside [first, last]: the length of a union inside the
// span (HTA's clip) is its whole length.
RankBreakdown BreakdownSweep::finish() {
  RankBreakdown b;
  for (size_t u = 0; u < 4; ++u)
    unions_[u].finish([this, u](const Interval& done) { lengths_[u] += done.end - done.start; });
  if (!any_) return b;
  b.spanNs = last_ > first_ ? last_ - first_ : 0;
  b.idleNs = b.spanNs - lengths_[0];
  b.computeNs = lengths_[1];
  b.nonComputeNs = b.spanNs - b.idleNs - b.computeNs;
  b.hasComm = lengths_[2] > 0;
  b.commNs = lengths_[2];
  b.overlapNs = lengths_[1] + lengths_[2] - lengths_[3];
  return b;
}

RankBreakdown rankBreakdown(const std::vector<GpuActivity>& activities) {
  std::vector<GpuActivity> sorted = activities;
  std::sort(sorted.begin(), sorted.end(), [](const GpuActivity& a, const GpuActivity& b) {
    return std::tie(a.startNs, a.endNs) < std::tie(b.startNs, b.endNs);
  });
  BreakdownSweep sweep;
  for (const GpuActivity& a : sorted) sweep.add(a);
  return sweep.finish();
}

bool IdleSplitOrder::operator()(const StreamActivity& a, const StreamActivity& b) const {
  return std::tie(a.stream, a.startNs, a.endNs, a.launchNs) <
         std::tie(b.stream, b.startNs, b.endNs, b.launchNs);
}

void IdleSplitSweep::add(const StreamActivity& cur) {
  const StreamActivity prev = prev_;
  const bool first = !any_;
  prev_ = cur;
  any_ = true;
  if (first || cur.stream != prev.stream || cur.startNs <= prev.endNs) return;
  const uint64_t gap = cur.startNs - prev.endNs;
  if (cur.launchNs >= 0 && static_cast<uint64_t>(cur.launchNs) > prev.endNs)
    split_.hostWaitNs += gap;
  else if (gap < kKernelWaitBelowNs)
    split_.kernelWaitNs += gap;
  else
    split_.otherNs += gap;
}

IdleSplit idleSplit(std::vector<StreamActivity>& activities) {
  std::sort(activities.begin(), activities.end(), IdleSplitOrder{});
  IdleSplitSweep sweep;
  for (const StreamActivity& a : activities) sweep.add(a);
  return sweep.split();
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
