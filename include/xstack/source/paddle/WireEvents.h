// The meaning of Paddle's profile events (docs/FORMAT.md section 3), decided
// here and nowhere else: which row a wire event goes to, which events are
// step marks, which memory place a block is in. WireEventMapper turns the
// decoder's wire events (ProfileDecoder.h) into the neutral events of
// event/Events.h as they are decoded.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "xstack/core/Warnings.h"
#include "xstack/event/Events.h"
#include "xstack/source/paddle/ProfileDecoder.h"

namespace xstack {

// Where an event goes: type 0 with device_id >= 0 -> cpu:block:<device>,
// type 0 with device_id -1 -> cuda_api, type 1 -> gpu:<device>. False for
// events that have no row, counted in `warnings`: event_bad_device (a type 0
// event with device_id below -1) or event_unknown_type (any other type).
bool rowOfWireEvent(const ProfileEvent& e, RowKey& out, Warnings& warnings);

// Wire enum (0 CUDAPlace, 1 CPUPlace, 2 CUDAPinnedPlace) -> MemPlace.
bool memPlaceFromWire(int64_t place, MemPlace& out);

// A step mark is an event named "marker/compute/MarkerCUDA" whose
// detail_info is marker_{forward,backward}_{B,E}; its ts is the event's
// start_ns. False when the event is not a step mark.
bool stepMarkOf(std::string_view name, std::string_view detail, uint64_t startNs, StepMark& out);

struct WireMappingOptions {
  // Where the events without a row are counted (event_bad_device,
  // event_unknown_type, memory_unknown_place); nullptr: not counted (they
  // were counted when the file was summarized).
  Warnings* dropWarnings = nullptr;
  // Prefix of the memory_unknown_place examples, e.g. "profile_rank.3
  // (training rank 3)"; empty: counts only.
  std::string where;
};

// A ProfileSink that forwards each wire event to `out` as neutral events:
// onSlice (and onStepMark for a marker), onMemory, or onUnplaced for an event
// without a row. Call finish() after the last event.
class WireEventMapper final : public ProfileSink {
 public:
  WireEventMapper(EventSink& out, WireMappingOptions options)
      : out_(out), options_(std::move(options)) {}
  void onEvent(const ProfileEvent& e) override;
  void onMemEvent(const ProfileMemEvent& m) override;
  void onStartNs(uint64_t ns) override { out_.onTraceStart(ns); }
  void onEndNs(uint64_t ns) override { out_.onTraceEnd(ns); }
  // Adds the memory_unknown_place count and examples ("<where>: ts <start_ns>
  // ns: <bytes> bytes, place <p>, device <d>, end_ns <e>", the
  // Warnings::kMaxExamples earliest by start_ns, then file order).
  void finish();

 private:
  EventSink& out_;
  WireMappingOptions options_;
  Warnings scratch_;  // drop warnings not asked for
  Warnings& dropWarnings() { return options_.dropWarnings ? *options_.dropWarnings : scratch_; }
  uint64_t unknownPlaces_ = 0;
  std::vector<ProfileMemEvent> firstUnknown_;
  CollectiveInfo collective_;  // the current slice's (SliceEvent::collective)
};

// Decodes profile bytes straight into neutral events (tests, fuzz targets):
// decodeProfile through a WireEventMapper.
Status decodeProfileEvents(std::string_view bytes, EventSink& out, WireMappingOptions options = {});

}  // namespace xstack
