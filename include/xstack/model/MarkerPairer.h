// Forward/backward spans from step marks (event/Events.h; the source
// decides which of its events are marks, docs/FORMAT.md section 3). Marks
// are ordered by ts (stable: input order breaks ties). A begin opens a span
// of its phase; the next end of the same phase closes it (dur = end.ts -
// begin.ts). A begin while one of its phase is open replaces it (warning
// marker_replaced_begin); an end with none open is dropped (warning
// marker_unmatched_end); a begin still open at the end is dropped (warning
// marker_unmatched_begin). Examples name a mark marker_<phase>_<B|E>.
// A forward span's step is its begin mark's number (StepMark::number) when
// every forward span of the profile has one and they increase with start
// time; otherwise (none, some, or out of order: warning step_number_ignored)
// step n (from 0) is the n-th forward span. Steps of different ranks with
// one number are the same training step. A backward span takes the step of
// the last forward span that began before it (the first forward span's step
// when there is none).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "xstack/core/Warnings.h"
#include "xstack/event/Events.h"

namespace xstack {

struct Span {
  Phase phase = Phase::Forward;
  int64_t step = 0;
  uint64_t startNs = 0;
  uint64_t endNs = 0;   // >= startNs
  int64_t number = -1;  // forward: its begin mark's number (-1 none)
};

class MarkerPairer {
 public:
  void add(const StepMark& m) { markers_.push_back(m); }
  // Spans ordered by start (ties: forward first, then input order). Each
  // warning's example is "<where>: ts <start_ns> ns: <marker>, <what>", e.g.
  // "profile_rank.3 (training rank 3): ts 1200 ns: marker_forward_E, no begin".
  std::vector<Span> pair(Warnings& warnings, const std::string& where = "markers");

 private:
  std::vector<StepMark> markers_;
};

}  // namespace xstack
