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

}  // namespace xstack
