// The open slices of every thread of one packet sequence, kept so that the
// BEGIN/END pairs of each track nest (Perfetto pairs them as a stack per
// track; Chrome JSON X events of one thread may overlap without nesting).
//
// Contract:
// - A thread's events come in non-decreasing ts (std::logic_error
//   otherwise). Before an event at ts, every open slice of the thread that
//   ends at or before ts is ended: SLICE_END at its end time, the earliest
//   first (lowest lane on ties).
// - A slice goes to the lowest lane it nests in (OverlapLanes); lane 0 is
//   the thread's own track. A slice that nests in no lane opens a new lane:
//   a child track of the thread, named like the thread (TrackRegistry), kept
//   to the end of the sequence.
// - The thread's track descriptor (and its process's) is written before the
//   thread's first event (TrackRegistry::ensureThread), or by declare().
// - Thread names are made valid UTF-8 once (appendValidUtf8, counted in
//   `text`) and kept for the thread's lanes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "xstack/core/TextWriting.h"
#include "xstack/render/OverlapLanes.h"
#include "xstack/render/perfetto/TrackEventWriter.h"
#include "xstack/render/perfetto/TrackRegistry.h"

namespace xstack::perfetto {

// One thread's open slices.
struct ThreadSlices {
  int64_t pid = 0, tid = 0;
  std::string name;  // valid UTF-8 thread name, for overlap lanes
  uint64_t lastTs = 0;
  bool declared = false;            // laneUuids[0]'s descriptor written in this sequence
  OverlapLanes lanes;               // the open slices, lane 0 the thread's own track
  std::vector<uint64_t> laneUuids;  // track uuid per lane

  uint64_t trackUuid() const { return laneUuids[0]; }
  // Whether a slice ending at endNs nests innermost on the thread's own track.
  bool nestsOnOwnTrack(uint64_t endNs) const {
    return lanes.empty(0) || endNs <= lanes.innermostEnd(0);
  }
};

class SliceStacks {
 public:
  SliceStacks(TrackRegistry& tracks, TrackEventWriter& events, JsonTextStats& text)
      : tracks_(tracks), events_(events), text_(text) {}

  // Names a thread: writes its descriptor with name and sort index.
  void declare(int64_t pid, int64_t tid, std::string_view name, int64_t sortIndex);
  // The thread of an event at tsNs: its track described, the ts order
  // checked, the slices that end by tsNs ended.
  ThreadSlices& advanceTo(int64_t pid, int64_t tid, uint64_t tsNs);
  // The lane of t where a slice ending at endNs nests; a new lane (and its
  // descriptor) when none does. The caller opens the slice on it.
  size_t laneFor(ThreadSlices& t, uint64_t endNs);
  // Ends every open slice: threads in (pid, tid) order.
  void closeAll();

 private:
  // The thread's entry, made (lane 0 = its own track) on first use.
  ThreadSlices& entry(int64_t pid, int64_t tid);
  // The thread's entry with its track described in this sequence.
  ThreadSlices& described(int64_t pid, int64_t tid);
  // Ends the open slices of t that end at or before tsNs, in end order.
  void closeUntil(ThreadSlices& t, uint64_t tsNs);

  TrackRegistry& tracks_;
  TrackEventWriter& events_;
  JsonTextStats& text_;
  std::map<std::pair<int64_t, int64_t>, ThreadSlices> threads_;
  ThreadSlices* last_ = nullptr;  // the last described() result (map nodes are stable)
};

}  // namespace xstack::perfetto
