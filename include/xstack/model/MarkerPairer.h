// Forward/backward spans from marker events (docs/FORMAT.md section 3).
// A marker is an event named "marker/compute/MarkerCUDA" whose detail_info is
// marker_{forward,backward}_{B,E}. Markers are ordered by start_ns (stable:
// input order breaks ties). A _B opens a span of its phase; the next _E of
// the same phase closes it (dur = E.start - B.start). A _B while one of its
// phase is open replaces it (warning marker_replaced_begin); an _E with none
// open is dropped (warning marker_unmatched_end); a _B still open at the end
// is dropped (warning marker_unmatched_begin).
// Step n (from 0) is the n-th forward span; a backward span takes the step of
// the last forward span that began before it (0 when there is none).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "xstack/core/Warnings.h"

namespace xstack {

enum class Phase : uint8_t { Forward = 0, Backward = 1 };

struct Marker {
  uint64_t ts = 0;  // start_ns of the marker event
  Phase phase = Phase::Forward;
  bool begin = true;
};

struct Span {
  Phase phase = Phase::Forward;
  int64_t step = 0;
  uint64_t startNs = 0;
  uint64_t endNs = 0;  // >= startNs
};

// Classifies one event; returns false when it is not a marker.
bool markerOf(std::string_view name, std::string_view detail, uint64_t startNs, Marker& out);

class MarkerPairer {
 public:
  void add(const Marker& m) { markers_.push_back(m); }
  // Spans ordered by start (ties: forward first, then input order). Each
  // warning's example is "<where>: ts <start_ns> ns: <marker>, <what>", e.g.
  // "profile_rank.3 (training rank 3): ts 1200 ns: marker_forward_E, no begin".
  std::vector<Span> pair(Warnings& warnings, const std::string& where = "markers");

 private:
  std::vector<Marker> markers_;
};

}  // namespace xstack
