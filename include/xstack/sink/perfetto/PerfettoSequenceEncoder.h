// Encodes one chunk of a trace (metadata, pipeline spans, a counter process,
// one displayed rank's row, ...) as one Perfetto packet sequence: a run of
// `Trace.packet` fields (field 1, length-delimited TracePackets) that is a
// valid Trace on its own and concatenates with other chunks' runs into a
// valid Trace. Calls are format-neutral (process, thread, slice, counter,
// instant, metadata); docs/FORMAT.md maps them to the JSON events.
//
// Contract:
// - `sequenceId` (nonzero) becomes trusted_packet_sequence_id. It must be
//   unique per chunk within one file and derived from the data (e.g. the
//   chunk's index in the output plan), never from the MPI rank: then the
//   bytes do not depend on np. The first packet carries
//   SEQ_INCREMENTAL_STATE_CLEARED, the others SEQ_NEEDS_INCREMENTAL_STATE.
// - Timestamps are ns since the trace's time origin (JSON ts µs x 1000) and
//   are always written, 0 included; counter values too, 0 included.
// - Track uuids are global and derived from the data only (trackUuid
//   functions below), so chunks that touch the same process agree.
//   Descriptors are written in this sequence before the first event that
//   uses them (a process referenced but not declared here gets a descriptor
//   with its pid only; the chunk that declares it supplies the name).
// - Event names, categories, annotation names (and interned annotation
//   values) are interned: written once per sequence with iids from 1.
// - Slices and instants of one (pid, tid) must come in non-decreasing ts
//   (the renderer's order); otherwise std::logic_error. Slices become
//   BEGIN/END pairs. A slice that overlaps its open parent without nesting
//   (legal in Chrome JSON X events, not in Perfetto) goes to an overlap
//   lane: a child track of the thread, named like the thread, where it
//   nests; ts and dur stay exact.
// - Strings are made valid UTF-8 like the JSON writer (appendValidUtf8):
//   invalid subparts become U+FFFD; the count is in textStats().
// - Output goes to `sink` in pieces of about `pieceBytes`, cut at packet
//   boundaries; the bytes do not depend on where it is cut. finish() ends
//   open slices and hands the rest to the sink.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "xstack/sink/json/JsonText.h"
#include "xstack/sink/OverlapLanes.h"
#include "xstack/sink/perfetto/ProtoWriter.h"

namespace xstack::perfetto {

// A debug annotation (JSON args entry). `internValue`: write a string value
// once per sequence (worth it for values that repeat, e.g. args.name).
struct DebugArg {
  enum class Type { Int, Uint, Double, Bool, String };
  std::string_view key;
  Type type = Type::Int;
  int64_t i = 0;
  uint64_t u = 0;
  double d = 0;
  std::string_view s;
  bool internValue = false;

  static DebugArg ofInt(std::string_view k, int64_t v) {
    return {k, Type::Int, v, 0, 0, {}, false};
  }
  static DebugArg ofUint(std::string_view k, uint64_t v) {
    return {k, Type::Uint, 0, v, 0, {}, false};
  }
  static DebugArg ofDouble(std::string_view k, double v) {
    return {k, Type::Double, 0, 0, v, {}, false};
  }
  static DebugArg ofBool(std::string_view k, bool v) {
    return {k, Type::Bool, v ? 1 : 0, 0, 0, {}, false};
  }
  static DebugArg ofString(std::string_view k, std::string_view v, bool intern = false) {
    return {k, Type::String, 0, 0, 0, v, intern};
  }
};

// CounterDescriptor unit: a built-in unit (UNIT_SIZE_BYTES for memory) or,
// with builtin Unspecified, a free-text unit_name ("ratio", "bytes/s").
struct CounterUnit {
  enum class Builtin : uint32_t { Unspecified = 0, TimeNs = 1, Count = 2, SizeBytes = 3 };
  Builtin builtin = Builtin::Unspecified;
  std::string_view name;
};

// Global track uuids (TrackDescriptor.uuid). Exact for 0 <= pid < 2^20 and
// 0 <= tid < 2^24: (pid << 26) | (tid << 2) | kind, below 2^46. Other ids,
// counters and overlap lanes use a 46-bit FNV-1a hash tagged with bit 48
// and the kind in the low two bits (collision odds ~ n^2 / 2^47).
uint64_t processTrackUuid(int64_t pid);
uint64_t threadTrackUuid(int64_t pid, int64_t tid);
uint64_t counterTrackUuid(int64_t pid, std::string_view trackName);
// Name of a counter track as Perfetto's JSON importer names the JSON
// counter's series: "<event name>[ id: <id>] <series key>".
std::string counterTrackName(std::string_view eventName, std::optional<int64_t> id,
                             std::string_view seriesKey);

// A flow end on a slice's begin: TrackEvent flow_ids (a flow leaves the
// slice) or, `terminates`, terminating_flow_ids (the flow ends there). Flow
// ids are global in the trace, across sequences. id 0: none.
struct FlowRef {
  uint64_t id = 0;
  bool terminates = false;
};

class PerfettoSequenceEncoder {
 public:
  // Receives each piece (the same contract as JsonRenderer::Sink).
  using Sink = std::function<void(std::string&)>;

