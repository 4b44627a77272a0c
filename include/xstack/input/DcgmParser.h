// Meaning of a `dcgmi dmon` log (SPEC.md section 1): a header line
// "# Entity GPUTL GRACT ... TIMESTAMP" (leading '#', columns in any order,
// some missing; "#Entity" also accepted), rows "GPU <g> <values...>" with one
// value per header column after Entity. A new header half-way re-maps the
// columns for the rows after it. Values may be "N/A" (that series is absent
// from the sample). TIMESTAMP is Unix seconds as a decimal, converted exactly
// to ns. Anything else is noise: skipped and counted.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "xstack/core/Warnings.h"
#include "xstack/input/LineReader.h"

namespace xstack {

// Output series, in the order of SPEC.md's table (pids 1..5).
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
const char* dcgmSeriesName(int series);  // "GPUTL", ..., "FB_USED_RATIO", ...

struct DcgmSample {
  uint64_t tsNs = 0;  // exact, from TIMESTAMP
  int64_t gpu = 0;
  uint32_t present = 0;  // bit s set when values[s] is present
  std::array<double, kDcgmSeriesCount> values{};
  bool has(int s) const { return present & (1u << s); }
};

// Line-at-a-time parser. Warnings use the kinds:
//   dcgm_noise_line      a line that is neither a header nor a GPU row
//   dcgm_bad_row         a GPU row with the wrong number of values, a bad GPU
//                        id, or no usable TIMESTAMP
//   dcgm_bad_value       a value that is not a finite number (series left out)
//   dcgm_row_before_header
// Each example message is "<path>:<line>: <what>".
class DcgmParser {
 public:
  explicit DcgmParser(std::string path) : path_(std::move(path)) {}
  void feedLine(std::string_view line, const LineInfo& info);
  void overlongLine(const LineInfo& info, uint64_t length);  // counted as noise
  std::vector<DcgmSample>& samples() { return samples_; }
  Warnings& warnings() { return warnings_; }

 private:
  std::string path_;
  std::vector<int> columns_;  // header column -> raw column id (internal)
  bool haveHeader_ = false;
  std::vector<DcgmSample> samples_;
  Warnings warnings_;
};

}  // namespace xstack
