// What a sink reads while the walk (ChunkWalk) hands it a displayed rank's
// ops: the names that OpView::nameId refers to, and the extras that
// OpView::extra refers to (1 + index). Two stores implement it: RowBuckets
// (the rows held in memory) and SpilledRows (rows too many to hold, read back
// from disk in batches). Extras are valid during the ops() call that hands out
// the OpViews that refer to them; names for the whole rank.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "xstack/render/NameTable.h"

namespace xstack {

// Which end of a flow (launch -> GPU activity) an op is: Out on the launch
// (a CudaApi slice), In on the GPU activity it started (a Gpu slice).
enum class FlowEnd : uint8_t { None = 0, Out = 1, In = 2 };

// The rare facts of an op beyond its times and name.
struct OpExtra {
  uint64_t memcopyBytes = 0;  // SliceEvent::bytes
  std::string_view detail;
  int64_t correlation = -1;      // SliceEvent::correlation; -1 = none
  FlowEnd flow = FlowEnd::None;  // decided over the whole profile
};

class OpStore {
 public:
  virtual ~OpStore() = default;
  virtual const NameTable& names() const = 0;
  virtual const std::vector<OpExtra>& extras() const = 0;
};

}  // namespace xstack
