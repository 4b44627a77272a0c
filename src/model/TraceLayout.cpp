#include "xstack/model/TraceLayout.h"

#include <algorithm>

#include "xstack/event/CounterSamples.h"

namespace xstack {

const char* fixedProcessName(int64_t pid) {
  static const char* kNames[] = {"00_pipeline",  "01_gpuUtility", "02_smUtility", "03_memUtility",
                                 "04_txUtility", "05_calUtility", "06_net_tx",    "07_net_rx"};
  return pid >= kPipelinePid && pid < kFirstRankPid ? kNames[processOrder(pid)] : nullptr;
}

SeriesRange dcgmSeriesOfPid(int64_t pid) {
  switch (pid) {
    case counterPid(CounterGroup::GpuUtility):
      return {kGPUTL, 2};
    case counterPid(CounterGroup::SmUtility):
      return {kSMACT, 2};
    case counterPid(CounterGroup::MemUtility):
      return {kFB_USED_RATIO, 2};
    case counterPid(CounterGroup::TxUtility):
      return {kNVLTX, 4};
    case counterPid(CounterGroup::CalUtility):
      return {kFP32A, 3};
  }
  return {0, 0};
}

std::string dcgmCounterName(int64_t trainer, int64_t gpu) {
  return "trainer " + std::to_string(trainer) + " GPU " + std::to_string(gpu);
}

std::string netCounterName(int64_t trainer, int64_t pid) {
  return "trainer " + std::to_string(trainer) + (pid == kNetTxPid ? " tx" : " rx");
}

std::vector<uint32_t> dcgmSamplesInOrder(const std::vector<GpuTelemetrySample>& samples,
                                         int64_t gpu, int64_t pid, const TimeOrigin& origin) {
  const SeriesRange r = dcgmSeriesOfPid(pid);
  const uint32_t mask = ((1u << r.count) - 1) << r.first;
  std::vector<uint32_t> idx;
  for (uint32_t i = 0; i < samples.size(); ++i)
    if (samples[i].gpu == gpu && (samples[i].present & mask)) idx.push_back(i);
  std::stable_sort(idx.begin(), idx.end(), [&](uint32_t a, uint32_t b) {
    return origin.since(samples[a].tsNs) < origin.since(samples[b].tsNs);
  });
  return idx;
}

std::vector<uint32_t> netSamplesInOrder(const std::vector<NetCounterSample>& samples, int64_t pid,
                                        const TimeOrigin& origin) {
  const bool tx = pid == kNetTxPid;
  std::vector<uint32_t> idx;
  for (uint32_t i = 0; i < samples.size(); ++i)
    if (samples[i].tx == tx) idx.push_back(i);
  std::stable_sort(idx.begin(), idx.end(), [&](uint32_t a, uint32_t b) {
    return origin.since(samples[a].tsNs) < origin.since(samples[b].tsNs);
  });
  return idx;
}

std::string opRowThreadName(RowKind kind, int64_t tid) {
  return (kind == RowKind::Gpu ? "stream " : "thread ") + std::to_string(tid);
}

void RowThreadIds::reset(int64_t pid, std::span<const int64_t> inputTids) {
  pid_ = pid;
  wrapped_ = false;
  kept_.clear();
  for (int64_t t : inputTids)
    if (isOwnThreadId(pid, t)) kept_.push_back(t);
  next_ = kept_.empty() ? 0 : kept_.back();
}

int64_t RowThreadIds::outputTid(int64_t inputTid) {
  return isOwnThreadId(pid_, inputTid) ? inputTid : take();
}

bool RowThreadIds::taken(int64_t id) const {
  // Ids handed out before the wrap are above the kept ones, those after it count up from 1:
  // the two meet only after 2^32 ids.
  return id == pid_ || std::binary_search(kept_.begin(), kept_.end(), id);
}

int64_t RowThreadIds::take() {
  for (;;) {
    if (next_ >= kMaxThreadId) {
      if (wrapped_) return kMaxThreadId;  // 2^32 - 1 ids taken: cannot happen in memory
      wrapped_ = true;
      next_ = 0;
    }
    ++next_;
    if (!taken(next_)) return next_;
  }
}

uint64_t dcgmCounterCount(int64_t pid, int64_t gpu,
                          const std::vector<GpuTelemetrySample>& samples) {
  SeriesRange r = dcgmSeriesOfPid(pid);
  uint32_t mask = ((1u << r.count) - 1) << r.first;
  uint64_t n = 0;
  for (const GpuTelemetrySample& s : samples)
    if (s.gpu == gpu && (s.present & mask)) ++n;
  return n;
}

uint64_t netCounterCount(int64_t pid, const std::vector<NetCounterSample>& samples) {
  bool tx = pid == kNetTxPid;
  return static_cast<uint64_t>(std::count_if(
      samples.begin(), samples.end(), [&](const NetCounterSample& s) { return s.tx == tx; }));
}

}  // namespace xstack
