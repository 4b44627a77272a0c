// The memory of one synthesized rank as Kineto and Paddle's profiler record
// it: one instant per allocation and one per free, each carrying the running
// totals of its (place, device) after the change. The model announces an
// allocation with its free time (SyncJobEvents::memory); the ledger keeps the
// pending changes and hands them out in time order once no earlier one can
// come, so the totals in the file are consistent in file order. Memory: the
// allocations alive at one time (bounded by the model, not by the run).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <queue>
#include <utility>
#include <vector>

#include "xstack/cmd/synth/SyncJobEvents.h"

namespace xstack {

class SynthMemoryLedger {
 public:
  struct Change {
    uint64_t atNs = 0;  // true time (before the skew)
    SynthMemoryPlace place = SynthMemoryPlace::Gpu;
    uint32_t device = 0;
    uint64_t addr = 0;
    int64_t bytes = 0;  // > 0 allocation, < 0 free
    // The (place, device)'s totals after the change, bytes. Reserved models a
    // caching allocator: 2 MiB segments to cover the allocated bytes, never
    // given back.
    int64_t allocated = 0, reserved = 0, peakAllocated = 0, peakReserved = 0;
  };

  // `bytes` allocated at allocNs, freed at freeNs (0: never).
  void add(SynthMemoryPlace place, uint32_t device, uint64_t allocNs, uint64_t freeNs,
           uint64_t bytes);
  // Hands every pending change at or before untilNs to `emit`, earliest
  // first (equal times: in the order they were added).
  void release(uint64_t untilNs, const std::function<void(const Change&)>& emit);
  void releaseAll(const std::function<void(const Change&)>& emit) { release(UINT64_MAX, emit); }

 private:
  struct Pending {
    uint64_t atNs, seq, addr;
    int64_t bytes;
    SynthMemoryPlace place;
    uint32_t device;
  };
  struct Later {
    bool operator()(const Pending& a, const Pending& b) const {
      return a.atNs != b.atNs ? a.atNs > b.atNs : a.seq > b.seq;
    }
  };
  struct Totals {
    int64_t allocated = 0, reserved = 0, peakAllocated = 0, peakReserved = 0;
    uint64_t nextAddr = 0;
  };
  Totals& totalsOf(SynthMemoryPlace place, uint32_t device);

  std::priority_queue<Pending, std::vector<Pending>, Later> pending_;
  std::map<std::pair<int, uint32_t>, Totals> totals_;
  uint64_t seq_ = 0;
};

}  // namespace xstack
