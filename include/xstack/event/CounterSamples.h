// Counter samples of the format-neutral event model: GPU telemetry (one
// sample per GPU and time, some series present) and network counters (tx or
// rx, named values). Sources produce them (the Paddle family reads them from
// `dcgmi dmon` and net logs, docs/FORMAT.md section 1); the trace renderers
// and the read stage consume them.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace xstack {

// GPU telemetry series, in the order of docs/FORMAT.md section 3's table
// (trace pids 1..5). The names are DCGM's field names.
enum DcgmSeries : int {
  kGPUTL = 0,  // GPUTL percent / 100
  kGRACT,
  kSMACT,
  kSMOCC,
  kFB_USED_RATIO,  // FBUSD / FBTTL (needs both, FBTTL > 0)
  kDRAMA,
  kNVLTX,
  kNVLRX,
  kPCITX,
  kPCIRX,
  kFP32A,
  kFP16A,
  kTENSO,
  kDcgmSeriesCount
};
const char* dcgmSeriesName(int series);  // "GPUTL", ..., "FB_USED_RATIO", ...; "" out of range

// One GPU's telemetry at one time.
struct GpuTelemetrySample {
  uint64_t tsNs = 0;  // Unix ns
  int64_t gpu = 0;
  uint32_t present = 0;  // bit s set when values[s] is present
  std::array<double, kDcgmSeriesCount> values{};
  bool has(int s) const { return present & (1u << s); }
};

// One network counter sample.
struct NetCounterSample {
  uint64_t tsNs = 0;  // Unix ns
  bool tx = true;     // tx -> trace pid 6, rx -> pid 7
  // (series name, number text as a valid JSON number), in input order
  std::vector<std::pair<std::string, std::string>> args;
};

}  // namespace xstack
