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
//
// A facade over the parts, one responsibility each: PacketSequence (packet
// framing, sequence flags, pieces), InternTables (iids), TrackRegistry
// (uuids and every TrackDescriptor), SliceStacks (open slices per thread,
// overlap lanes), TrackEventWriter (TrackEvent packets, the default track),
// DebugAnnotations (args), OpSliceWriter (op slices' fast path); the
// metadata packet is written here.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "xstack/core/TextWriting.h"
#include "xstack/render/perfetto/DebugAnnotations.h"
#include "xstack/render/perfetto/InternTables.h"
#include "xstack/render/perfetto/OpSliceWriter.h"
#include "xstack/render/perfetto/PacketSequence.h"
#include "xstack/render/perfetto/SliceStacks.h"
#include "xstack/render/perfetto/TrackEventWriter.h"
#include "xstack/render/perfetto/TrackRegistry.h"

namespace xstack::perfetto {

class PerfettoSequenceEncoder {
 public:
  // Receives each piece (the same contract as JsonRenderer::Sink).
  using Sink = PacketSequence::Sink;

  // `buffer`: memory to encode into (a recycled piece buffer), optional.
  PerfettoSequenceEncoder(uint32_t sequenceId, Sink sink, size_t pieceBytes = 4 << 20,
                          std::string buffer = {});
  // The parts refer to each other: the encoder stays where it was made.
  PerfettoSequenceEncoder(const PerfettoSequenceEncoder&) = delete;
  PerfettoSequenceEncoder& operator=(const PerfettoSequenceEncoder&) = delete;

  // Process track with ProcessDescriptor{pid, process_name, legacy_sort_index}.
  void process(int64_t pid, std::string_view name, int64_t sortIndex) {
    tracks_.declareProcess(pid, name, sortIndex);
  }
  // Thread track with ThreadDescriptor{pid, tid, thread_name, legacy_sort_index}.
  void thread(int64_t pid, int64_t tid, std::string_view name, int64_t sortIndex) {
    slices_.declare(pid, tid, name, sortIndex);
  }
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
  using OpSlice = perfetto::OpSlice;
  void opSlice(int64_t pid, int64_t tid, const OpSlice& op);
  // Forgets the op name ids (the caller's name table changes).
  void resetOpNames() { ops_.forgetNames(); }
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

  // Ends the open slices of every thread (lanes in end order) and hands
  // all buffered bytes to the sink. The encoder takes no calls after it.
  void finish();

  // The encode buffer, for reuse by the next chunk (after finish()).
  std::string takeBuffer() { return seq_.takeBuffer(); }

  const JsonTextStats& textStats() const { return seq_.textStats(); }
  uint64_t packetCount() const { return seq_.packetCount(); }

 private:
  // Declared in construction order: each part refers to those above it.
  PacketSequence seq_;
  InternTables interned_;
  TrackRegistry tracks_;
  TrackEventWriter events_;
  SliceStacks slices_;
  OpSliceWriter ops_;
};

}  // namespace xstack::perfetto
