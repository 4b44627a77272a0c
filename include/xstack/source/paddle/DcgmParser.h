// Meaning of a `dcgmi dmon` log (docs/FORMAT.md section 1): a header line
// "# Entity GPUTL GRACT ... TIMESTAMP" (leading '#', columns in any order,
// some missing; "#Entity" also accepted), rows "GPU <g> <values...>" with one
// value per header column after Entity. A new header half-way re-maps the
// columns for the rows after it. Values may be "N/A" (that series is absent
// from the sample). TIMESTAMP is Unix seconds as a decimal, converted exactly
// to ns. Anything else is noise: skipped and counted.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "xstack/core/Warnings.h"
#include "xstack/event/CounterSamples.h"
#include "xstack/io/LineReader.h"

namespace xstack {

// Line-at-a-time parser into GPU telemetry samples (event/CounterSamples.h). Warnings use the
// kinds:
//   dcgm_noise_line      a line that is neither a header nor a GPU row
//   dcgm_bad_row         a GPU row with the wrong number of values, a bad GPU
//                        id, or no usable TIMESTAMP
//   dcgm_bad_value       a value that is not a finite number (series left out)
//   dcgm_bad_ratio       FBUSD/FBTTL that is not finite (the ratio left out)
//   dcgm_row_before_header
// Each example message is "<path>:<line>: <what>".
class DcgmParser {
 public:
  explicit DcgmParser(std::string path) : path_(std::move(path)) {}
  void feedLine(std::string_view line, const LineInfo& info);
  void overlongLine(const LineInfo& info, uint64_t length);  // counted as noise
  std::vector<GpuTelemetrySample>& samples() { return samples_; }
  Warnings& warnings() { return warnings_; }

 private:
  std::string path_;
  std::vector<int> columns_;  // header column -> raw column id (internal)
  bool haveHeader_ = false;
  std::vector<GpuTelemetrySample> samples_;
  Warnings warnings_;
};

}  // namespace xstack
