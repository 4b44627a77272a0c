// Test helper: the parts of one Perfetto packet sequence wired as
// PerfettoSequenceEncoder wires them, without the facade, so a test drives
// one part and reads the bytes back (test::decode, tests/perfetto). Test
// code only.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../../../perfetto/PftraceDecoder.h"
#include "xstack/render/perfetto/InternTables.h"
#include "xstack/render/perfetto/PacketSequence.h"
#include "xstack/render/perfetto/SliceStacks.h"
#include "xstack/render/perfetto/TrackEventWriter.h"
#include "xstack/render/perfetto/TrackRegistry.h"

namespace xstack::perfetto::test {

struct SequenceParts {
  std::string out;  // every piece handed over, in order
  PacketSequence seq;
  InternTables interned;
  TrackRegistry tracks{seq};
  TrackEventWriter events{seq, interned};
  SliceStacks slices{tracks, events, seq.textStats()};

  explicit SequenceParts(uint32_t sequenceId)
      : seq(sequenceId, [this](std::string& piece) { out += piece; }, 64, {}) {}

  // A complete slice, as PerfettoSequenceEncoder::slice() writes it.
  void slice(int64_t pid, int64_t tid, std::string_view name, uint64_t tsNs, uint64_t durNs) {
    ThreadSlices& t = slices.advanceTo(pid, tid, tsNs);
    const size_t lane = slices.laneFor(t, tsNs + durNs);
    events.write({.type = fields::event::kTypeSliceBegin,
                  .trackUuid = t.laneUuids[lane],
                  .tsNs = tsNs,
                  .name = name,
                  .category = "c",
                  .args = {},
                  .makeDefault = lane == 0,
                  .flow = {}});
    t.lanes.open(lane, tsNs + durNs);
  }
  // Ends the open slices and hands the rest over; returns all bytes.
  const std::string& finish() {
    slices.closeAll();
    seq.finish();
    return out;
  }
};

// Decodes and fails the test on every broken rule of docs/FORMAT.md section 7.
inline Decoded decodeOrFail(const std::string& bytes) {
  Decoded d = decode(bytes);
  for (const std::string& e : d.errors) ADD_FAILURE() << e;
  return d;
}

// Every TrackDescriptor packet in file order (decode() keeps one per uuid).
inline std::vector<pb::TrackDescriptor> descriptorPackets(const std::string& bytes) {
  pb::Trace trace;
  EXPECT_TRUE(trace.ParseFromString(bytes));
  std::vector<pb::TrackDescriptor> all;
  for (const pb::TracePacket& p : trace.packet())
    if (p.has_track_descriptor()) all.push_back(p.track_descriptor());
  return all;
}

}  // namespace xstack::perfetto::test