  // `buffer`: memory to encode into (a recycled piece buffer), optional.
  PerfettoSequenceEncoder(uint32_t sequenceId, Sink sink, size_t pieceBytes = 4 << 20,
                          std::string buffer = {});

  // Process track with ProcessDescriptor{pid, process_name, legacy_sort_index}.
  void process(int64_t pid, std::string_view name, int64_t sortIndex);
  // Thread track with ThreadDescriptor{pid, tid, thread_name, legacy_sort_index}.
  void thread(int64_t pid, int64_t tid, std::string_view name, int64_t sortIndex);
  // A complete slice (JSON X event) on the thread's track.
  // `flow`: a flow end on the slice's begin (none by default).
  void slice(int64_t pid, int64_t tid, std::string_view name, std::string_view category,
             uint64_t tsNs, uint64_t durNs, std::span<const DebugArg> args, FlowRef flow = {});
  // An op slice, the bulk of a trace: exactly the bytes of
  //   slice(pid, tid, op.name, "Op", op.tsNs, op.durNs,
  //         {ofString("name", op.name, true), ofUint("mem_bytes", op.memBytes) if > 0,
  //          ofString("detail_info", op.detail) if not empty})
  // (a test compares the two), with a fast path for the steady state (name,
  // category and keys interned, the thread's own track current, no flow).
  // `op.flow`: a flow end, passed on to slice().
  // `op.nameId` identifies op.name in the caller's table of distinct names:
  // equal ids mean equal names until the next resetOpNames().
  struct OpSlice {
    uint32_t nameId = 0;
    std::string_view name;
    uint64_t tsNs = 0, durNs = 0;
    uint64_t memBytes = 0;  // 0: no mem_bytes annotation
    std::string_view detail;
    FlowRef flow;
  };
  void opSlice(int64_t pid, int64_t tid, const OpSlice& op);
  // Forgets the op name ids (the caller's name table changes).
  void resetOpNames() { opNames_.clear(); }
  // One sample of one series (JSON C event args entry) on its counter track,
  // a child of the process track. Integer values go to counter_value,
  // doubles to double_counter_value.
  void counter(int64_t pid, std::string_view eventName, std::optional<int64_t> id,
               std::string_view seriesKey, uint64_t tsNs, int64_t value, CounterUnit unit);
  void counter(int64_t pid, std::string_view eventName, std::optional<int64_t> id,
               std::string_view seriesKey, uint64_t tsNs, double value, CounterUnit unit);
  // TYPE_INSTANT on the thread's track (JSON "i" event, scope thread).
  void instant(int64_t pid, int64_t tid, std::string_view name, std::string_view category,
               uint64_t tsNs, std::span<const DebugArg> args);
  // The run's metadata (tool, time origin, otherData): one packet without a
  // timestamp holding a ChromeEventBundle whose ChromeMetadata entries are
  // named "xstack.<key>" with the value as text. Outside the timeline (it
  // moves no trace bound); trace_processor: its `metadata` table, names
  // "cr-xstack.<key>".
  void metadata(std::span<const DebugArg> entries);

  // Ends the open slices of every thread (lanes in uuid order) and hands
  // all buffered bytes to the sink. The encoder takes no calls after it.
  void finish();

  // The encode buffer, for reuse by the next chunk (after finish()).
  std::string takeBuffer() { return std::move(buf_); }

  const JsonTextStats& textStats() const { return text_; }
  uint64_t packetCount() const { return packets_; }

 private:
  struct Thread {
    int64_t pid = 0, tid = 0;
    std::string name;  // sanitised thread name, for overlap lanes
    uint64_t lastTs = 0;
    bool declared = false;            // laneUuids[0]'s descriptor written in this sequence
    OverlapLanes lanes;               // the open slices, lane 0 the thread's own track
    std::vector<uint64_t> laneUuids;  // track uuid per lane
  };
  struct TextHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  // Text -> iid, with the last hit remembered: categories and annotation
  // names repeat call after call ("Op", "name"), a compare beats a hash.
  struct Index {
    std::unordered_map<std::string, uint64_t, TextHash, std::equal_to<>> iids;
    std::string_view lastText;  // a key of `iids` (node keys are stable)
    uint64_t lastIid = 0;       // 0: no last hit yet
  };
  // An event name's iid and, once known, the iid of the same text among the
  // interned annotation string values (0: not looked up yet), so an op name
  // written as event name and as args.name costs one hash lookup.
  struct EventIids {
    uint64_t name = 0;
    uint64_t stringValue = 0;
  };
  using EventIndex = std::unordered_map<std::string, EventIids, TextHash, std::equal_to<>>;
  // Direct-mapped cache in front of `events`, keyed by the caller's text
  // address and size (callers pass names from stable tables); a hit is
  // confirmed by comparing the text, so a reused address is only a miss.
  struct EventSlot {
    const char* data = nullptr;
    size_t size = 0;
    EventIndex::value_type* entry = nullptr;  // node of `events` (stable)
  };
  static constexpr size_t kEventSlots = 1024;
  struct Interned {
    EventIndex events;
    std::vector<EventSlot> eventSlots;  // kEventSlots once used
    Index categories, annotationNames, strings;
  };
  // New interned entries a packet must carry (iid, raw text).
  struct NewEntries {
    std::vector<std::pair<uint64_t, std::string_view>> events, categories, names, strings;
    bool empty() const {
      return events.empty() && categories.empty() && names.empty() && strings.empty();
    }
  };

