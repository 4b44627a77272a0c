#include "xstack/event/Events.h"

namespace xstack {

const char* memPlaceName(MemPlace p) {
  switch (p) {
    case MemPlace::Gpu:
      return "gpu";
    case MemPlace::Cpu:
      return "cpu";
    case MemPlace::Pinned:
      return "cudapinnedplace";
  }
  return "?";
}

void EventList::replay(EventSink& out) const {
  if (hasTraceStart) out.onTraceStart(traceStartNs);
  for (const SliceEvent& e : slices) out.onSlice(e);
  for (const StepMark& m : marks) out.onStepMark(m);
  for (const UnplacedEvent& u : unplaced) out.onUnplaced(u);
  for (const MemoryEvent& m : memory) out.onMemory(m);
  if (hasTraceEnd) out.onTraceEnd(traceEndNs);
}

}  // namespace xstack
