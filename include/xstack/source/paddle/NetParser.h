// Meaning of a net log: JSON lines
//   {"name":"tx"|"rx","ts":<Unix ms, decimal>,"args":{<series>:<number>,...}}
// Parsed with nlohmann::json's SAX interface so that `ts` is converted from
// its decimal text exactly (ms -> ns, no binary floating point) and every
// arg keeps its number text as written (re-emitted verbatim in traces).
// Non-number args are dropped (counted); a line that is not such an object
// is skipped (counted).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "xstack/core/Warnings.h"
#include "xstack/event/CounterSamples.h"
#include "xstack/io/LineReader.h"

namespace xstack {

// Warnings kinds: net_bad_line (not JSON / not an object / missing or bad
// name or ts), net_non_numeric_arg. Examples: "<path>:<line>: <what>".
class NetParser {
 public:
  explicit NetParser(std::string path) : path_(std::move(path)) {}
  void feedLine(std::string_view line, const LineInfo& info);
  void overlongLine(const LineInfo& info, uint64_t length);  // net_bad_line
  std::vector<NetCounterSample>& samples() { return samples_; }
  Warnings& warnings() { return warnings_; }

 private:
  std::string path_;
  std::vector<NetCounterSample> samples_;
  Warnings warnings_;
};

}  // namespace xstack
