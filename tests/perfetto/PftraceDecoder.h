// Reads .pftrace bytes back with real protobuf (the test-only schema
// subset tests/perfetto/perfetto_subset.proto) and applies the rules of
// docs/FORMAT.md section 7; every broken rule is one entry of
// Decoded::errors. Used by the unit test and by pftrace_check. Test code only.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "perfetto_subset.pb.h"

namespace xstack::perfetto::test {

namespace pb = xstack_test::perfetto;

// Broken rules of the trace being decoded (decode() sets and clears it).
inline std::vector<std::string>*& decodeErrors() {
  static thread_local std::vector<std::string>* errors = nullptr;
  return errors;
}
inline void expect(bool ok, const std::string& what) {
  if (!ok && decodeErrors()) decodeErrors()->push_back(what);
}

struct SliceSeen {
  uint64_t track;
  std::string name, category;
  uint64_t ts, dur;
  std::map<std::string, std::string> args;  // value as text
  bool operator<(const SliceSeen& o) const {
    return std::tie(track, ts, dur, name) < std::tie(o.track, o.ts, o.dur, o.name);
  }
};
struct CounterSeen {
  uint64_t track;
  uint64_t ts;
  double value;
  bool isDouble;
};

// What a reader sees after applying the rules; gtest failures on any break.
struct Decoded {
  std::vector<std::string> errors;  // rules broken
  std::map<uint64_t, pb::TrackDescriptor> tracks;
  std::vector<SliceSeen> slices;  // END order
  std::vector<SliceSeen> instants;
  std::vector<CounterSeen> counters;
  std::map<std::string, std::string> metadata;  // ChromeMetadata: name -> string value
  std::map<uint32_t, std::map<std::string, int>> namesWritten;  // per sequence
};

struct SequenceState {
  std::map<uint64_t, std::string> events, categories, annotationNames, strings;
  uint64_t defaultTrack = 0;
  bool cleared = false;
};

inline std::string argText(const pb::DebugAnnotation& a, const SequenceState& s) {
  if (a.has_string_value_iid()) {
    auto it = s.strings.find(a.string_value_iid());
    expect((it) != (s.strings.end()), std::string("annotation string iid unresolved"));
    return it == s.strings.end() ? "" : it->second;
  }
  if (a.has_string_value()) return a.string_value();
  if (a.has_int_value()) return std::to_string(a.int_value());
  if (a.has_uint_value()) return std::to_string(a.uint_value());
  if (a.has_bool_value()) return a.bool_value() ? "true" : "false";
  if (a.has_double_value()) return nlohmann::json(a.double_value()).dump();
  expect(false, std::string("annotation without value"));
  return "";
}

template <typename Entries>
void addInterned(std::map<uint64_t, std::string>& index, const Entries& entries,
                 std::map<std::string, int>& written, const std::string& table) {
  for (const auto& e : entries) {
    expect(!(index.count(e.iid())),
           std::string("iid ") + std::to_string(e.iid()) + std::string(" defined twice"));
    if constexpr (std::is_same_v<std::decay_t<decltype(e)>, pb::InternedBytes>)
      index[e.iid()] = e.str();
    else
      index[e.iid()] = e.name();
    ++written[table + ":" + index[e.iid()]];
  }
}

inline void applyInterned(const pb::InternedData& d, SequenceState& s,
                          std::map<std::string, int>& w) {
  addInterned(s.events, d.event_names(), w, "event");
  addInterned(s.categories, d.event_categories(), w, "category");
  addInterned(s.annotationNames, d.debug_annotation_names(), w, "annotation");
  addInterned(s.strings, d.debug_annotation_string_values(), w, "string");
}

inline SliceSeen eventBody(const pb::TrackEvent& e, const SequenceState& s, uint64_t track,
                           uint64_t ts) {
  SliceSeen out{track, "", "", ts, 0, {}};
  auto name = s.events.find(e.name_iid());
  expect(e.has_name_iid() && name != s.events.end(), std::string("event name iid unresolved"));
  if (name != s.events.end()) out.name = name->second;
  for (uint64_t c : e.category_iids()) {
    auto cat = s.categories.find(c);
    expect((cat) != (s.categories.end()), std::string("category iid unresolved"));
    if (cat != s.categories.end()) out.category = cat->second;
  }
  for (const auto& a : e.debug_annotations()) {
    auto key = s.annotationNames.find(a.name_iid());
    expect((key) != (s.annotationNames.end()), std::string("annotation name iid unresolved"));
    if (key != s.annotationNames.end()) out.args[key->second] = argText(a, s);
  }
  return out;
}

inline void addDescriptor(Decoded& d, const pb::TrackDescriptor& td) {
  expect(td.uuid() != 0u, "track uuid 0");
  if (td.has_parent_uuid())
    expect(d.tracks.count(td.parent_uuid()) != 0, "parent track defined after its child");
  auto [it, added] = d.tracks.try_emplace(td.uuid(), td);
  if (added) return;
  // Re-emitted (another chunk, or a named process after a pid-only one):
  // the same kind of track.
  expect(it->second.has_counter() == td.has_counter(), "uuid reused for another kind of track");
  expect(it->second.thread().tid() == td.thread().tid(), "uuid reused for another thread");
  expect(it->second.process().pid() == td.process().pid(), "uuid reused for another process");
  if (td.has_process() && td.process().has_process_name()) it->second = td;
}

// Open slices per track (BEGINs not yet ended) and the last ts per track.
struct TrackState {
  std::map<uint64_t, std::vector<SliceSeen>> open;
  std::map<uint64_t, uint64_t> lastTs;
};

inline void endSlice(Decoded& d, TrackState& ts, uint64_t track, uint64_t endNs) {
  std::vector<SliceSeen>& stack = ts.open[track];
  expect(!stack.empty(), "END without BEGIN");
  if (stack.empty()) return;
  SliceSeen sl = stack.back();
  stack.pop_back();
  expect(endNs >= sl.ts, "END before BEGIN");
  sl.dur = endNs - sl.ts;
  d.slices.push_back(sl);
}

inline void addEvent(Decoded& d, TrackState& ts, const pb::TracePacket& p, const SequenceState& s) {
  const pb::TrackEvent& e = p.track_event();
  expect(p.has_timestamp(), "event without timestamp");
  const uint64_t track = e.has_track_uuid() ? e.track_uuid() : s.defaultTrack;
  auto td = d.tracks.find(track);
  expect(td != d.tracks.end(), "track " + std::to_string(track) + " used before defined");
  const bool counterTrack = td != d.tracks.end() && td->second.has_counter();
  const bool isCounter = e.type() == pb::TrackEvent::TYPE_COUNTER;
  expect(counterTrack == isCounter, "counter events only, and only, on counter tracks");
  expect(isCounter == (e.has_counter_value() || e.has_double_counter_value()),
         "a counter value on every counter event and on no other");
  if (!counterTrack) {  // BEGIN/END pair in file order: ts must not go back
    expect(p.timestamp() >= ts.lastTs[track], "track events out of ts order");
    ts.lastTs[track] = p.timestamp();
  }
  switch (e.type()) {
    case pb::TrackEvent::TYPE_SLICE_BEGIN:
      ts.open[track].push_back(eventBody(e, s, track, p.timestamp()));
      break;
    case pb::TrackEvent::TYPE_SLICE_END:
      endSlice(d, ts, track, p.timestamp());
      break;
    case pb::TrackEvent::TYPE_INSTANT:
      d.instants.push_back(eventBody(e, s, track, p.timestamp()));
      break;
    case pb::TrackEvent::TYPE_COUNTER:
      d.counters.push_back({track, p.timestamp(),
                            e.has_double_counter_value() ? e.double_counter_value()
                                                         : static_cast<double>(e.counter_value()),
                            e.has_double_counter_value()});
      break;
    default:
      expect(false, "event without type");
  }
}

inline Decoded decode(const std::string& bytes) {
  Decoded d;
  decodeErrors() = &d.errors;
  pb::Trace trace;
  expect(trace.ParseFromString(bytes), "not a Trace");
  std::map<uint32_t, SequenceState> seqs;
  TrackState tracks;
  for (const pb::TracePacket& p : trace.packet()) {
    expect(p.has_trusted_packet_sequence_id() && p.trusted_packet_sequence_id() != 0,
           "packet without a sequence id");
    SequenceState& s = seqs[p.trusted_packet_sequence_id()];
    if (p.sequence_flags() & 1) s = SequenceState{{}, {}, {}, {}, 0, true};
    expect(s.cleared, "first packet of a sequence lacks SEQ_INCREMENTAL_STATE_CLEARED");
    if (p.has_interned_data())
      applyInterned(p.interned_data(), s, d.namesWritten[p.trusted_packet_sequence_id()]);
    if (p.has_trace_packet_defaults())
      s.defaultTrack = p.trace_packet_defaults().track_event_defaults().track_uuid();
    if (p.has_track_descriptor()) addDescriptor(d, p.track_descriptor());
    if (p.has_track_event()) addEvent(d, tracks, p, s);
    if (p.has_chrome_events()) {
      expect(!p.has_timestamp(),
             "metadata packet with a timestamp (it would move the trace start)");
      for (const auto& m : p.chrome_events().metadata()) d.metadata[m.name()] = m.string_value();
    }
  }
  for (const auto& [track, stack] : tracks.open)
    expect(stack.empty(), "BEGIN without END on track " + std::to_string(track));
  decodeErrors() = nullptr;
  return d;
}

}  // namespace xstack::perfetto::test
