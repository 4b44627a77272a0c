#include "xstack/render/perfetto/TrackRegistry.h"

#include <algorithm>
#include <limits>

#include "xstack/render/perfetto/PerfettoFields.h"

namespace xstack::perfetto {
namespace f = fields;

namespace {

constexpr uint64_t kKindProcess = 1, kKindThread = 2, kKindCounter = 3;
constexpr uint64_t kHashTag = uint64_t{1} << 48;
constexpr uint64_t kHashMask = (uint64_t{1} << 46) - 1;

struct Fnv {
  uint64_t h = 1469598103934665603ull;
  void bytes(std::string_view s) {
    for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  }
  void number(uint64_t v) {
    for (int i = 0; i < 8; ++i) h = (h ^ ((v >> (8 * i)) & 0xFF)) * 1099511628211ull;
  }
  uint64_t uuid(uint64_t kind) const { return kHashTag | ((h & kHashMask) << 2) | kind; }
};

bool exactIds(int64_t pid, int64_t tid) {
  return pid >= 0 && pid < (int64_t{1} << 20) && tid >= 0 && tid < (int64_t{1} << 24);
}

}  // namespace

uint64_t processTrackUuid(int64_t pid) {
  if (exactIds(pid, 0)) return (static_cast<uint64_t>(pid) << 26) | kKindProcess;
  Fnv h;
  h.bytes("process");
  h.number(static_cast<uint64_t>(pid));
  return h.uuid(kKindProcess);
}

uint64_t threadTrackUuid(int64_t pid, int64_t tid) {
  if (exactIds(pid, tid))
    return (static_cast<uint64_t>(pid) << 26) | (static_cast<uint64_t>(tid) << 2) | kKindThread;
  Fnv h;
  h.bytes("thread");
  h.number(static_cast<uint64_t>(pid));
  h.number(static_cast<uint64_t>(tid));
  return h.uuid(kKindThread);
}

uint64_t counterTrackUuid(int64_t pid, std::string_view trackName) {
  Fnv h;
  h.bytes("counter");
  h.number(static_cast<uint64_t>(pid));
  h.bytes(trackName);
  return h.uuid(kKindCounter);
}

uint64_t laneTrackUuid(int64_t pid, int64_t tid, size_t lane) {
  Fnv h;
  h.bytes("lane");
  h.number(static_cast<uint64_t>(pid));
  h.number(static_cast<uint64_t>(tid));
  h.number(lane);
  return h.uuid(kKindThread);
}

std::string counterTrackName(std::string_view eventName, std::optional<int64_t> id,
                             std::string_view seriesKey) {
  std::string name(eventName);
  if (id) {
    name += " id: ";
    appendInt(name, *id);
  }
  name += ' ';
  name += seriesKey;
  return name;
}

void TrackRegistry::declareProcess(int64_t pid, std::string_view name, int64_t sortIndex) {
  Descriptor d;
  d.kind = Descriptor::Kind::Process;
  d.uuid = processTrackUuid(pid);
  d.ordering = Descriptor::Ordering{sortIndex, true};
  d.pid = pid;
  d.label = Descriptor::Label{sortIndex, name};
  write(d);
}

void TrackRegistry::ensureProcess(int64_t pid) {
  const uint64_t uuid = processTrackUuid(pid);
  if (defined(uuid)) return;
  Descriptor d;
  d.kind = Descriptor::Kind::Process;
  d.uuid = uuid;
  d.ordering = Descriptor::Ordering{pid, true};  // a process's sort index is its pid
  d.pid = pid;
  write(d);
}

void TrackRegistry::declareThread(int64_t pid, int64_t tid, std::string_view name,
                                  int64_t sortIndex) {
  ensureProcess(pid);
  Descriptor d;
  d.kind = Descriptor::Kind::Thread;
  d.uuid = threadTrackUuid(pid, tid);
  d.parentUuid = processTrackUuid(pid);
  d.ordering = Descriptor::Ordering{sortIndex, false};
  d.pid = pid;
  d.tid = tid;
  d.label = Descriptor::Label{sortIndex, name};
  write(d);
}

void TrackRegistry::ensureThread(int64_t pid, int64_t tid) {
  const uint64_t uuid = threadTrackUuid(pid, tid);
  if (defined(uuid)) return;
  ensureProcess(pid);
  Descriptor d;
  d.kind = Descriptor::Kind::Thread;
  d.uuid = uuid;
  d.parentUuid = processTrackUuid(pid);
  d.pid = pid;
  d.tid = tid;
  write(d);
}

uint64_t TrackRegistry::addLane(int64_t pid, int64_t tid, size_t lane,
                                std::string_view threadName) {
  Descriptor d;
  d.uuid = laneTrackUuid(pid, tid, lane);
  d.parentUuid = threadTrackUuid(pid, tid);
  d.name = threadName;
  write(d);
  return d.uuid;
}

uint64_t TrackRegistry::counterTrack(int64_t pid, std::string_view eventName,
                                     std::optional<int64_t> id, std::string_view seriesKey,
                                     CounterUnit unit) {
  if (counterSlots_.empty()) counterSlots_.resize(kCounterSlots);
  for (const CounterSlot& c : counterSlots_)
    if (c.uuid && c.pid == pid && c.id == id && c.seriesKey == seriesKey &&
        c.eventName == eventName)
      return c.uuid;
  const std::string trackName = counterTrackName(eventName, id, seriesKey);
  const uint64_t uuid = counterTrackUuid(pid, trackName);
  if (!defined(uuid)) {
    ensureProcess(pid);
    Descriptor d;
    d.kind = Descriptor::Kind::Counter;
    d.uuid = uuid;
    d.parentUuid = processTrackUuid(pid);
    d.name = trackName;
    d.unit = unit;
    write(d);
  }
  CounterSlot& slot = counterSlots_[nextCounterSlot_++ % kCounterSlots];
  slot = {pid, id, std::string(eventName), std::string(seriesKey), uuid};
  return uuid;
}

namespace {

// sibling_order_rank and legacy_sort_index are int32 fields: a wider value (a sort index
// from a tid above 2^31) is clamped, never cut to its low 32 bits (which would reorder).
int64_t clampedToInt32(int64_t v) {
  return std::clamp<int64_t>(v, std::numeric_limits<int32_t>::min(),
                             std::numeric_limits<int32_t>::max());
}

}  // namespace

void TrackRegistry::write(const Descriptor& d) {
  ProtoWriter& w = seq_.writer();
  const ProtoWriter::Mark packet = seq_.beginUntimedPacket();
  const ProtoWriter::Mark track = w.beginMessage(f::packet::kTrackDescriptor);
  w.varintField(f::track::kUuid, d.uuid);
  if (d.parentUuid) w.varintField(f::track::kParentUuid, d.parentUuid);
  if (d.name) w.utf8Field(f::track::kName, *d.name, seq_.textStats());
  if (d.ordering) {
    if (d.ordering->explicitChildOrder)
      w.varintField(f::track::kChildOrdering, f::track::kChildOrderingExplicit);
    w.int64Field(f::track::kSiblingOrderRank, clampedToInt32(d.ordering->siblingRank));
  }
  writeBody(w, d);
  w.endMessage(track);
  seq_.endPacket(packet);
  defined_.insert(d.uuid);
}

void TrackRegistry::writeLabel(ProtoWriter& w, const Descriptor& d, uint32_t sortIndexField,
                               uint32_t nameField) {
  if (!d.label) return;
  w.int64Field(sortIndexField, clampedToInt32(d.label->sortIndex));
  w.utf8Field(nameField, d.label->name, seq_.textStats());
}

void TrackRegistry::writeBody(ProtoWriter& w, const Descriptor& d) {
  switch (d.kind) {
    case Descriptor::Kind::Plain:
      return;
    case Descriptor::Kind::Process: {
      const ProtoWriter::Mark m = w.beginMessage(f::track::kProcess);
      w.int64Field(f::process::kPid, d.pid);
      writeLabel(w, d, f::process::kLegacySortIndex, f::process::kProcessName);
      w.endMessage(m);
      return;
    }
    case Descriptor::Kind::Thread: {
      const ProtoWriter::Mark m = w.beginMessage(f::track::kThread);
      w.int64Field(f::thread::kPid, d.pid);
      w.int64Field(f::thread::kTid, d.tid);
      writeLabel(w, d, f::thread::kLegacySortIndex, f::thread::kThreadName);
      w.endMessage(m);
      return;
    }
    case Descriptor::Kind::Counter: {
      const ProtoWriter::Mark m = w.beginMessage(f::track::kCounter);
      if (d.unit.builtin != CounterUnit::Builtin::Unspecified)
        w.varintField(f::counter::kUnit, static_cast<uint32_t>(d.unit.builtin));
      if (!d.unit.name.empty()) w.utf8Field(f::counter::kUnitName, d.unit.name, seq_.textStats());
      w.endMessage(m);
      return;
    }
  }
}

}  // namespace xstack::perfetto
