#include "xstack/source/paddle/WireEvents.h"

#include <algorithm>

namespace xstack {

bool rowOfWireEvent(const ProfileEvent& e, RowKey& out, Warnings& warnings) {
  if (e.type == 0) {
    if (e.deviceId == -1) {
      out = {RowKind::CudaApi, -1};
      return true;
    }
    if (e.deviceId >= 0) {
      out = {RowKind::CpuBlock, e.deviceId};
      return true;
    }
    warnings.add(Warn::EventBadDevice);
    return false;
  }
  if (e.type == 1) {
    out = {RowKind::Gpu, e.deviceId};
    return true;
  }
  warnings.add(Warn::EventUnknownType);
  return false;
}

bool memPlaceFromWire(int64_t place, MemPlace& out) {
  switch (place) {
    case 0:
      out = MemPlace::Gpu;
      return true;
    case 1:
      out = MemPlace::Cpu;
      return true;
    case 2:
      out = MemPlace::Pinned;
      return true;
  }
  return false;
}

bool stepMarkOf(std::string_view name, std::string_view detail, uint64_t startNs, StepMark& out) {
  if (name != "marker/compute/MarkerCUDA") return false;
  if (detail == "marker_forward_B")
    out = {startNs, Phase::Forward, true};
  else if (detail == "marker_forward_E")
    out = {startNs, Phase::Forward, false};
  else if (detail == "marker_backward_B")
    out = {startNs, Phase::Backward, true};
  else if (detail == "marker_backward_E")
    out = {startNs, Phase::Backward, false};
  else
    return false;
  return true;
}

namespace {
// A time xstack can hold: at most 2^63 - 1 ns (docs/FORMAT.md "Sums that would overflow").
bool pastTime(uint64_t ns) { return ns > static_cast<uint64_t>(INT64_MAX); }
}  // namespace

void WireEventMapper::onEvent(const ProfileEvent& e) {
  if (pastTime(e.startNs) || pastTime(e.endNs)) {
    dropWarnings().add(Warn::EventBadTime);
    return;
  }
  StepMark mark;
  if (stepMarkOf(e.name, e.detail, e.startNs, mark)) out_.onStepMark(mark);
  RowKey row;
  if (!rowOfWireEvent(e, row, dropWarnings())) {
    out_.onUnplaced({e.startNs, e.endNs, false});
    return;
  }
  SliceEvent s{e.name, e.detail, e.startNs, e.endNs, row, e.subDeviceId, e.memcopyBytes};
  // The dumps carry no group args: a GPU kernel's name alone may name its
  // collective (default group).
  if (row.kind == RowKind::Gpu && collectiveFromKernelName(e.name, collective_))
    s.collective = &collective_;
  out_.onSlice(s);
}

void WireEventMapper::onMemEvent(const ProfileMemEvent& m) {
  if (pastTime(m.startNs) || pastTime(m.endNs)) {
    dropWarnings().add(Warn::EventBadTime);
    return;
  }
  MemPlace place;
  if (!memPlaceFromWire(m.place, place)) {
    ++unknownPlaces_;
    // The Warnings::kMaxExamples earliest (by start_ns; ties: the earlier added).
    auto& first = firstUnknown_;
    if (first.size() < Warnings::kMaxExamples || m.startNs < first.back().startNs) {
      auto at = std::upper_bound(
          first.begin(), first.end(), m,
          [](const ProfileMemEvent& a, const ProfileMemEvent& b) { return a.startNs < b.startNs; });
      first.insert(at, m);
      if (first.size() > Warnings::kMaxExamples) first.pop_back();
    }
    out_.onUnplaced({m.startNs, m.endNs, true});
    return;
  }
  out_.onMemory({m.startNs, m.endNs, m.bytes, place, m.deviceId, m.threadId});
}

void WireEventMapper::finish() {
  if (!options_.dropWarnings) return;
  Warnings& warnings = *options_.dropWarnings;
  warnings.add(Warn::MemoryUnknownPlace, unknownPlaces_);
  if (options_.where.empty()) return;
  for (const ProfileMemEvent& e : firstUnknown_)
    warnings.addExample(Warn::MemoryUnknownPlace,
                        options_.where + ": ts " + std::to_string(e.startNs) +
                            " ns: " + std::to_string(e.bytes) + " bytes, place " +
                            std::to_string(e.place) + ", device " + std::to_string(e.deviceId) +
                            ", end_ns " + std::to_string(e.endNs));
}

Status decodeProfileEvents(std::string_view bytes, EventSink& out, WireMappingOptions options) {
  WireEventMapper mapper(out, std::move(options));
  Status r = decodeProfile(bytes, mapper);
  mapper.finish();
  return r;
}

}  // namespace xstack
