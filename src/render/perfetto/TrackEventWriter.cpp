#include "xstack/render/perfetto/TrackEventWriter.h"

#include <cstring>

namespace xstack::perfetto {
namespace f = fields;

void TrackEventWriter::write(const Event& e) {
  NewInternedEntries fresh;
  EventIids& name = interned_.eventName(e.name, fresh);
  const uint64_t categoryIid = e.category.empty() ? 0 : interned_.category(e.category, fresh);
  args_.intern(e.args, e.name, name, interned_, fresh);
  const bool switchDefault = e.makeDefault && e.trackUuid != defaultTrack_;
  ProtoWriter& w = seq_.writer();
  const ProtoWriter::Mark packet = seq_.beginPacket(e.tsNs);
  InternTables::write(w, fresh, seq_.textStats());
  if (switchDefault) writeDefaults(w, e.trackUuid);
  const ProtoWriter::Mark event = w.beginMessage(f::packet::kTrackEvent);
  if (categoryIid) w.varintField(f::event::kCategoryIids, categoryIid);
  args_.write(w, e.args, seq_.textStats());
  w.varintField(f::event::kType, e.type);
  w.varintField(f::event::kNameIid, name.name);
  // Explicit whenever the default differs, and in the packet that changes it.
  if (switchDefault || e.trackUuid != defaultTrack_)
    w.varintField(f::event::kTrackUuid, e.trackUuid);
  if (e.flow.id)
    w.fixed64Field(e.flow.terminates ? f::event::kTerminatingFlowIds : f::event::kFlowIds,
                   e.flow.id);
  w.endMessage(event);
  if (switchDefault) defaultTrack_ = e.trackUuid;
  seq_.endPacket(packet);
}

void TrackEventWriter::writeDefaults(ProtoWriter& w, uint64_t trackUuid) {
  const ProtoWriter::Mark defaults = w.beginMessage(f::packet::kTracePacketDefaults);
  const ProtoWriter::Mark trackEvent = w.beginMessage(f::defaults::kTrackEventDefaults);
  w.varintField(f::defaults::kTrackUuid, trackUuid);
  w.endMessage(trackEvent);
  w.endMessage(defaults);
}

SizedWriter TrackEventWriter::beginCounter(uint64_t trackUuid, uint64_t tsNs, size_t valueBytes) {
  const bool explicitTrack = trackUuid != defaultTrack_;
  const size_t event = varintFieldSize(f::event::kType, f::event::kTypeCounter) +
                       (explicitTrack ? varintFieldSize(f::event::kTrackUuid, trackUuid) : 0) +
                       valueBytes;
  SizedWriter o = seq_.beginSizedEvent(tsNs, event);
  o.varintField(f::event::kType, f::event::kTypeCounter);
  if (explicitTrack) o.varintField(f::event::kTrackUuid, trackUuid);
  return o;
}

void TrackEventWriter::counter(uint64_t trackUuid, uint64_t tsNs, int64_t value) {
  const auto bits = static_cast<uint64_t>(value);
  SizedWriter o = beginCounter(trackUuid, tsNs, varintFieldSize(f::event::kCounterValue, bits));
  o.varintField(f::event::kCounterValue, bits);
  seq_.endSizedEvent();
}

void TrackEventWriter::counter(uint64_t trackUuid, uint64_t tsNs, double value) {
  SizedWriter o = beginCounter(trackUuid, tsNs, tagSize(f::event::kDoubleCounterValue) + 8);
  uint64_t bits;
  std::memcpy(&bits, &value, 8);
  o.tag(f::event::kDoubleCounterValue, WireType::Fixed64);
  for (int k = 0; k < 8; ++k) o.byte(static_cast<uint8_t>(bits >> (8 * k)));
  seq_.endSizedEvent();
}

}  // namespace xstack::perfetto
