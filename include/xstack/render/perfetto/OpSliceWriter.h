// Op slices, the bulk of a trace: the slice an op stands for, and a fast
// path that writes its SLICE_BEGIN without looking anything up.
//
// Contract:
// - generalArgs() gives the general form of an op: the slice
//     name op.name, category kOpCategory ("Op"), args {
//       name: op.name (interned value), mem_bytes: op.memBytes if > 0,
//       detail_info: op.detail if not empty }
//   written by TrackEventWriter::write (a test compares the two forms).
// - tryBegin() writes exactly the general form's SLICE_BEGIN packet when it
//   applies: the op has no flow, every iid it needs is known (remember()
//   after a general write of an op with that name id), and its track is the
//   sequence's default track (so nothing is interned, no track switches).
//   Otherwise it writes nothing and returns false. The caller checks that
//   the slice nests on the thread's own track and opens it there.
// - `op.nameId` identifies op.name in the caller's table of distinct names:
//   equal ids mean equal names until forgetNames().
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "xstack/render/perfetto/DebugAnnotations.h"
#include "xstack/render/perfetto/InternTables.h"
#include "xstack/render/perfetto/PacketSequence.h"
#include "xstack/render/perfetto/TrackEventWriter.h"

namespace xstack::perfetto {

// An op slice. `flow`: a flow end on the slice's begin.
struct OpSlice {
  uint32_t nameId = 0;
  std::string_view name;
  uint64_t tsNs = 0, durNs = 0;
  uint64_t memBytes = 0;  // 0: no mem_bytes annotation
  std::string_view detail;
  FlowRef flow;
};

class OpSliceWriter {
 public:
  static constexpr std::string_view kOpCategory = "Op";

  OpSliceWriter(PacketSequence& seq, const InternTables& interned, const TrackEventWriter& events)
      : seq_(seq), interned_(interned), events_(events) {}

  // The general form's args of `op`, in `room`.
  static std::span<const DebugArg> generalArgs(const OpSlice& op, DebugArg (&room)[3]);
  // SLICE_BEGIN of `op` on trackUuid through the fast path, when it applies.
  bool tryBegin(uint64_t trackUuid, const OpSlice& op);
  // After the general form of `op` was written: the iids the fast path needs.
  void remember(const OpSlice& op);
  // Forgets the name ids (the caller's name table changes).
  void forgetNames() { names_.clear(); }

 private:
  // iids of an op name as event name and as interned annotation value.
  struct NameIids {
    uint64_t name = 0, value = 0;
  };
  // The fast path's packet; every iid known, the sizes of its args given.
  void writeBegin(const OpSlice& op, NameIids ids, size_t nameArg, size_t memArg, size_t detailArg,
                  size_t eventBytes);

  PacketSequence& seq_;
  const InternTables& interned_;
  const TrackEventWriter& events_;
  std::vector<NameIids> names_;  // by the caller's name id; 0: not known yet
  // iids of the category and of the keys "name", "mem_bytes", "detail_info"
  // (0: not interned yet in this sequence).
  uint64_t categoryIid_ = 0, keyIids_[3] = {0, 0, 0};
  std::string detailText_;  // scratch: a valid UTF-8 detail_info value
};

}  // namespace xstack::perfetto
