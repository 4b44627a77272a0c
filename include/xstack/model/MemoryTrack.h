// Running memory sums of docs/FORMAT.md section 3, one track per (place, device).
// Each memory event adds +bytes at start_ns and -bytes at end_ns; all
// changes at the same ns give one sample. A block never freed (end_ns 0 or
// end_ns < start_ns) stays allocated (warning memory_never_freed).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "xstack/core/CheckedMath.h"
#include "xstack/core/Warnings.h"
#include "xstack/event/Events.h"

namespace xstack {

struct MemorySample {
  uint64_t ns = 0;
  int64_t allocatedBytes = 0;
};

struct MemoryTrack {
  MemPlace place = MemPlace::Gpu;
  uint64_t device = 0;
  std::vector<MemorySample> samples;  // strictly increasing ns
};

// All tracks of one profile, ordered by (place, device). (Events with an
// unknown place never get here: the source drops and counts them.)
// The warning buildMemoryTracks counts (memory_never_freed), without
// building the tracks.
void countMemoryWarnings(const std::vector<MemoryEvent>& events, Warnings& warnings);

// The same count, one memory event at a time (streaming decode).
class MemoryWarningCounter {
 public:
  void add(const MemoryEvent& e);
  // The count; with `where` (e.g. "profile_rank.3 (training rank 3)") also
  // examples of the earliest events: "<where>: ts <start_ns> ns: <bytes>
  // bytes, place <p>, device <d>, end_ns <e>" (p: the MemPlace value).
  void addTo(Warnings& warnings, const std::string& where = {}) const;

 private:
  uint64_t neverFreed_ = 0;
  // The Warnings::kMaxExamples earliest events (by start_ns, then file
  // order): cheap per event, formatted in addTo only.
  std::vector<MemoryEvent> firstNeverFreed_;
};

// The size of one change of a track: a block's bytes held at 2^63 - 1. The
// running sums are core/CheckedMath.h's MemoryInUse: exact, shown as 0..2^63 - 1,
// memory_sum_overflow counted for each change after which the exact sum is above
// 2^63 - 1 (the trace's counters, SpilledRows, and the analysis' peak: one rule).
inline int64_t memoryChangeBytes(uint64_t bytes) {
  return static_cast<int64_t>(std::min<uint64_t>(bytes, kMaxSum));
}

std::vector<MemoryTrack> buildMemoryTracks(const std::vector<MemoryEvent>& events,
                                           Warnings& warnings);

}  // namespace xstack
