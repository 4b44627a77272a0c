#include "xstack/sink/perfetto/PerfettoSequenceEncoder.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <utility>

#include "xstack/sink/perfetto/PerfettoFields.h"

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

uint64_t laneUuid(int64_t pid, int64_t tid, size_t lane) {
  Fnv h;
  h.bytes("lane");
  h.number(static_cast<uint64_t>(pid));
  h.number(static_cast<uint64_t>(tid));
  h.number(lane);
  return h.uuid(kKindThread);
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

PerfettoSequenceEncoder::PerfettoSequenceEncoder(uint32_t sequenceId, Sink sink, size_t pieceBytes,
                                                 std::string buffer)
    : sequenceId_(sequenceId),
      sink_(std::move(sink)),
      pieceBytes_(pieceBytes),
      buf_(std::move(buffer)),
      w_(buf_) {
  if (sequenceId_ == 0) throw std::invalid_argument("perfetto: sequence id 0 is invalid");
  // 1 = SEQ_INCREMENTAL_STATE_CLEARED on the first packet, then
  // 2 = SEQ_NEEDS_INCREMENTAL_STATE (interned data, packet defaults).
  for (uint64_t flags = 1; flags <= 2; ++flags) {
    ProtoWriter head(sequenceHead_[flags - 1]);
    head.varintField(f::packet::kTrustedPacketSequenceId, sequenceId_);
    head.varintField(f::packet::kSequenceFlags, flags);
  }
  buf_.clear();  // capacity kept: chunks are often small, a fresh 4 MiB costs page faults
}

ProtoWriter::Mark PerfettoSequenceEncoder::beginPacket(uint64_t tsNs, bool hasTs) {
  if (finished_) throw std::logic_error("perfetto: encoder used after finish()");
  // One append: TracePacket tag, length placeholder, timestamp (0 written
  // too: presence), sequence head.
  char head[32];  // tag 1 + placeholder 1 + timestamp <= 11 + sequence head <= 12
  SizedWriter o{head};
  o.tag(f::kTracePacket, WireType::LengthDelimited);
  o.byte(0);
  if (hasTs) o.varintField(f::packet::kTimestamp, tsNs);
  o.bytes(sequenceHead_[packets_ == 0 ? 0 : 1]);
  const auto n = static_cast<size_t>(o.p - head);
  const ProtoWriter::Mark m = buf_.size() + 1;
  buf_.append(head, n);
  return m;
}

void PerfettoSequenceEncoder::endPacket(ProtoWriter::Mark packet) {
  w_.endMessage(packet);
  ++packets_;
  maybeFlush();
}

void PerfettoSequenceEncoder::maybeFlush() {
  if (buf_.size() < pieceBytes_) return;
  sink_(buf_);
  buf_.clear();
}

void PerfettoSequenceEncoder::writeTrackDescriptorHead(uint64_t uuid, uint64_t parentUuid) {
  w_.varintField(f::track::kUuid, uuid);
  if (parentUuid) w_.varintField(f::track::kParentUuid, parentUuid);
}

void PerfettoSequenceEncoder::ensureProcessTrack(int64_t pid) {
  const uint64_t uuid = processTrackUuid(pid);
  if (definedTracks_.count(uuid)) return;
  ProtoWriter::Mark p = beginPacket(0, false);
  ProtoWriter::Mark d = w_.beginMessage(f::packet::kTrackDescriptor);
  writeTrackDescriptorHead(uuid, 0);
  writeOrdering(pid, true);  // a process's sort index is its pid (both formats)
  ProtoWriter::Mark pd = w_.beginMessage(f::track::kProcess);
  w_.int64Field(f::process::kPid, pid);
  w_.endMessage(pd);
  w_.endMessage(d);
  endPacket(p);
  definedTracks_.insert(uuid);
}

// A track's place among its siblings (the JSON's sort index, clamped to
// int32) and, for a process, that its children (threads) follow their ranks.
void PerfettoSequenceEncoder::writeOrdering(int64_t sortIndex, bool parent) {
  if (parent) w_.varintField(f::track::kChildOrdering, f::track::kChildOrderingExplicit);
  const int64_t rank = std::clamp<int64_t>(sortIndex, std::numeric_limits<int32_t>::min(),
                                           std::numeric_limits<int32_t>::max());
  w_.int64Field(f::track::kSiblingOrderRank, rank);
}

void PerfettoSequenceEncoder::process(int64_t pid, std::string_view name, int64_t sortIndex) {
  const uint64_t uuid = processTrackUuid(pid);
  ProtoWriter::Mark p = beginPacket(0, false);
  ProtoWriter::Mark d = w_.beginMessage(f::packet::kTrackDescriptor);
  writeTrackDescriptorHead(uuid, 0);
  writeOrdering(sortIndex, true);
  ProtoWriter::Mark pd = w_.beginMessage(f::track::kProcess);
  w_.int64Field(f::process::kPid, pid);
  w_.int64Field(f::process::kLegacySortIndex, sortIndex);
  w_.utf8Field(f::process::kProcessName, name, text_);
  w_.endMessage(pd);
  w_.endMessage(d);
  endPacket(p);
  definedTracks_.insert(uuid);
}

PerfettoSequenceEncoder::Thread& PerfettoSequenceEncoder::ensureThread(int64_t pid, int64_t tid) {
  if (lastThread_ && lastThread_->declared && lastThread_->pid == pid && lastThread_->tid == tid)
    return *lastThread_;
  auto [it, added] = threads_.try_emplace({pid, tid});
  Thread& t = it->second;
  if (added) {
    t.pid = pid;
    t.tid = tid;
    t.lanes.addLane();
    t.laneUuids.push_back(threadTrackUuid(pid, tid));
  }
  lastThread_ = &t;
  const uint64_t uuid = t.laneUuids[0];
  if (!definedTracks_.count(uuid)) {
    ensureProcessTrack(pid);
    ProtoWriter::Mark p = beginPacket(0, false);
    ProtoWriter::Mark d = w_.beginMessage(f::packet::kTrackDescriptor);
    writeTrackDescriptorHead(uuid, processTrackUuid(pid));
    ProtoWriter::Mark td = w_.beginMessage(f::track::kThread);
    w_.int64Field(f::thread::kPid, pid);
    w_.int64Field(f::thread::kTid, tid);
    w_.endMessage(td);
    w_.endMessage(d);
    endPacket(p);
    definedTracks_.insert(uuid);
  }
  t.declared = true;
  return t;
}

void PerfettoSequenceEncoder::thread(int64_t pid, int64_t tid, std::string_view name,
                                     int64_t sortIndex) {
  ensureProcessTrack(pid);
  auto [it, added] = threads_.try_emplace({pid, tid});
  Thread& t = it->second;
  if (added) {
    t.pid = pid;
    t.tid = tid;
    t.lanes.addLane();
    t.laneUuids.push_back(threadTrackUuid(pid, tid));
  }
  t.name.clear();
  appendValidUtf8(t.name, name, text_);
  const uint64_t uuid = t.laneUuids[0];
  ProtoWriter::Mark p = beginPacket(0, false);
  ProtoWriter::Mark d = w_.beginMessage(f::packet::kTrackDescriptor);
  writeTrackDescriptorHead(uuid, processTrackUuid(pid));
  writeOrdering(sortIndex, false);
  ProtoWriter::Mark td = w_.beginMessage(f::track::kThread);
  w_.int64Field(f::thread::kPid, pid);
  w_.int64Field(f::thread::kTid, tid);
  w_.int64Field(f::thread::kLegacySortIndex, sortIndex);
  w_.bytesField(f::thread::kThreadName, t.name);
  w_.endMessage(td);
  w_.endMessage(d);
  endPacket(p);
  definedTracks_.insert(uuid);
  t.declared = true;
}

uint64_t PerfettoSequenceEncoder::intern(
    Index& index, std::string_view text,
    std::vector<std::pair<uint64_t, std::string_view>>& fresh) {
  if (index.lastIid && text == index.lastText) return index.lastIid;
  auto it = index.iids.find(text);
  if (it == index.iids.end()) {
    const uint64_t iid = index.iids.size() + 1;
    it = index.iids.emplace(std::string(text), iid).first;
    fresh.emplace_back(iid, text);
  }
  index.lastText = it->first;
  index.lastIid = it->second;
  return it->second;
}

void PerfettoSequenceEncoder::writeInternedData(const NewEntries& fresh) {
  auto entries = [&](uint32_t field, const std::vector<std::pair<uint64_t, std::string_view>>& v) {
    for (const auto& [iid, text] : v) {
      ProtoWriter::Mark e = w_.beginMessage(field);
      w_.varintField(f::interned::kIid, iid);
      w_.utf8Field(f::interned::kName, text, text_);
      w_.endMessage(e);
    }
  };
  ProtoWriter::Mark m = w_.beginMessage(f::packet::kInternedData);
  entries(f::interned::kEventCategories, fresh.categories);
  entries(f::interned::kEventNames, fresh.events);
  entries(f::interned::kDebugAnnotationNames, fresh.names);
  entries(f::interned::kDebugAnnotationStringValues, fresh.strings);
  w_.endMessage(m);
}

void PerfettoSequenceEncoder::internArgs(std::span<const DebugArg> args, std::string_view eventName,
                                         EventIids& event, NewEntries& fresh) {
  argIids_.clear();
  for (const DebugArg& a : args) {
    uint64_t nameIid = intern(interned_.annotationNames, a.key, fresh.names);
    uint64_t valueIid = 0;
    if (a.type == DebugArg::Type::String && a.internValue) {
      if (a.s == eventName) {
        if (!event.stringValue) event.stringValue = intern(interned_.strings, a.s, fresh.strings);
        valueIid = event.stringValue;
      } else {
        valueIid = intern(interned_.strings, a.s, fresh.strings);
      }
    }
    argIids_.emplace_back(nameIid, valueIid);
  }
}

void PerfettoSequenceEncoder::writeArgs(std::span<const DebugArg> args) {
  namespace a = f::annotation;
  const auto& iids = argIids_;
  for (size_t k = 0; k < args.size(); ++k) {
    const DebugArg& arg = args[k];
    ProtoWriter::Mark m = w_.beginMessage(f::event::kDebugAnnotations);
    w_.varintField(a::kNameIid, iids[k].first);
    switch (arg.type) {
      case DebugArg::Type::Int:
        w_.int64Field(a::kIntValue, arg.i);
        break;
      case DebugArg::Type::Uint:
        w_.varintField(a::kUintValue, arg.u);
        break;
      case DebugArg::Type::Double:
        w_.doubleField(a::kDoubleValue, arg.d);
        break;
      case DebugArg::Type::Bool:
        w_.boolField(a::kBoolValue, arg.i != 0);
        break;
      case DebugArg::Type::String:
        if (iids[k].second)
          w_.varintField(a::kStringValueIid, iids[k].second);
        else
          w_.utf8Field(a::kStringValue, arg.s, text_);
        break;
    }
    w_.endMessage(m);
  }
}

PerfettoSequenceEncoder::EventIids& PerfettoSequenceEncoder::internEvent(std::string_view name,
                                                                         NewEntries& fresh) {
  if (interned_.eventSlots.empty()) interned_.eventSlots.resize(kEventSlots);
  const auto address = reinterpret_cast<uintptr_t>(name.data());
  EventSlot& slot = interned_.eventSlots[((address >> 3) ^ name.size()) & (kEventSlots - 1)];
  if (slot.entry && slot.data == name.data() && slot.size == name.size() &&
      slot.entry->first == name)
    return slot.entry->second;
  auto found = interned_.events.find(name);
  if (found == interned_.events.end()) {
    const uint64_t iid = interned_.events.size() + 1;
    found = interned_.events.emplace(std::string(name), EventIids{iid, 0}).first;
    fresh.events.emplace_back(iid, name);
  }
  slot = {name.data(), name.size(), &*found};
  return found->second;
}

void PerfettoSequenceEncoder::writeEvent(uint32_t type, uint64_t trackUuid, uint64_t tsNs,
                                         std::string_view name, std::string_view category,
                                         std::span<const DebugArg> args, bool switchDefault,
                                         FlowRef flow) {
  NewEntries fresh;
  EventIids& event = internEvent(name, fresh);
  const uint64_t nameIid = event.name;
  const uint64_t catIid =
      category.empty() ? 0 : intern(interned_.categories, category, fresh.categories);
  internArgs(args, name, event, fresh);
  switchDefault = switchDefault && trackUuid != defaultTrack_;
  ProtoWriter::Mark p = beginPacket(tsNs, true);
  if (!fresh.empty()) writeInternedData(fresh);
  if (switchDefault) {
    ProtoWriter::Mark d = w_.beginMessage(f::packet::kTracePacketDefaults);
    ProtoWriter::Mark ted = w_.beginMessage(f::defaults::kTrackEventDefaults);
    w_.varintField(f::defaults::kTrackUuid, trackUuid);
    w_.endMessage(ted);
    w_.endMessage(d);
  }
  ProtoWriter::Mark e = w_.beginMessage(f::packet::kTrackEvent);
  if (catIid) w_.varintField(f::event::kCategoryIids, catIid);
  writeArgs(args);
  w_.varintField(f::event::kType, type);
  w_.varintField(f::event::kNameIid, nameIid);
  // Explicit whenever the default differs, and in the packet that changes it.
  if (switchDefault || trackUuid != defaultTrack_) w_.varintField(f::event::kTrackUuid, trackUuid);
  if (flow.id)
    w_.fixed64Field(flow.terminates ? f::event::kTerminatingFlowIds : f::event::kFlowIds, flow.id);
  w_.endMessage(e);
  if (switchDefault) defaultTrack_ = trackUuid;
  endPacket(p);
}

SizedWriter PerfettoSequenceEncoder::beginSizedEvent(uint64_t tsNs, size_t eventBytes) {
  const std::string& head = sequenceHead_[packets_ == 0 ? 0 : 1];
  const size_t body = varintFieldSize(f::packet::kTimestamp, tsNs) + head.size() +
                      nestedSize(f::packet::kTrackEvent, eventBytes);
  const size_t at = buf_.size();
  buf_.resize(at + nestedSize(f::kTracePacket, body));
  SizedWriter o{buf_.data() + at};
  o.tag(f::kTracePacket, WireType::LengthDelimited);
  o.varint(body);
  o.varintField(f::packet::kTimestamp, tsNs);
  o.bytes(head);
  o.tag(f::packet::kTrackEvent, WireType::LengthDelimited);
  o.varint(eventBytes);
  return o;
}

void PerfettoSequenceEncoder::endSizedEvent() {
  ++packets_;
  maybeFlush();
}

void PerfettoSequenceEncoder::writeSliceEnd(uint64_t trackUuid, uint64_t tsNs) {
  // One exactly sized append: the hot half of every slice.
  const bool explicitTrack = trackUuid != defaultTrack_;
  const size_t event = varintFieldSize(f::event::kType, f::event::kTypeSliceEnd) +
                       (explicitTrack ? varintFieldSize(f::event::kTrackUuid, trackUuid) : 0);
  SizedWriter o = beginSizedEvent(tsNs, event);
  o.varintField(f::event::kType, f::event::kTypeSliceEnd);
  if (explicitTrack) o.varintField(f::event::kTrackUuid, trackUuid);
  endSizedEvent();
}

void PerfettoSequenceEncoder::closeSlicesUntil(Thread& t, uint64_t tsNs) {
  // The innermost open slice of each lane ends first in that lane; the
  // earliest of them (lowest lane on ties) ends while it ends by tsNs.
  while (std::optional<size_t> lane = t.lanes.firstEndingBy(tsNs)) {
    writeSliceEnd(t.laneUuids[*lane], t.lanes.innermostEnd(*lane));
    t.lanes.close(*lane);
  }
}

size_t PerfettoSequenceEncoder::laneFor(Thread& t, uint64_t endNs) {
  const size_t found = t.lanes.laneFor(endNs);
  if (found < t.lanes.size()) return found;
  // Overlaps the innermost open slice of every lane: a new lane, a child
  // track of the thread with the thread's name.
  const size_t lane = t.lanes.addLane();
  const uint64_t uuid = laneUuid(t.pid, t.tid, lane);
  t.laneUuids.push_back(uuid);
  ProtoWriter::Mark p = beginPacket(0, false);
  ProtoWriter::Mark d = w_.beginMessage(f::packet::kTrackDescriptor);
  writeTrackDescriptorHead(uuid, t.laneUuids[0]);
  w_.bytesField(f::track::kName, t.name);
  w_.endMessage(d);
  endPacket(p);
  definedTracks_.insert(uuid);
  return lane;
}

void PerfettoSequenceEncoder::slice(int64_t pid, int64_t tid, std::string_view name,
                                    std::string_view category, uint64_t tsNs, uint64_t durNs,
                                    std::span<const DebugArg> args, FlowRef flow) {
  Thread& t = ensureThread(pid, tid);
  if (tsNs < t.lastTs) throw std::logic_error("perfetto: slices of a thread out of ts order");
  t.lastTs = tsNs;
  closeSlicesUntil(t, tsNs);
  const uint64_t endNs = tsNs + durNs;
  const size_t lane = laneFor(t, endNs);
  writeEvent(f::event::kTypeSliceBegin, t.laneUuids[lane], tsNs, name, category, args, lane == 0,
             flow);
  t.lanes.open(lane, endNs);
}

void PerfettoSequenceEncoder::opSlice(int64_t pid, int64_t tid, const OpSlice& op) {
  if (finished_) throw std::logic_error("perfetto: encoder used after finish()");
  Thread& t = ensureThread(pid, tid);
  if (op.tsNs < t.lastTs) throw std::logic_error("perfetto: slices of a thread out of ts order");
  t.lastTs = op.tsNs;
  closeSlicesUntil(t, op.tsNs);
  if (tryFastOpSlice(t, op)) return;
  DebugArg args[3];
  size_t n = 0;
  args[n++] = DebugArg::ofString("name", op.name, true);
  if (op.memBytes > 0) args[n++] = DebugArg::ofUint("mem_bytes", op.memBytes);
  if (!op.detail.empty()) args[n++] = DebugArg::ofString("detail_info", op.detail);
  slice(pid, tid, op.name, "Op", op.tsNs, op.durNs, std::span<const DebugArg>(args, n), op.flow);
  rememberOpIids(op);
}

void PerfettoSequenceEncoder::rememberOpIids(const OpSlice& op) {
  auto iidOf = [](const Index& index, std::string_view text) -> uint64_t {
    auto it = index.iids.find(text);
    return it == index.iids.end() ? 0 : it->second;
  };
  opCategoryIid_ = iidOf(interned_.categories, "Op");
  opKeyIids_[0] = iidOf(interned_.annotationNames, "name");
  opKeyIids_[1] = iidOf(interned_.annotationNames, "mem_bytes");
  opKeyIids_[2] = iidOf(interned_.annotationNames, "detail_info");
  auto e = interned_.events.find(op.name);
  if (e == interned_.events.end()) return;
  if (op.nameId >= opNames_.size()) opNames_.resize(op.nameId + 1);
  opNames_[op.nameId] = {e->second.name, e->second.stringValue};
}

bool PerfettoSequenceEncoder::tryFastOpSlice(Thread& t, const OpSlice& op) {
  // Applies when nothing new is interned, no track switch and no new lane:
  // then the packet is a fixed shape whose size is known before writing.
  if (op.nameId >= opNames_.size() || op.flow.id) return false;
  const OpNameIids ids = opNames_[op.nameId];
  if (!ids.name || !ids.value || !opCategoryIid_ || !opKeyIids_[0]) return false;
  if ((op.memBytes && !opKeyIids_[1]) || (!op.detail.empty() && !opKeyIids_[2])) return false;
  const uint64_t endNs = op.tsNs + op.durNs;
  if (defaultTrack_ != t.laneUuids[0] || (!t.lanes.empty(0) && endNs > t.lanes.innermostEnd(0)))
    return false;
  namespace a = f::annotation;
  const size_t nameArg =
      varintFieldSize(a::kNameIid, opKeyIids_[0]) + varintFieldSize(a::kStringValueIid, ids.value);
  size_t event = varintFieldSize(f::event::kCategoryIids, opCategoryIid_) +
                 nestedSize(f::event::kDebugAnnotations, nameArg) +
                 varintFieldSize(f::event::kType, f::event::kTypeSliceBegin) +
                 varintFieldSize(f::event::kNameIid, ids.name);
  size_t memArg = 0, detailArg = 0;
  if (op.memBytes) {
    memArg =
        varintFieldSize(a::kNameIid, opKeyIids_[1]) + varintFieldSize(a::kUintValue, op.memBytes);
    event += nestedSize(f::event::kDebugAnnotations, memArg);
  }
  if (!op.detail.empty()) {
    detailText_.clear();
    appendValidUtf8(detailText_, op.detail, text_);
    detailArg = varintFieldSize(a::kNameIid, opKeyIids_[2]) +
                nestedSize(a::kStringValue, detailText_.size());
    event += nestedSize(f::event::kDebugAnnotations, detailArg);
  }
  SizedWriter o = beginSizedEvent(op.tsNs, event);
  o.varintField(f::event::kCategoryIids, opCategoryIid_);
  o.tag(f::event::kDebugAnnotations, WireType::LengthDelimited);
  o.varint(nameArg);
  o.varintField(a::kNameIid, opKeyIids_[0]);
  o.varintField(a::kStringValueIid, ids.value);
  if (memArg) {
    o.tag(f::event::kDebugAnnotations, WireType::LengthDelimited);
    o.varint(memArg);
    o.varintField(a::kNameIid, opKeyIids_[1]);
    o.varintField(a::kUintValue, op.memBytes);
  }
  if (detailArg) {
    o.tag(f::event::kDebugAnnotations, WireType::LengthDelimited);
    o.varint(detailArg);
    o.varintField(a::kNameIid, opKeyIids_[2]);
    o.tag(a::kStringValue, WireType::LengthDelimited);
    o.varint(detailText_.size());
    o.bytes(detailText_);
  }
  o.varintField(f::event::kType, f::event::kTypeSliceBegin);
  o.varintField(f::event::kNameIid, ids.name);
  t.lanes.open(0, endNs);
  endSizedEvent();
  return true;
}

void PerfettoSequenceEncoder::instant(int64_t pid, int64_t tid, std::string_view name,
                                      std::string_view category, uint64_t tsNs,
                                      std::span<const DebugArg> args) {
  Thread& t = ensureThread(pid, tid);
  if (tsNs < t.lastTs) throw std::logic_error("perfetto: events of a thread out of ts order");
  t.lastTs = tsNs;
  closeSlicesUntil(t, tsNs);
  writeEvent(f::event::kTypeInstant, t.laneUuids[0], tsNs, name, category, args, true);
}

uint64_t PerfettoSequenceEncoder::counterTrack(int64_t pid, std::string_view eventName,
                                               std::optional<int64_t> id,
                                               std::string_view seriesKey, CounterUnit unit) {
  if (counterSlots_.empty()) counterSlots_.resize(kCounterSlots);
  for (const CounterSlot& c : counterSlots_)
    if (c.uuid && c.pid == pid && c.id == id && c.seriesKey == seriesKey &&
        c.eventName == eventName)
      return c.uuid;
  const std::string trackName = counterTrackName(eventName, id, seriesKey);
  const uint64_t uuid = counterTrackUuid(pid, trackName);
  if (!definedTracks_.count(uuid)) {
    ensureProcessTrack(pid);
    ProtoWriter::Mark p = beginPacket(0, false);
    ProtoWriter::Mark td = w_.beginMessage(f::packet::kTrackDescriptor);
    writeTrackDescriptorHead(uuid, processTrackUuid(pid));
    w_.utf8Field(f::track::kName, trackName, text_);
    ProtoWriter::Mark cd = w_.beginMessage(f::track::kCounter);
    if (unit.builtin != CounterUnit::Builtin::Unspecified)
      w_.varintField(f::counter::kUnit, static_cast<uint32_t>(unit.builtin));
    if (!unit.name.empty()) w_.utf8Field(f::counter::kUnitName, unit.name, text_);
    w_.endMessage(cd);
    w_.endMessage(td);
    endPacket(p);
    definedTracks_.insert(uuid);
  }
  CounterSlot& slot = counterSlots_[nextCounterSlot_++ % kCounterSlots];
  slot = {pid, id, std::string(eventName), std::string(seriesKey), uuid};
  return uuid;
}

void PerfettoSequenceEncoder::writeCounter(int64_t pid, std::string_view eventName,
                                           std::optional<int64_t> id, std::string_view seriesKey,
                                           uint64_t tsNs, CounterUnit unit, bool isDouble,
                                           int64_t i, double d) {
  if (finished_) throw std::logic_error("perfetto: encoder used after finish()");
  const uint64_t uuid = counterTrack(pid, eventName, id, seriesKey, unit);
  const bool explicitTrack = uuid != defaultTrack_;
  // The value is written even when 0 (proto2 presence).
  const size_t event =
      varintFieldSize(f::event::kType, f::event::kTypeCounter) +
      (explicitTrack ? varintFieldSize(f::event::kTrackUuid, uuid) : 0) +
      (isDouble ? tagSize(f::event::kDoubleCounterValue) + 8
                : varintFieldSize(f::event::kCounterValue, static_cast<uint64_t>(i)));
  SizedWriter o = beginSizedEvent(tsNs, event);
  o.varintField(f::event::kType, f::event::kTypeCounter);
  if (explicitTrack) o.varintField(f::event::kTrackUuid, uuid);
  if (isDouble) {
    uint64_t bits;
    std::memcpy(&bits, &d, 8);
    o.tag(f::event::kDoubleCounterValue, WireType::Fixed64);
    for (int k = 0; k < 8; ++k) o.byte(static_cast<uint8_t>(bits >> (8 * k)));
  } else {
    o.varintField(f::event::kCounterValue, static_cast<uint64_t>(i));
  }
  endSizedEvent();
}

void PerfettoSequenceEncoder::counter(int64_t pid, std::string_view eventName,
                                      std::optional<int64_t> id, std::string_view seriesKey,
                                      uint64_t tsNs, int64_t value, CounterUnit unit) {
  writeCounter(pid, eventName, id, seriesKey, tsNs, unit, false, value, 0);
}

void PerfettoSequenceEncoder::counter(int64_t pid, std::string_view eventName,
                                      std::optional<int64_t> id, std::string_view seriesKey,
                                      uint64_t tsNs, double value, CounterUnit unit) {
  writeCounter(pid, eventName, id, seriesKey, tsNs, unit, true, 0, value);
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
  ProtoWriter::Mark p = beginPacket(0, false);  // no timestamp: not in the timeline
  ProtoWriter::Mark bundle = w_.beginMessage(f::packet::kChromeEvents);
  for (const DebugArg& a : entries) {
    ProtoWriter::Mark m = w_.beginMessage(f::chrome::kBundleMetadata);
    w_.bytesField(f::chrome::kMetadataName, "xstack." + std::string(a.key));
    w_.bytesField(f::chrome::kMetadataString, metadataText(a));
    w_.endMessage(m);
  }
  w_.endMessage(bundle);
  endPacket(p);
}

void PerfettoSequenceEncoder::finish() {
  if (finished_) return;
  for (auto& [key, t] : threads_) closeSlicesUntil(t, std::numeric_limits<uint64_t>::max());
  finished_ = true;
  if (!buf_.empty()) {
    sink_(buf_);
    buf_.clear();
  }
}

}  // namespace xstack::perfetto
