#include "xstack/render/perfetto/PerfettoSequenceEncoder.h"

#include <cstdio>
#include <utility>

#include "xstack/render/perfetto/PerfettoFields.h"

namespace xstack::perfetto {
namespace f = fields;

PerfettoSequenceEncoder::PerfettoSequenceEncoder(uint32_t sequenceId, Sink sink, size_t pieceBytes,
                                                 std::string buffer)
    : seq_(sequenceId, std::move(sink), pieceBytes, std::move(buffer)),
      tracks_(seq_),
      events_(seq_, interned_),
      slices_(tracks_, events_, seq_.textStats()),
      ops_(seq_, interned_, events_) {}

void PerfettoSequenceEncoder::slice(int64_t pid, int64_t tid, std::string_view name,
                                    std::string_view category, uint64_t tsNs, uint64_t durNs,
                                    std::span<const DebugArg> args, FlowRef flow) {
  ThreadSlices& t = slices_.advanceTo(pid, tid, tsNs);
  const uint64_t endNs = tsNs + durNs;
  const size_t lane = slices_.laneFor(t, endNs);
  events_.write({.type = f::event::kTypeSliceBegin,
                 .trackUuid = t.laneUuids[lane],
                 .tsNs = tsNs,
                 .name = name,
                 .category = category,
                 .args = args,
                 .makeDefault = lane == 0,
                 .flow = flow});
  t.lanes.open(lane, endNs);
}

void PerfettoSequenceEncoder::opSlice(int64_t pid, int64_t tid, const OpSlice& op) {
  seq_.requireOpen();
  ThreadSlices& t = slices_.advanceTo(pid, tid, op.tsNs);
  const uint64_t endNs = op.tsNs + op.durNs;
  if (t.nestsOnOwnTrack(endNs) && ops_.tryBegin(t.trackUuid(), op)) {
    t.lanes.open(0, endNs);
    return;
  }
  DebugArg room[3];
  slice(pid, tid, op.name, OpSliceWriter::kOpCategory, op.tsNs, op.durNs,
        OpSliceWriter::generalArgs(op, room), op.flow);
  ops_.remember(op);
}

void PerfettoSequenceEncoder::instant(int64_t pid, int64_t tid, std::string_view name,
                                      std::string_view category, uint64_t tsNs,
                                      std::span<const DebugArg> args) {
  ThreadSlices& t = slices_.advanceTo(pid, tid, tsNs);
  events_.write({.type = f::event::kTypeInstant,
                 .trackUuid = t.trackUuid(),
                 .tsNs = tsNs,
                 .name = name,
                 .category = category,
                 .args = args,
                 .makeDefault = true,
                 .flow = {}});
}

void PerfettoSequenceEncoder::counter(int64_t pid, std::string_view eventName,
                                      std::optional<int64_t> id, std::string_view seriesKey,
                                      uint64_t tsNs, int64_t value, CounterUnit unit) {
  seq_.requireOpen();
  events_.counter(tracks_.counterTrack(pid, eventName, id, seriesKey, unit), tsNs, value);
}

void PerfettoSequenceEncoder::counter(int64_t pid, std::string_view eventName,
                                      std::optional<int64_t> id, std::string_view seriesKey,
                                      uint64_t tsNs, double value, CounterUnit unit) {
  seq_.requireOpen();
  events_.counter(tracks_.counterTrack(pid, eventName, id, seriesKey, unit), tsNs, value);
}

namespace {

// A debug argument's value as metadata text ("0.1.0", "1700000000000000000", "true").
std::string metadataText(const DebugArg& a) {
  switch (a.type) {
    case DebugArg::Type::Int:
      return std::to_string(a.i);
    case DebugArg::Type::Uint:
      return std::to_string(a.u);
    case DebugArg::Type::Double: {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.17g", a.d);
      return buf;
    }
    case DebugArg::Type::Bool:
      return a.i ? "true" : "false";
    case DebugArg::Type::String:
      return std::string(a.s);
  }
  return {};
}

}  // namespace

void PerfettoSequenceEncoder::metadata(std::span<const DebugArg> entries) {
  ProtoWriter& w = seq_.writer();
  const ProtoWriter::Mark packet = seq_.beginUntimedPacket();  // not in the timeline
  const ProtoWriter::Mark bundle = w.beginMessage(f::packet::kChromeEvents);
  for (const DebugArg& a : entries) {
    const ProtoWriter::Mark m = w.beginMessage(f::chrome::kBundleMetadata);
    w.bytesField(f::chrome::kMetadataName, "xstack." + std::string(a.key));
    w.bytesField(f::chrome::kMetadataString, metadataText(a));
    w.endMessage(m);
  }
  w.endMessage(bundle);
  seq_.endPacket(packet);
}

void PerfettoSequenceEncoder::finish() {
  if (seq_.finished()) return;
  slices_.closeAll();
  seq_.finish();
}

}  // namespace xstack::perfetto
