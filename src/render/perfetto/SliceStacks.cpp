#include "xstack/render/perfetto/SliceStacks.h"

#include <limits>
#include <optional>
#include <stdexcept>

namespace xstack::perfetto {

ThreadSlices& SliceStacks::entry(int64_t pid, int64_t tid) {
  auto [it, added] = threads_.try_emplace({pid, tid});
  ThreadSlices& t = it->second;
  if (added) {
    t.pid = pid;
    t.tid = tid;
    t.lanes.addLane();
    t.laneUuids.push_back(threadTrackUuid(pid, tid));
  }
  return t;
}

void SliceStacks::declare(int64_t pid, int64_t tid, std::string_view name, int64_t sortIndex) {
  ThreadSlices& t = entry(pid, tid);
  t.name.clear();
  appendValidUtf8(t.name, name, text_);
  tracks_.declareThread(pid, tid, t.name, sortIndex);
  t.declared = true;
}

ThreadSlices& SliceStacks::described(int64_t pid, int64_t tid) {
  if (last_ && last_->declared && last_->pid == pid && last_->tid == tid) return *last_;
  ThreadSlices& t = entry(pid, tid);
  last_ = &t;
  tracks_.ensureThread(pid, tid);
  t.declared = true;
  return t;
}

ThreadSlices& SliceStacks::advanceTo(int64_t pid, int64_t tid, uint64_t tsNs) {
  ThreadSlices& t = described(pid, tid);
  if (tsNs < t.lastTs) throw std::logic_error("perfetto: events of a thread out of ts order");
  t.lastTs = tsNs;
  closeUntil(t, tsNs);
  return t;
}

void SliceStacks::closeUntil(ThreadSlices& t, uint64_t tsNs) {
  // The innermost open slice of each lane ends first in that lane; the
  // earliest of them (lowest lane on ties) ends while it ends by tsNs.
  while (std::optional<size_t> lane = t.lanes.firstEndingBy(tsNs)) {
    events_.sliceEnd(t.laneUuids[*lane], t.lanes.innermostEnd(*lane));
    t.lanes.close(*lane);
  }
}

size_t SliceStacks::laneFor(ThreadSlices& t, uint64_t endNs) {
  const size_t found = t.lanes.laneFor(endNs);
  if (found < t.lanes.size()) return found;
  const size_t lane = t.lanes.addLane();
  t.laneUuids.push_back(tracks_.addLane(t.pid, t.tid, lane, t.name));
  return lane;
}

void SliceStacks::closeAll() {
  for (auto& [key, t] : threads_) closeUntil(t, std::numeric_limits<uint64_t>::max());
}

}  // namespace xstack::perfetto