  ProtoWriter::Mark beginPacket(uint64_t tsNs, bool hasTs);
  void endPacket(ProtoWriter::Mark packet);
  void ensureProcessTrack(int64_t pid);
  Thread& ensureThread(int64_t pid, int64_t tid);
  void writeOrdering(int64_t sortIndex, bool parent);
  void writeTrackDescriptorHead(uint64_t uuid, uint64_t parentUuid);
  uint64_t intern(Index& index, std::string_view text,
                  std::vector<std::pair<uint64_t, std::string_view>>& fresh);
  void writeInternedData(const NewEntries& fresh);
  // Interns the args' names (and interned values); returns their iids.
  // `event`: the entry of the event's name, reused for a string value equal
  // to that name.
  // The event name's entry in interned_.events, added (and recorded in
  // `fresh`) when new.
  EventIids& internEvent(std::string_view name, NewEntries& fresh);
  void internArgs(std::span<const DebugArg> args, std::string_view eventName, EventIids& event,
                  NewEntries& fresh);
  void writeArgs(std::span<const DebugArg> args);
  // Ends the open slices of `t` that end at or before tsNs, in end order.
  void closeSlicesUntil(Thread& t, uint64_t tsNs);
  void writeSliceEnd(uint64_t trackUuid, uint64_t tsNs);
  size_t laneFor(Thread& t, uint64_t endNs);
  // A track-bound event: name/category interned, track by default or uuid.
  // switchDefault: make trackUuid the sequence's default track (thread
  // tracks: later events on it omit track_uuid).
  void writeEvent(uint32_t type, uint64_t trackUuid, uint64_t tsNs, std::string_view name,
                  std::string_view category, std::span<const DebugArg> args, bool switchDefault,
                  FlowRef flow = {});
  void writeCounter(int64_t pid, std::string_view eventName, std::optional<int64_t> id,
                    std::string_view seriesKey, uint64_t tsNs, CounterUnit unit, bool isDouble,
                    int64_t i, double d);
  void maybeFlush();
  // A TrackEvent packet of known size: writes the packet head (timestamp,
  // sequence fields) and the TrackEvent's tag and length; the caller writes
  // exactly `eventBytes` more, then calls endSizedEvent().
  SizedWriter beginSizedEvent(uint64_t tsNs, size_t eventBytes);
  void endSizedEvent();
  // The fast path of opSlice(); false (nothing written) when it does not apply.
  bool tryFastOpSlice(Thread& t, const OpSlice& op);
  // After a general op slice: the iids the fast path needs, when all known.
  void rememberOpIids(const OpSlice& op);
  // Counter track of (pid, name, id, series): uuid, descriptor written once.
  uint64_t counterTrack(int64_t pid, std::string_view eventName, std::optional<int64_t> id,
                        std::string_view seriesKey, CounterUnit unit);

  uint32_t sequenceId_;
  Sink sink_;
  size_t pieceBytes_;
  std::string buf_;
  ProtoWriter w_;
  JsonTextStats text_;
  uint64_t packets_ = 0;
  uint64_t defaultTrack_ = 0;  // TrackEventDefaults.track_uuid in force (0: none)
  bool finished_ = false;
  std::unordered_set<uint64_t> definedTracks_;
  std::map<std::pair<int64_t, int64_t>, Thread> threads_;
  Thread* lastThread_ = nullptr;  // the last ensureThread() result (map nodes are stable)
  Interned interned_;
  std::vector<std::pair<uint64_t, uint64_t>> argIids_;  // (name iid, value iid or 0) per arg
  // Op names by the caller's id: iids of the event name and of the same text
  // as an interned annotation value (0: not known yet).
  struct OpNameIids {
    uint64_t name = 0, value = 0;
  };
  std::vector<OpNameIids> opNames_;
  // iids of category "Op" and of the keys "name", "mem_bytes", "detail_info"
  // (0: not interned yet in this sequence).
  uint64_t opCategoryIid_ = 0, opKeyIids_[3] = {0, 0, 0};
  std::string detailText_;  // scratch: a sanitised detail_info value
  // Recently used counter tracks (DCGM writes its series in turn): key, uuid.
  struct CounterSlot {
    int64_t pid = 0;
    std::optional<int64_t> id;
    std::string eventName, seriesKey;
    uint64_t uuid = 0;
  };
  static constexpr size_t kCounterSlots = 32;
  std::vector<CounterSlot> counterSlots_;
  size_t nextCounterSlot_ = 0;
  // Packet header after the timestamp: trusted_packet_sequence_id and
  // sequence_flags, encoded once; [0] for the first packet (flags 1), [1]
  // for the others (flags 2).
  std::string sequenceHead_[2];
};

}  // namespace xstack::perfetto
