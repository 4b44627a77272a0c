// The TrackEvent packets of one sequence (slice begins and ends, instants,
// counter values) and the sequence's TrackEventDefaults.
//
// Contract:
// - The event's track must have its descriptor in the sequence already
//   (TrackRegistry); this writer does not check.
// - write() interns the event's name, category and args (InternTables,
//   DebugAnnotations); what is new goes into the same packet's
//   InternedData.
// - defaultTrack(): TracePacketDefaults.track_event_defaults.track_uuid in
//   force (0: none), the track of the last event written with
//   `makeDefault` (thread tracks). Events on it omit track_uuid; the packet
//   that changes the default carries TracePacketDefaults and an explicit
//   track_uuid.
// - Counter values are always written, 0 included: integers as
//   counter_value, doubles as double_counter_value.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "xstack/render/perfetto/DebugAnnotations.h"
#include "xstack/render/perfetto/InternTables.h"
#include "xstack/render/perfetto/PacketSequence.h"
#include "xstack/render/perfetto/PerfettoFields.h"

namespace xstack::perfetto {

// A flow end on a slice's begin: TrackEvent flow_ids (a flow leaves the
// slice) or, `terminates`, terminating_flow_ids (the flow ends there). Flow
// ids are global in the trace, across sequences. id 0: none.
struct FlowRef {
  uint64_t id = 0;
  bool terminates = false;
};

class TrackEventWriter {
 public:
  TrackEventWriter(PacketSequence& seq, InternTables& interned) : seq_(seq), interned_(interned) {}

  // A track-bound event with a name (SLICE_BEGIN or INSTANT).
  struct Event {
    uint32_t type = fields::event::kTypeSliceBegin;
    uint64_t trackUuid = 0;
    uint64_t tsNs = 0;
    std::string_view name, category;  // category "": none
    std::span<const DebugArg> args;
    bool makeDefault = false;  // make trackUuid the sequence's default track
    FlowRef flow;
  };
  void write(const Event& e);

  // SLICE_END at tsNs on trackUuid, in one exactly sized append (the hot
  // half of every slice).
  void sliceEnd(uint64_t trackUuid, uint64_t tsNs) {
    namespace ev = fields::event;
    const bool explicitTrack = trackUuid != defaultTrack_;
    const size_t event = varintFieldSize(ev::kType, ev::kTypeSliceEnd) +
                         (explicitTrack ? varintFieldSize(ev::kTrackUuid, trackUuid) : 0);
    SizedWriter o = seq_.beginSizedEvent(tsNs, event);
    o.varintField(ev::kType, ev::kTypeSliceEnd);
    if (explicitTrack) o.varintField(ev::kTrackUuid, trackUuid);
    seq_.endSizedEvent();
  }

  // TYPE_COUNTER with the value on a counter track.
  void counter(uint64_t trackUuid, uint64_t tsNs, int64_t value);
  void counter(uint64_t trackUuid, uint64_t tsNs, double value);

  uint64_t defaultTrack() const { return defaultTrack_; }

 private:
  // TracePacketDefaults{track_event_defaults{track_uuid}}.
  void writeDefaults(ProtoWriter& w, uint64_t trackUuid);
  // A counter packet's head (type, track when not the default); the caller
  // writes the value, exactly `valueBytes`, then ends the packet.
  SizedWriter beginCounter(uint64_t trackUuid, uint64_t tsNs, size_t valueBytes);

  PacketSequence& seq_;
  InternTables& interned_;
  DebugAnnotations args_;
  uint64_t defaultTrack_ = 0;
};

}  // namespace xstack::perfetto
