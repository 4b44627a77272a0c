// Format-neutral events that come from outside the renderers (the analysis'
// findings) and that every trace format writes: JsonRenderer as JSON "M"
// and "i" events, PerfettoRenderer as track descriptors and TYPE_INSTANT.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace xstack {

// An instant event (JSON "i", thread scope) in a format-neutral form: the
// analysis' findings, rendered by each format's writer.
struct TraceInstant {
  int64_t tid = 0;
  std::string name;
  std::string category;
  uint64_t tsNs = 0;  // since the time origin
  double score = 0;   // args.score (JSON: 4 decimals)
  std::string evidence;
};

// Extra rows appended after a file's last chunk: one process `pid` named
// `processName`, its threads ("rank <tid>"), their instants (ordered by tid,
// then ts).
struct TraceExtraRows {
  int64_t pid = 0;
  std::string processName;
  std::vector<TraceInstant> instants;
  bool empty() const { return instants.empty(); }
};

}  // namespace xstack
